/* Prescribed loads: a force and/or torque on bodies, constant or a function of
 * time. */
#ifndef DEM_LOAD_H
#define DEM_LOAD_H

#include <stddef.h>

enum dem_load_frame { DEM_FRAME_LAB, DEM_FRAME_BODY };
enum dem_load_function { DEM_LOAD_CONSTANT, DEM_LOAD_EXP, DEM_LOAD_SIN };

/* force(t) = force * f(t), torque(t) = torque * f(t) with f = 1,
 * exp(rate t) or sin(omega t + phase); in the body principal frame or the
 * lab frame. */
struct dem_load {
  double force[3], torque[3];
  enum dem_load_frame frame;
  enum dem_load_function function;
  double rate, omega, phase;
  long *bodies; /* ids (input order); NULL: every body */
  size_t n_bodies;
};

/* Lab-frame force and torque at time t for a body with orientation q. */
void dem_load_eval(const struct dem_load *l, double t, const double q[4],
                   double force_lab[3], double torque_lab[3]);
/* Whether the load acts on the body of id b. */
int dem_load_applies(const struct dem_load *l, long b);

#endif
