/* Improved predictor-corrector direct multiplication (Seelen et al. 2016). */
#include "integrators/rot_common.h"

/* aux[0..3]: q(t - dt/2), the half-step quaternion.
 * aux[4..6]: w'(t), the predicted body angular velocity at t.
 * s->q holds the predicted q'(t) (forces are computed with it) and s->w
 * the body angular velocity w(t - dt/2). */
enum { QH = 0, WP = 4 };

/* wdot(t) = I^-1 (M^b(t) - w' x I w'), M^b = q'^-1 M q' (step 3). */
static DEM_ALWAYS_INLINE void pcdm_wdot(double wd[3],
                                        const struct dem_rot_state *s,
                                        const double inertia[3],
                                        const double torque_lab[3]) {
  double M[3];
  q_rotate_inv(M, s->q, torque_lab);
  rot_wdot(wd, inertia, s->aux + WP, M);
}

/* w'(t0) = w0, q'(t0) = q0, w(t0 - dt/2) = w0 - dt/2 wdot(t0),
 * q(t0 - dt/2) = exp(-dt/4 w0_lab) q0. */
static void pcdm_start(struct dem_rot_state *s, const double inertia[3],
                       const double torque_lab[3], double dt) {
  double wd[3], wl[3];
  v3_copy(s->aux + WP, s->w);
  pcdm_wdot(wd, s, inertia, torque_lab);
  q_rotate(wl, s->q, s->w);
  v3_scale(wl, wl, -0.25 * dt);
  q_copy(s->aux + QH, s->q);
  rot_exp_mul_q(s->aux + QH, wl);
  v3_axpy(s->w, -0.5 * dt, wd);
}

/* Step 4 (corrector) with the torque at t, then step 2 (predictor) for
 * t + dt: one call per step, the torque evaluated once in between. */
static DEM_ALWAYS_INLINE int pcdm_step_in(struct dem_rot_state *s,
                                          const double inertia[3],
                                          const double torque_lab[3], double dt,
                                          enum dem_rot_mode mode) {
  double wd[3], wl[3], w34[3], *qh = s->aux + QH, *wp = s->aux + WP;
  pcdm_wdot(wd, s, inertia, torque_lab);
  /* q(t+dt/2) = [cos(|w'|dt/2), sin(|w'|dt/2) w'/|w'|] q(t-dt/2), w' lab */
  q_rotate(wl, s->q, wp);
  v3_scale(wl, wl, 0.5 * dt);
  int ok = rot_exp_mul_q_in(qh, wl, mode);
  /* w(t+dt/2) = w(t-dt/2) + dt wdot(t) */
  v3_axpy(s->w, dt, wd);
  /* predictor: w(t+3dt/4) = w(t+dt/2) + dt/4 wdot(t), to the lab with
   * q(t+dt/2); q'(t+dt) = [cos(|w|dt/4), sin(|w|dt/4) w/|w|] q(t+dt/2) */
  v3_copy(w34, s->w);
  v3_axpy(w34, 0.25 * dt, wd);
  q_rotate(wl, qh, w34);
  v3_scale(wl, wl, 0.25 * dt);
  q_copy(s->q, qh);
  ok &= rot_exp_mul_q_in(s->q, wl, mode);
  /* w'(t+dt) = w(t+dt/2) + dt/2 wdot(t) */
  v3_copy(wp, s->w);
  v3_axpy(wp, 0.5 * dt, wd);
  return ok;
}
static void pcdm_step(struct dem_rot_state *s, const double inertia[3],
                      const double torque_lab[3], double dt) {
  pcdm_step_in(s, inertia, torque_lab, dt, DEM_ROT_BODY);
}

/* w(t) = w(t-dt/2) + dt/2 wdot(t), wdot from M(t) and w'(t). */
static DEM_ALWAYS_INLINE void pcdm_sync(const struct dem_rot_state *s,
                                        const double inertia[3],
                                        const double torque_lab[3], double dt,
                                        double w_out[3]) {
  double wd[3];
  pcdm_wdot(wd, s, inertia, torque_lab);
  v3_copy(w_out, s->w);
  v3_axpy(w_out, 0.5 * dt, wd);
}

DEM_ROT_BLOCK_STEP(pcdm_step_block, pcdm_step_in, 7);
DEM_ROT_BLOCK_SYNC(pcdm_sync_block, pcdm_sync, 7);
static const struct dem_rot_block_kernels pcdm_block = {
    .before_force = pcdm_step_block,
    .sync = pcdm_sync_block,
};

const struct dem_rotation_integrator dem_rot_pcdm = {
    .name = "pcdm",
    .doc = "Improved PCDM (Seelen, Padding & Kuipers, Acta Mech. 227 (2016) "
           "3381), a leapfrog in which w and q live at half steps and the "
           "orientation the forces see is a prediction q'(t) (the orientation "
           "a snapshot holds). Each step, with M(t) rotated by q'(t): wdot(t) "
           "= I^-1 (M - w' x I w'); q(t+dt/2) = exp(dt/2 w'_lab) q(t-dt/2); "
           "w(t+dt/2) = w(t-dt/2) + dt wdot(t); predictor q'(t+dt) = exp(dt/4 "
           "w_lab(t+3dt/4)) q(t+dt/2) with w(t+3dt/4) = w(t+dt/2) + dt/4 "
           "wdot(t); w'(t+dt) = w(t+dt/2) + dt/2 wdot(t) (exp(v) = (cos|v|, "
           "v/|v| sin|v|)). Keeps q(t-dt/2) and the predicted w'(t) per body "
           "(restarts store them). Before the first step w' = w0, w(t0-dt/2) "
           "= w0 - dt/2 wdot(t0), q(t0-dt/2) = exp(-dt/4 w0_lab) q0; energies "
           "and snapshots report w(t) = w(t-dt/2) + dt/2 wdot(t). One torque "
           "evaluation; global order 2. Unit quaternion products: never "
           "normalised.",
    .leapfrog = 1,
    .normalise = 0,
    .torque_evaluations = 1,
    .aux_size = 7,
    .start = pcdm_start,
    .before_force = pcdm_step,
    .after_force = NULL,
    .sync = pcdm_sync,
    .step_fn = NULL,
    .block = &pcdm_block,
};
