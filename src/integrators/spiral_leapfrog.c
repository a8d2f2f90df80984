/* SPIRAL, leapfrog form (del Valle et al. 2024, Eqs. 7-10): the default. */
#include "integrators/rot_common.h"

/* Half step back, Eq. 9 with -dt/2: w(t0 - dt/2) from w(t0) and M(t0). */
static DEM_ALWAYS_INLINE void spiral_lf_start(struct dem_rot_state *s,
                                              const double inertia[3],
                                              const double torque_lab[3],
                                              double dt) {
  double M[3];
  q_rotate_inv(M, s->q, torque_lab);
  rot_ssprk3(s->w, inertia, M, -0.5 * dt);
}

/* w(t+dt/2) = w(t-dt/2) + SSPRK3 over dt with M(t) (Eqs. 9-10), then
 * q(t+dt) = q(t) exp(dt/2 w(t+dt/2)) (Eq. 7). */
static DEM_ALWAYS_INLINE int spiral_lf_step_in(struct dem_rot_state *s,
                                               const double inertia[3],
                                               const double torque_lab[3],
                                               double dt,
                                               enum dem_rot_mode mode) {
  double M[3], v[3];
  q_rotate_inv(M, s->q, torque_lab);
  rot_ssprk3(s->w, inertia, M, dt);
  v3_scale(v, s->w, 0.5 * dt);
  return rot_q_mul_exp_in(s->q, v, mode);
}
static void spiral_lf_step(struct dem_rot_state *s, const double inertia[3],
                           const double torque_lab[3], double dt) {
  spiral_lf_step_in(s, inertia, torque_lab, dt, DEM_ROT_BODY);
}

/* w(t) by a half SSPRK3 step (Eq. 9 with dt/2) from w(t-dt/2), M(t). */
static DEM_ALWAYS_INLINE void spiral_lf_sync(const struct dem_rot_state *s,
                                             const double inertia[3],
                                             const double torque_lab[3],
                                             double dt, double w_out[3]) {
  double M[3];
  q_rotate_inv(M, s->q, torque_lab);
  v3_copy(w_out, s->w);
  rot_ssprk3(w_out, inertia, M, 0.5 * dt);
}

DEM_ROT_BLOCK_PLAIN(lf_start_block, spiral_lf_start, 0);
DEM_ROT_BLOCK_STEP(lf_step_block, spiral_lf_step_in, 0);
DEM_ROT_BLOCK_SYNC(lf_sync_block, spiral_lf_sync, 0);
static const struct dem_rot_block_kernels lf_block = {
    .start = lf_start_block,
    .before_force = lf_step_block,
    .sync = lf_sync_block,
};

const struct dem_rotation_integrator dem_rot_spiral_leapfrog = {
    .name = "spiral_leapfrog",
    .doc = "SPIRAL, leapfrog form, the default (del Valle, Angelidakis, Roy, "
           "Muñoz & Pöschel, Comput. Phys. Commun. 297 (2024) 109077, Eqs. "
           "7-10). The angular velocity w (body principal frame) lives at "
           "half steps: w(t+dt/2) = w(t-dt/2) + (K1+K2+4K3)/6, an SSPRK3 step "
           "of Euler's equations with the torque held at M(t) (the lab torque "
           "rotated into the body frame with q(t)); then q(t+dt) = q(t)(cos "
           "th, w/|w| sin th), th = dt|w(t+dt/2)|/2. Before the first step w "
           "is taken back half a step (Eq. 9 with -dt/2); energies and "
           "snapshots report w(t), half an SSPRK3 step on from w(t-dt/2) with "
           "M(t). One torque evaluation per step; global order 2 in q and 3 "
           "in w for a body-fixed torque. q is a product of unit quaternions: "
           "never normalised.",
    .leapfrog = 1,
    .normalise = 0,
    .torque_evaluations = 1,
    .start = spiral_lf_start,
    .before_force = spiral_lf_step,
    .after_force = NULL,
    .sync = spiral_lf_sync,
    .step_fn = NULL,
    .block = &lf_block,
};
