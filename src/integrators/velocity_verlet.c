/* Velocity Verlet for rotation (del Valle et al., App. B.2; LIGGGHTS, EDEM). */
#include "integrators/rot_common.h"

static void vv_start(struct dem_rot_state *s, const double inertia[3],
                     const double torque_lab[3], double dt) {
  (void)s;
  (void)inertia;
  (void)torque_lab;
  (void)dt;
}

/* w(t+dt/2) = w(t) + dt/2 wdot[w(t), M(t)];
 * q(t+dt) = q(t) + dt qdot[q(t), w(t+dt/2)] (Eq. B.2). */
static DEM_ALWAYS_INLINE void vv_before(struct dem_rot_state *s,
                                        const double inertia[3],
                                        const double torque_lab[3], double dt) {
  double M[3], wd[3], qd[4];
  q_rotate_inv(M, s->q, torque_lab);
  rot_wdot(wd, inertia, s->w, M);
  v3_axpy(s->w, 0.5 * dt, wd);
  rot_qdot(qd, s->q, s->w);
  rot_q_axpy(s->q, dt, qd);
}

/* w(t+dt) = w(t+dt/2) + dt/2 wdot[w(t+dt/2), M(t+dt)] (Eq. B.3). */
static DEM_ALWAYS_INLINE void vv_after(struct dem_rot_state *s,
                                       const double inertia[3],
                                       const double torque_lab[3], double dt) {
  double M[3], wd[3], u[4];
  rot_unit(u, s->q);
  q_rotate_inv(M, u, torque_lab);
  rot_wdot(wd, inertia, s->w, M);
  v3_axpy(s->w, 0.5 * dt, wd);
}

static void vv_sync(const struct dem_rot_state *s, const double inertia[3],
                    const double torque_lab[3], double dt, double w_out[3]) {
  (void)inertia;
  (void)torque_lab;
  (void)dt;
  v3_copy(w_out, s->w);
}

DEM_ROT_BLOCK_PLAIN(vv_before_block, vv_before, 0);
DEM_ROT_BLOCK_PLAIN(vv_after_block, vv_after, 0);
static const struct dem_rot_block_kernels vv_block = {
    .before_force = vv_before_block,
    .after_force = vv_after_block,
};

const struct dem_rotation_integrator dem_rot_velocity_verlet = {
    .name = "velocity_verlet",
    .doc = "Velocity Verlet (del Valle, Angelidakis, Roy, Muñoz & Pöschel, "
           "Comput. Phys. Commun. 297 (2024) 109077, Eqs. B.2-B.3; used by "
           "LIGGGHTS, GranOO, EDEM, MercuryDPM), body frame, two stages. "
           "Before the forces: w(t+dt/2) = w(t) + dt/2 wdot[w(t), M(t)], "
           "q(t+dt) = q(t) + dt q(t)(0, w(t+dt/2))/2 (the 'w(t+dt)' of Eq. "
           "B.2 read as the half-step w, the only one known then). After the "
           "forces: w(t+dt) = w(t+dt/2) + dt/2 wdot[w(t+dt/2), M(t+dt)], "
           "explicit. One torque evaluation per step; the linear quaternion "
           "update makes it globally first order. Normalised every step by "
           "default.",
    .leapfrog = 0,
    .normalise = 1,
    .torque_evaluations = 1,
    .start = vv_start,
    .before_force = vv_before,
    .after_force = vv_after,
    .sync = vv_sync,
    .step_fn = NULL,
    .block = &vv_block,
};
