/* Johnson, Williams and Cook (2008) quaternion RK4 update (del Valle, B.6). */
#include "integrators/rot_common.h"

/* aux[0..2]: lab-frame angular momentum L(t). */
enum { L0 = 0 };

static void johnson_start(struct dem_rot_state *s, const double inertia[3],
                          const double torque_lab[3], double dt) {
  double Lb[3];
  (void)torque_lab;
  (void)dt;
  v3_set(Lb, inertia[0] * s->w[0], inertia[1] * s->w[1], inertia[2] * s->w[2]);
  q_rotate(s->aux + L0, s->q, Lb);
}

/* RK4 of qdot = q (0, w(t))/2 with w(t) frozen (Eqs. B.13-B.14), then
 * L(t+dt) = L(t) + dt M_lab(t) (Eq. B.15) and w = A(q(t+dt)) L / I. */
static DEM_ALWAYS_INLINE void johnson_step(struct dem_rot_state *s,
                                           const double inertia[3],
                                           const double torque_lab[3],
                                           double dt) {
  double k1[4], k2[4], k3[4], k4[4], y[4], u[4], *L = s->aux + L0;
  const double *w = s->w; /* w(t) = A(q(t)) L(t) / I, kept by every step */
  rot_qdot(k1, s->q, w);
  q_copy(y, s->q);
  rot_q_axpy(y, 0.5 * dt, k1);
  rot_qdot(k2, y, w);
  q_copy(y, s->q);
  rot_q_axpy(y, 0.5 * dt, k2);
  rot_qdot(k3, y, w);
  q_copy(y, s->q);
  rot_q_axpy(y, dt, k3);
  rot_qdot(k4, y, w);
  for (int i = 0; i < 4; i++)
    s->q[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  v3_axpy(L, dt, torque_lab);
  rot_unit(u, s->q);
  q_rotate_inv(s->w, u, L);
  s->w[0] /= inertia[0];
  s->w[1] /= inertia[1];
  s->w[2] /= inertia[2];
}

static void johnson_sync(const struct dem_rot_state *s, const double inertia[3],
                         const double torque_lab[3], double dt,
                         double w_out[3]) {
  (void)inertia;
  (void)torque_lab;
  (void)dt;
  v3_copy(w_out, s->w);
}

DEM_ROT_BLOCK_PLAIN(johnson_step_block, johnson_step, 3);
static const struct dem_rot_block_kernels johnson_block = {
    .before_force = johnson_step_block,
};

const struct dem_rotation_integrator dem_rot_johnson = {
    .name = "johnson",
    .doc = "Johnson, Williams & Cook (S. M. Johnson, J. R. Williams, B. K. "
           "Cook, Int. J. Numer. Meth. Eng. 74 (2008) 1303; del Valle, "
           "Angelidakis, Roy, Muñoz & Pöschel, Comput. Phys. Commun. 297 "
           "(2024) 109077, Eqs. B.13-B.15; used by PFC7): RK4 of qdot = q (0, "
           "w(t))/2 with the body angular velocity frozen at w(t) = A(q(t)) "
           "L(t)/I, then L(t+dt) = L(t) + dt M_lab(t) (the single-evaluation "
           "form the paper benchmarks, not Johnson's predictor-corrector). "
           "Keeps the lab angular momentum L per body (restarts store it). "
           "One stage, one torque evaluation; the frozen w makes it globally "
           "first order, and with contacts the energy grows "
           "(examples/box_rods.yaml, 2 s: +62 %). Normalised every step by "
           "default.",
    .leapfrog = 0,
    .normalise = 1,
    .torque_evaluations = 1,
    .aux_size = 3,
    .start = johnson_start,
    .before_force = johnson_step,
    .after_force = NULL,
    .sync = johnson_sync,
    .step_fn = NULL,
    .block = &johnson_block,
};
