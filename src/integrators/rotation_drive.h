/* One body under a prescribed load, stepped the way the pipeline steps it. */
/* For the tests and the validation study. */
#ifndef DEM_ROTATION_DRIVE_H
#define DEM_ROTATION_DRIVE_H

#include "integrators/rotation.h"

/* Called after every `observe_every` steps (and never at step 0) with the
 * state at the step boundary t and the synchronised w(t). */
typedef void (*dem_rot_observer)(void *ctx, long step, double t,
                                 const struct dem_rot_state *s,
                                 const double w_sync[3]);

struct dem_rot_drive {
  const struct dem_rotation_integrator *scheme;
  double inertia[3];
  double dt;
  dem_torque_fn torque; /* lab-frame load */
  void *torque_ctx;
  int normalise_every; /* -1: the scheme's default (1 or never); 0: never;
                          k > 0: normalise q after every k-th step */
  int use_step_fn;     /* call step_fn (rk4) when the scheme has one */
  dem_rot_observer observe;
  void *observe_ctx;
  long observe_every;
};

/* Sets s up from (q, w) at t0 (start), runs `steps` steps and writes the
 * synchronised w at t0 + steps dt to w_sync; s->q is then the orientation
 * at that time. Per step: before_force(tau(t)); normalise; tau(t+dt) with
 * the new q; after_force(tau(t+dt)). */
void dem_rot_drive_run(const struct dem_rot_drive *d, struct dem_rot_state *s,
                       double t0, long steps, double w_sync[3]);

#endif
