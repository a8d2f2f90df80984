/* Contact forces with the law in use: every contact evaluated once, then
 * gathered to its spheres in a fixed order. */
#ifndef DEM_CONTACT_H
#define DEM_CONTACT_H

#include "sim/sim.h"

/* Evaluates every contact of the lists with the contact law (each pair
 * once, by its owner) and adds to each sphere's force (and torque) its
 * pairs in ascending partner id, then its walls in wall order: no
 * atomics, and the same sums, bitwise, for any thread count and any
 * order of the spheres. `dt` is how far the contacts' history advances
 * (0 at the first evaluation of a run). */
void dem_contact_forces(struct dem_sim *sim, double dt);

/* Elastic energy of every touching contact, summed per owner sphere and
 * then in sphere id order (scratch: n_spheres doubles). */
double dem_contact_elastic_energy(const struct dem_sim *sim, double *scratch);

/* Work the contacts have dissipated since the start, by mechanism (enum
 * dem_dissipation; 0 for a conservative law), summed in sphere id order. */
/* The work the moving mesh walls did on the bodies since the start, to
 * the last force evaluation (0 without meshes), summed in sphere id
 * order. */
double dem_contact_wall_work(const struct dem_sim *sim);
void dem_contact_dissipated(const struct dem_sim *sim,
                            double out[DEM_N_DISSIPATION]);

#endif
