/* Fincham's leapfrog with angular momentum (del Valle, App. B.3; Yade). */
#include "integrators/rot_common.h"

/* aux[0..2]: lab-frame angular momentum L(t - dt/2). */
enum { L0 = 0 };

static DEM_ALWAYS_INLINE void body_w(double w[3], const double R[9],
                                     const double inertia[3],
                                     const double L[3]) {
  rot_mtv(w, R, L);
  w[0] /= inertia[0];
  w[1] /= inertia[1];
  w[2] /= inertia[2];
}

/* L(t0) = R(q0) I w0; L(t0 - dt/2) = L(t0) - dt/2 M_lab(t0). */
static void fincham_start(struct dem_rot_state *s, const double inertia[3],
                          const double torque_lab[3], double dt) {
  double R[9], Lb[3], u[4], *L = s->aux + L0;
  rot_unit(u, s->q);
  q_to_matrix(R, u);
  v3_set(Lb, inertia[0] * s->w[0], inertia[1] * s->w[1], inertia[2] * s->w[2]);
  rot_mv(L, R, Lb);
  v3_axpy(L, -0.5 * dt, torque_lab);
  body_w(s->w, R, inertia, L);
}

/* Eqs. B.4-B.6 with Yade's reading: A = A(q(t)) for both w(t) and
 * w(t+dt/2); the corrector uses w(t+dt/2). */
static DEM_ALWAYS_INLINE void fincham_step(struct dem_rot_state *s,
                                           const double inertia[3],
                                           const double torque_lab[3],
                                           double dt) {
  double R[9], Lt[3], wt[3], qa[4], qd[4], u[4], *L = s->aux + L0;
  rot_unit(u, s->q); /* A from the unit q, also between normalisations */
  q_to_matrix(R, u);
  v3_copy(Lt, L);
  v3_axpy(Lt, 0.5 * dt, torque_lab); /* L(t) */
  body_w(wt, R, inertia, Lt);        /* w(t) */
  rot_qdot(qd, s->q, wt);
  q_copy(qa, s->q);
  rot_q_axpy(qa, 0.5 * dt, qd); /* q(t + dt/2) predicted */
  v3_axpy(L, dt, torque_lab);   /* L(t + dt/2), Eq. B.4 */
  body_w(s->w, R, inertia, L);  /* w(t + dt/2), Eq. B.6 */
  rot_qdot(qd, qa, s->w);
  rot_q_axpy(s->q, dt, qd); /* q(t + dt), Eq. B.5 */
}

/* w(t) = A(q(t)) (L(t - dt/2) + dt/2 M_lab(t)) / I, Eq. B.6 first line. */
static DEM_ALWAYS_INLINE void fincham_sync(const struct dem_rot_state *s,
                                           const double inertia[3],
                                           const double torque_lab[3],
                                           double dt, double w_out[3]) {
  double R[9], Lt[3], u[4];
  rot_unit(u, s->q);
  q_to_matrix(R, u);
  v3_copy(Lt, s->aux + L0);
  v3_axpy(Lt, 0.5 * dt, torque_lab);
  body_w(w_out, R, inertia, Lt);
}

DEM_ROT_BLOCK_PLAIN(fincham_step_block, fincham_step, 3);
DEM_ROT_BLOCK_SYNC(fincham_sync_block, fincham_sync, 3);
static const struct dem_rot_block_kernels fincham_block = {
    .before_force = fincham_step_block,
    .sync = fincham_sync_block,
};

const struct dem_rotation_integrator dem_rot_fincham = {
    .name = "fincham",
    .doc = "Fincham's leapfrog (D. Fincham, Mol. Simul. 8 (1992) 165; del "
           "Valle, Angelidakis, Roy, Muñoz & Pöschel, Comput. Phys. Commun. "
           "297 (2024) 109077, Eqs. B.4-B.6; used by Yade, ESyS-Particle, "
           "WooDEM). Integrates the lab-frame angular momentum at half steps: "
           "L(t+dt/2) = L(t-dt/2) + dt M_lab(t). With A = A(q(t)) (lab to "
           "body): w(t) = A(L(t-dt/2) + dt/2 M_lab)/I, q_a = q + dt/2 qdot[q, "
           "w(t)], w(t+dt/2) = A L(t+dt/2)/I, q(t+dt) = q + dt qdot[q_a, "
           "w(t+dt/2)] (Yade's reading of Eq. B.5). Before the first step "
           "L(t0-dt/2) = L(t0) - dt/2 M_lab(t0); energies and snapshots "
           "report Fincham's own w(t) = A(L(t-dt/2) + dt/2 M_lab(t))/I. Keeps "
           "L per body (restarts store it). Global order 1 (the half-step L "
           "is rotated with A(t), not A(t+dt/2)). Normalised every step by "
           "default.",
    .leapfrog = 1,
    .normalise = 1,
    .torque_evaluations = 1,
    .aux_size = 3,
    .start = fincham_start,
    .before_force = fincham_step,
    .after_force = NULL,
    .sync = fincham_sync,
    .step_fn = NULL,
    .block = &fincham_block,
};
