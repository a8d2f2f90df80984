/* Omelyan's advanced leapfrog, three iterations (del Valle, App. B.5). */
#include "integrators/rot_common.h"

enum { OMELYAN_ITERATIONS = 3 };

/* w1 = w0 + h [M/I + c ((w0w0 + w1w1)/2)] solved by fixed-point iteration
 * from w1 = w0 (Eqs. B.10-B.12): Omelyan's product approximation. */
static DEM_ALWAYS_INLINE void omelyan_kick(double w1[3], const double w0[3],
                                           const double inertia[3],
                                           const double M[3], double h) {
  /* w1_a = b_a + g_a (w1_b w1_c), with the old-time half of the product
   * average and the torque folded into b */
  const double gx = 0.5 * h * (inertia[1] - inertia[2]) / inertia[0];
  const double gy = 0.5 * h * (inertia[2] - inertia[0]) / inertia[1];
  const double gz = 0.5 * h * (inertia[0] - inertia[1]) / inertia[2];
  const double bx = w0[0] + h * M[0] / inertia[0] + gx * w0[1] * w0[2];
  const double by = w0[1] + h * M[1] / inertia[1] + gy * w0[2] * w0[0];
  const double bz = w0[2] + h * M[2] / inertia[2] + gz * w0[0] * w0[1];
  double x = w0[0], y = w0[1], z = w0[2];
  for (int k = 0; k < OMELYAN_ITERATIONS; k++) {
    double nx = bx + gx * y * z;
    double ny = by + gy * z * x;
    double nz = bz + gz * x * y;
    x = nx;
    y = ny;
    z = nz;
  }
  v3_set(w1, x, y, z);
}

/* Half step back with the same iteration and h = -dt/2. */
static void omelyan_start(struct dem_rot_state *s, const double inertia[3],
                          const double torque_lab[3], double dt) {
  double M[3], w0[3];
  q_rotate_inv(M, s->q, torque_lab);
  v3_copy(w0, s->w);
  omelyan_kick(s->w, w0, inertia, M, -0.5 * dt);
}

/* w(t+dt/2) by the iteration with h = dt; then the Cayley update
 * q(t+dt) = q(t) [(1 - a) + dt/2 (0, w)] / (1 + a), a = dt^2 |w|^2 / 16. */
static DEM_ALWAYS_INLINE void omelyan_step(struct dem_rot_state *s,
                                           const double inertia[3],
                                           const double torque_lab[3],
                                           double dt) {
  double M[3], w0[3], c[4];
  q_rotate_inv(M, s->q, torque_lab);
  v3_copy(w0, s->w);
  omelyan_kick(s->w, w0, inertia, M, dt);
  double a = dt * dt * v3_dot(s->w, s->w) / 16.0;
  double inv = 1.0 / (1.0 + a);
  /* c - 1 with c = [(1 - a) + dt/2 (0, w)] / (1 + a), applied as
   * q + q (c - 1) so that rounding does not bias |q| (see rot_expm1). */
  c[0] = -2.0 * a * inv;
  c[1] = 0.5 * dt * s->w[0] * inv;
  c[2] = 0.5 * dt * s->w[1] * inv;
  c[3] = 0.5 * dt * s->w[2] * inv;
  rot_q_add_qd(s->q, c);
}

/* w(t) from w(t-dt/2) by the iteration with h = dt/2 and M(t). */
static DEM_ALWAYS_INLINE void omelyan_sync(const struct dem_rot_state *s,
                                           const double inertia[3],
                                           const double torque_lab[3],
                                           double dt, double w_out[3]) {
  double M[3];
  q_rotate_inv(M, s->q, torque_lab);
  omelyan_kick(w_out, s->w, inertia, M, 0.5 * dt);
}

DEM_ROT_BLOCK_PLAIN(omelyan_step_block, omelyan_step, 0);
DEM_ROT_BLOCK_SYNC(omelyan_sync_block, omelyan_sync, 0);
static const struct dem_rot_block_kernels omelyan_block = {
    .before_force = omelyan_step_block,
    .sync = omelyan_sync_block,
};

const struct dem_rotation_integrator dem_rot_omelyan = {
    .name = "omelyan",
    .doc = "Omelyan's advanced leapfrog (I. P. Omelyan, Phys. Rev. E 58 "
           "(1998) 1169; del Valle, Angelidakis, Roy, Muñoz & Pöschel, "
           "Comput. Phys. Commun. 297 (2024) 109077, Eqs. B.10-B.12), body "
           "frame. w(t+dt/2) = w(t-dt/2) + dt [M(t)/I + c (w w)(t)] with the "
           "products (w_a w_b)(t) replaced by the mean of their values at "
           "t-dt/2 and t+dt/2, solved by 3 fixed-point iterations from "
           "w(t+dt/2) = w(t-dt/2); then the Cayley (norm-preserving) update "
           "q(t+dt) = q(t) [(1 - a) + dt/2 (0, w(t+dt/2))]/(1 + a), a = "
           "dt^2|w(t+dt/2)|^2/16. The half step back before the first step, "
           "and w(t) for energies and snapshots, use the same iteration over "
           "-dt/2 and +dt/2 with M(t). One torque evaluation; global order 2. "
           "Norm-preserving up to round-off, so not normalised by default "
           "(the paper advises occasional normalisation: push_rotation's "
           "normalise_every).",
    .leapfrog = 1,
    .normalise = 0,
    .torque_evaluations = 1,
    .start = omelyan_start,
    .before_force = omelyan_step,
    .after_force = NULL,
    .sync = omelyan_sync,
    .step_fn = NULL,
    .block = &omelyan_block,
};
