/* Hertz normal contact: force and elastic energy from overlap (static inline).
 */
#ifndef DEM_HERTZ_H
#define DEM_HERTZ_H

#include <math.h>

/* The stiffness k = 4/3 E* sqrt(R*) of F = k d^(3/2): a pair's constant,
 * kept in the neighbour lists. */
static inline double dem_hertz_stiffness(double estar, double rstar) {
  return (4.0 / 3.0) * estar * sqrt(rstar);
}
/* F = k d sqrt(d), without pow(). */
static inline double dem_hertz_force_k(double k, double d) {
  return k * sqrt(d) * d;
}
/* F = 4/3 E* sqrt(R*) d^(3/2), rounded exactly as the contact loop does. */
static inline double dem_hertz_force(double estar, double rstar, double d) {
  return dem_hertz_force_k(dem_hertz_stiffness(estar, rstar), d);
}
/* U = 8/15 E* sqrt(R*) d^(5/2). */
static inline double dem_hertz_energy(double estar, double rstar, double d) {
  return (8.0 / 15.0) * estar * sqrt(rstar * d) * d * d;
}
/* Contact duration of a head-on Hertz collision (Johnson's t_c):
 * 2.87 (m*^2 / (R* E*^2 v))^(1/5). */
static inline double dem_hertz_contact_time(double mstar, double rstar,
                                            double estar, double v) {
  return 2.868 * pow(mstar * mstar / (rstar * estar * estar * v), 0.2);
}

#endif
