/* Direct (semi-implicit) Euler rotation update (del Valle et al., App. B.1). */
#include "integrators/rot_common.h"

static void de_start(struct dem_rot_state *s, const double inertia[3],
                     const double torque_lab[3], double dt) {
  (void)s;
  (void)inertia;
  (void)torque_lab;
  (void)dt;
}

/* w(t+dt) = w(t) + dt wdot[w(t), M(t)]; q(t+dt) = q(t) + dt qdot[q(t),
 * w(t+dt)] (Eq. B.1 as written). */
static DEM_ALWAYS_INLINE void de_step(struct dem_rot_state *s,
                                      const double inertia[3],
                                      const double torque_lab[3], double dt) {
  double M[3], wd[3], qd[4];
  q_rotate_inv(M, s->q, torque_lab);
  rot_wdot(wd, inertia, s->w, M);
  v3_axpy(s->w, dt, wd);
  rot_qdot(qd, s->q, s->w);
  rot_q_axpy(s->q, dt, qd);
}

static void de_sync(const struct dem_rot_state *s, const double inertia[3],
                    const double torque_lab[3], double dt, double w_out[3]) {
  (void)inertia;
  (void)torque_lab;
  (void)dt;
  v3_copy(w_out, s->w);
}

DEM_ROT_BLOCK_PLAIN(de_step_block, de_step, 0);
static const struct dem_rot_block_kernels de_block = {
    .before_force = de_step_block,
};

const struct dem_rotation_integrator dem_rot_direct_euler = {
    .name = "direct_euler",
    .doc = "Direct Euler (del Valle, Angelidakis, Roy, Muñoz & Pöschel, "
           "Comput. Phys. Commun. 297 (2024) 109077, Eq. B.1; used by MFiX, "
           "EDEM, MUSEN), body frame: w(t+dt) = w(t) + dt wdot[w(t), M(t)], "
           "then q(t+dt) = q(t) + dt q(t)(0, w(t+dt))/2, with the new w as "
           "Eq. B.1 writes it (semi-implicit Euler). One stage, one torque "
           "evaluation; local error O(dt^2), global order 1. q leaves the "
           "unit sphere: normalised every step by default.",
    .leapfrog = 0,
    .normalise = 1,
    .torque_evaluations = 1,
    .start = de_start,
    .before_force = de_step,
    .after_force = NULL,
    .sync = de_sync,
    .step_fn = NULL,
    .block = &de_block,
};
