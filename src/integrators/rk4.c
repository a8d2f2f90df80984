/* Classical Runge-Kutta 4 on (q, w), four torque evaluations: a reference. */
#include "integrators/rot_common.h"

/* Derivatives at (q, w) with the body torque M. */
static void rk4_deriv(double qd[4], double wd[3], const double q[4],
                      const double w[3], const double inertia[3],
                      const double M[3]) {
  rot_qdot(qd, q, w);
  rot_wdot(wd, inertia, w, M);
}

/* Body torque at a stage: the load evaluated at (t, unit q, w). */
static void rk4_torque(double M[3], const double q[4], const double w[3],
                       double t, dem_torque_fn torque, void *ctx) {
  double u[4], tl[3];
  rot_unit(u, q);
  torque(ctx, t, u, w, tl);
  q_rotate_inv(M, u, tl);
}

/* One RK4 step; the torque is either a function (fn != NULL) or the fixed
 * body torque Mfix. */
static void rk4_advance(struct dem_rot_state *s, const double inertia[3],
                        double t, double dt, dem_torque_fn fn, void *ctx,
                        const double Mfix[3]) {
  double kq[4][4], kw[4][3], q[4], w[3], M[3];
  static const double c[4] = {0.0, 0.5, 0.5, 1.0};
  for (int k = 0; k < 4; k++) {
    q_copy(q, s->q);
    v3_copy(w, s->w);
    if (k > 0) {
      rot_q_axpy(q, c[k] * dt, kq[k - 1]);
      v3_axpy(w, c[k] * dt, kw[k - 1]);
    }
    if (fn)
      rk4_torque(M, q, w, t + c[k] * dt, fn, ctx);
    else
      v3_copy(M, Mfix);
    rk4_deriv(kq[k], kw[k], q, w, inertia, M);
  }
  for (int i = 0; i < 4; i++)
    s->q[i] +=
        dt / 6.0 * (kq[0][i] + 2.0 * kq[1][i] + 2.0 * kq[2][i] + kq[3][i]);
  for (int i = 0; i < 3; i++)
    s->w[i] +=
        dt / 6.0 * (kw[0][i] + 2.0 * kw[1][i] + 2.0 * kw[2][i] + kw[3][i]);
}

static void rk4_start(struct dem_rot_state *s, const double inertia[3],
                      const double torque_lab[3], double dt) {
  (void)s;
  (void)inertia;
  (void)torque_lab;
  (void)dt;
}

/* Fallback with only the torque at t: the body torque M(t) = q(t)* tau q(t)
 * is held fixed over the step (as SPIRAL holds it). */
static void rk4_before(struct dem_rot_state *s, const double inertia[3],
                       const double torque_lab[3], double dt) {
  double M[3], u[4];
  rot_unit(u, s->q);
  q_rotate_inv(M, u, torque_lab);
  rk4_advance(s, inertia, 0.0, dt, NULL, NULL, M);
}

static void rk4_step_fn(struct dem_rot_state *s, const double inertia[3],
                        double t, double dt, dem_torque_fn torque, void *ctx) {
  rk4_advance(s, inertia, t, dt, torque, ctx, NULL);
}

static void rk4_sync(const struct dem_rot_state *s, const double inertia[3],
                     const double torque_lab[3], double dt, double w_out[3]) {
  (void)inertia;
  (void)torque_lab;
  (void)dt;
  v3_copy(w_out, s->w);
}

const struct dem_rotation_integrator dem_rot_rk4 = {
    .name = "rk4",
    .doc = "Classical Runge-Kutta 4 on y = (q, w), qdot = q (0, w)/2 and "
           "Euler's equations, body frame. The config's prescribed loads are "
           "evaluated at t, t+dt/2 (twice) and t+dt with the stage "
           "orientation q/|q|: four torque evaluations, global order 4; the "
           "reference for single bodies under prescribed torques. Contact "
           "torques are held at their value at t over the step (the body "
           "torque M(t), body frame): order 4 for body-fixed loads, 1 "
           "otherwise, and with contacts the energy grows as with spiral "
           "(examples/box_rods.yaml, 2 s: +20.0 %). Not norm-preserving: "
           "normalised every step by default.",
    .leapfrog = 0,
    .normalise = 1,
    .torque_evaluations = 4,
    .start = rk4_start,
    .before_force = rk4_before,
    .after_force = NULL,
    .sync = rk4_sync,
    .step_fn = rk4_step_fn,
};
