/* One body under a prescribed load, stepped the way the pipeline steps it. */
#include "integrators/rotation_drive.h"

#include "core/quat.h"

void dem_rot_drive_run(const struct dem_rot_drive *d, struct dem_rot_state *s,
                       double t0, long steps, double w_sync[3]) {
  const struct dem_rotation_integrator *r = d->scheme;
  const int every =
      d->normalise_every < 0 ? (r->normalise ? 1 : 0) : d->normalise_every;
  const int use_fn = d->use_step_fn && r->step_fn;
  double tau[3];
  d->torque(d->torque_ctx, t0, s->q, s->w, tau);
  r->start(s, d->inertia, tau, d->dt);
  for (long n = 0; n < steps; n++) {
    const double t = t0 + (double)n * d->dt, t1 = t0 + (double)(n + 1) * d->dt;
    if (use_fn)
      r->step_fn(s, d->inertia, t, d->dt, d->torque, d->torque_ctx);
    else
      r->before_force(s, d->inertia, tau, d->dt);
    if (every > 0 && (n + 1) % every == 0)
      q_normalize(s->q);
    d->torque(d->torque_ctx, t1, s->q, s->w, tau);
    if (!use_fn && r->after_force)
      r->after_force(s, d->inertia, tau, d->dt);
    if (d->observe && d->observe_every > 0 && (n + 1) % d->observe_every == 0) {
      double w[3];
      r->sync(s, d->inertia, tau, d->dt, w);
      d->observe(d->observe_ctx, n + 1, t1, s, w);
    }
  }
  r->sync(s, d->inertia, tau, d->dt, w_sync);
}
