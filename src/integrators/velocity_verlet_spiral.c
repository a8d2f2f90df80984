/* SPIRAL in a velocity Verlet pipeline (jaxdem VelocityVerletSpiral). */
#include "integrators/rot_common.h"

static void vvs_start(struct dem_rot_state *s, const double inertia[3],
                      const double torque_lab[3], double dt) {
  (void)s;
  (void)inertia;
  (void)torque_lab;
  (void)dt;
}

/* w(t+dt/2) = w(t) + SSPRK3 over dt/2 with M(t);
 * q(t+dt) = q(t) exp(dt/2 w(t+dt/2)). */
static DEM_ALWAYS_INLINE int vvs_before_in(struct dem_rot_state *s,
                                           const double inertia[3],
                                           const double torque_lab[3],
                                           double dt, enum dem_rot_mode mode) {
  double M[3], v[3];
  q_rotate_inv(M, s->q, torque_lab);
  rot_ssprk3(s->w, inertia, M, 0.5 * dt);
  v3_scale(v, s->w, 0.5 * dt);
  return rot_q_mul_exp_in(s->q, v, mode);
}
static void vvs_before(struct dem_rot_state *s, const double inertia[3],
                       const double torque_lab[3], double dt) {
  vvs_before_in(s, inertia, torque_lab, dt, DEM_ROT_BODY);
}

/* w(t+dt) = w(t+dt/2) + SSPRK3 over dt/2 with M(t+dt), rotated by q(t+dt). */
static DEM_ALWAYS_INLINE void vvs_after(struct dem_rot_state *s,
                                        const double inertia[3],
                                        const double torque_lab[3], double dt) {
  double M[3];
  q_rotate_inv(M, s->q, torque_lab);
  rot_ssprk3(s->w, inertia, M, 0.5 * dt);
}

static void vvs_sync(const struct dem_rot_state *s, const double inertia[3],
                     const double torque_lab[3], double dt, double w_out[3]) {
  (void)inertia;
  (void)torque_lab;
  (void)dt;
  v3_copy(w_out, s->w);
}

DEM_ROT_BLOCK_STEP(vvs_before_block, vvs_before_in, 0);
DEM_ROT_BLOCK_PLAIN(vvs_after_block, vvs_after, 0);
static const struct dem_rot_block_kernels vvs_block = {
    .before_force = vvs_before_block,
    .after_force = vvs_after_block,
};

const struct dem_rotation_integrator dem_rot_velocity_verlet_spiral = {
    .name = "velocity_verlet_spiral",
    .doc = "SPIRAL in velocity Verlet form (jaxdem's VelocityVerletSpiral, "
           "after del Valle, Angelidakis, Roy, Muñoz & Pöschel, Comput. Phys. "
           "Commun. 297 (2024) 109077), two stages. Before the forces: "
           "w(t+dt/2) = w(t) + SSPRK3 over dt/2 with M(t), then q(t+dt) = "
           "q(t) exp(dt/2 w(t+dt/2)) (Eq. 7). After the forces: w(t+dt) = "
           "w(t+dt/2) + SSPRK3 over dt/2 with M(t+dt) (the new lab torque "
           "rotated by q(t+dt)). w lives at whole steps. One torque "
           "evaluation per step; global order 2 in q, 3 in w for a body-fixed "
           "torque. Never normalised.",
    .leapfrog = 0,
    .normalise = 0,
    .torque_evaluations = 1,
    .start = vvs_start,
    .before_force = vvs_before,
    .after_force = vvs_after,
    .sync = vvs_sync,
    .step_fn = NULL,
    .block = &vvs_block,
};
