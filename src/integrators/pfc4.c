/* PFC4 / MercuryDPM clump rotation update (del Valle et al., App. B.7). */
#include "integrators/rot_common.h"

enum { PFC4_ITERATIONS = 3 };

static void pfc4_start(struct dem_rot_state *s, const double inertia[3],
                       const double torque_lab[3], double dt) {
  (void)s;
  (void)inertia;
  (void)torque_lab;
  (void)dt;
}

/* Eq. B.16: w_{n+1} = w_0 + dt J^-1 (M - w_n x J w_n), three iterations
 * with J = J(q(t)); Eqs. B.17-B.18 mapped to q(t+dt) = q(t) + dt/2
 * (0, w_lab(t+dt)) q(t). */
static DEM_ALWAYS_INLINE void pfc4_step(struct dem_rot_state *s,
                                        const double inertia[3],
                                        const double torque_lab[3], double dt) {
  double R[9], w0[3], w[3], L[3], c[3], d[3], p[4], u[4];
  rot_unit(u, s->q); /* frame changes with the unit q, also if the caller
                        normalises only every N steps */
  q_to_matrix(R, u);
  rot_mv(w0, R, s->w); /* w_lab(t) */
  v3_copy(w, w0);
  for (int k = 0; k < PFC4_ITERATIONS; k++) {
    rot_J(L, R, inertia, w);
    v3_cross(c, w, L);
    v3_sub(c, torque_lab, c);
    rot_Jinv(d, R, inertia, c);
    v3_copy(w, w0);
    v3_axpy(w, dt, d);
  }
  q_set(p, 0.0, 0.5 * w[0], 0.5 * w[1], 0.5 * w[2]);
  q_mul(p, p, s->q); /* qdot = (0, w_lab) q / 2 */
  rot_q_axpy(s->q, dt, p);
  rot_unit(u, s->q);
  q_rotate_inv(s->w, u, w);
}

static void pfc4_sync(const struct dem_rot_state *s, const double inertia[3],
                      const double torque_lab[3], double dt, double w_out[3]) {
  (void)inertia;
  (void)torque_lab;
  (void)dt;
  v3_copy(w_out, s->w);
}

DEM_ROT_BLOCK_PLAIN(pfc4_step_block, pfc4_step, 0);
static const struct dem_rot_block_kernels pfc4_block = {
    .before_force = pfc4_step_block,
};

const struct dem_rotation_integrator dem_rot_pfc4 = {
    .name = "pfc4",
    .doc = "PFC4 / MercuryDPM clumps (Itasca, PFC3D 4.0 manual, 2008; "
           "Ostanin, Angelidakis, Plath, Pourandi, Thornton & Weinhart, "
           "Comput. Phys. Commun. 296 (2024) 109034; del Valle, Angelidakis, "
           "Roy, Muñoz & Pöschel, Comput. Phys. Commun. 297 (2024) 109077, "
           "Eqs. B.16-B.18), lab frame. w_lab is iterated three times, "
           "w_(n+1) = w_0 + dt J^-1 (M_lab - w_n x J w_n) with J = J(q(t)) "
           "(fixed-point iterations towards backward Euler), then the "
           "orientation takes an explicit Euler step with the new w_lab: the "
           "rotation-matrix update A(t+dt) = A + dt [w]x A written for the "
           "quaternion, q(t+dt) = q(t) + dt (0, w_lab(t+dt)) q(t)/2. One "
           "stage, one torque evaluation; global order 1. Normalised every "
           "step by default.",
    .leapfrog = 0,
    .normalise = 1,
    .torque_evaluations = 1,
    .start = pfc4_start,
    .before_force = pfc4_step,
    .after_force = NULL,
    .sync = pfc4_sync,
    .step_fn = NULL,
    .block = &pfc4_block,
};
