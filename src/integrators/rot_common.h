/* Private helpers shared by the rotation schemes (static inline, no state). */
#ifndef DEM_ROT_COMMON_H
#define DEM_ROT_COMMON_H

#include "core/quat.h"
#include "integrators/rot_block.h"
#include "integrators/rotation.h"

/* Euler's equations in the principal frame, Eq. 8 of del Valle et al.:
 * wdot = (M + (I w) x w) / I. wdot may not alias w. */
static inline void rot_wdot(double wdot[3], const double I[3],
                            const double w[3], const double M[3]) {
  wdot[0] = (M[0] + (I[1] - I[2]) * w[1] * w[2]) / I[0];
  wdot[1] = (M[1] + (I[2] - I[0]) * w[2] * w[0]) / I[1];
  wdot[2] = (M[2] + (I[0] - I[1]) * w[0] * w[1]) / I[2];
}

/* Euler's equations with the inverse moments precomputed. */
static inline void rot_wdot_inv(double wdot[3], const double I[3],
                                const double inv[3], const double w[3],
                                const double M[3]) {
  wdot[0] = (M[0] + (I[1] - I[2]) * w[1] * w[2]) * inv[0];
  wdot[1] = (M[1] + (I[2] - I[0]) * w[2] * w[0]) * inv[1];
  wdot[2] = (M[2] + (I[0] - I[1]) * w[0] * w[1]) * inv[2];
}

/* One SSPRK3 step of length h of Euler's equations with the body-frame
 * torque M held fixed (Eqs. 9-10); h may be negative (start) or dt/2. */
static inline void rot_ssprk3(double w[3], const double I[3], const double M[3],
                              double h) {
  const double inv[3] = {h / I[0], h / I[1], h / I[2]};
  double k1[3], k2[3], k3[3], y[3];
  rot_wdot_inv(k1, I, inv, w, M); /* K1 = h wdot(w) */
  v3_add(y, w, k1);
  rot_wdot_inv(k2, I, inv, y, M); /* K2 = h wdot(w + K1) */
  y[0] = w[0] + 0.25 * (k1[0] + k2[0]);
  y[1] = w[1] + 0.25 * (k1[1] + k2[1]);
  y[2] = w[2] + 0.25 * (k1[2] + k2[2]);
  rot_wdot_inv(k3, I, inv, y, M); /* K3 = h wdot(w + (K1 + K2)/4) */
  w[0] += (k1[0] + k2[0] + 4.0 * k3[0]) * (1.0 / 6.0);
  w[1] += (k1[1] + k2[1] + 4.0 * k3[1]) * (1.0 / 6.0);
  w[2] += (k1[2] + k2[2] + 4.0 * k3[2]) * (1.0 / 6.0);
}

/* exp((0, v)) - 1 = (cos|v| - 1, v sin|v| / |v|), with cos|v| - 1 kept
 * accurate for tiny angles. Multiplying q by exp(v) as q + q (exp(v) - 1)
 * rounds only once, at q's scale, so the norm error is an unbiased random
 * walk. (With (cos|v|, ...) itself, cos|v| rounds to 1 for |v| < 1e-8 and
 * every product lengthens q by |v|^2/2: the non-leapfrog SPIRAL's second
 * factor, |v| = dt^2 |wdot| / 4, would drift by ~1e-12 per 1e6 steps.)
 * For |v| < 1e-2, the common case, a series with no sqrt; otherwise sin and
 * cos, which DEM_ROT_LANE leaves out: it returns 0 instead, and the body is
 * done again per body (rot_block.h). */
static inline int rot_expm1_in(double e[4], const double v[3],
                               enum dem_rot_mode mode) {
  double t2 = v3_dot(v, v);
  /* sin(th)/th and cos(th) - 1 to O(th^8); products, not divisions */
  double s = 1.0 - t2 * (1.0 / 6.0) *
                       (1.0 - t2 * (1.0 / 20.0) * (1.0 - t2 * (1.0 / 42.0)));
  double c1 = -0.5 * t2 *
              (1.0 - t2 * (1.0 / 12.0) *
                         (1.0 - t2 * (1.0 / 30.0) * (1.0 - t2 * (1.0 / 56.0))));
  int small = t2 < 1e-4;
  if (!small && mode == DEM_ROT_BODY) {
    double th = sqrt(t2);
    s = sin(th) / th;
    c1 = cos(th) - 1.0;
    small = 1;
  }
  e[0] = c1;
  e[1] = v[0] * s;
  e[2] = v[1] * s;
  e[3] = v[2] * s;
  return small;
}
static inline void rot_expm1(double e[4], const double v[3]) {
  rot_expm1_in(e, v, DEM_ROT_BODY);
}

/* q <- q + q d or q + d q (d = exp(v) - 1, or any unit quaternion - 1). */
static inline void rot_q_add_qd(double q[4], const double d[4]) {
  double p[4];
  q_mul(p, q, d);
  q[0] += p[0];
  q[1] += p[1];
  q[2] += p[2];
  q[3] += p[3];
}
static inline void rot_q_add_dq(double q[4], const double d[4]) {
  double p[4];
  q_mul(p, d, q);
  q[0] += p[0];
  q[1] += p[1];
  q[2] += p[2];
  q[3] += p[3];
}

/* q <- q * exp((0, v)): rotation about a body-frame vector; 0 if a lane
 * must be redone (rot_expm1_in). */
static inline int rot_q_mul_exp_in(double q[4], const double v[3],
                                   enum dem_rot_mode mode) {
  double d[4];
  int ok = rot_expm1_in(d, v, mode);
  rot_q_add_qd(q, d);
  return ok;
}
static inline void rot_q_mul_exp(double q[4], const double v[3]) {
  rot_q_mul_exp_in(q, v, DEM_ROT_BODY);
}

/* q <- exp((0, v)) * q: rotation about a lab-frame vector. */
static inline int rot_exp_mul_q_in(double q[4], const double v[3],
                                   enum dem_rot_mode mode) {
  double d[4];
  int ok = rot_expm1_in(d, v, mode);
  rot_q_add_dq(q, d);
  return ok;
}
static inline void rot_exp_mul_q(double q[4], const double v[3]) {
  rot_exp_mul_q_in(q, v, DEM_ROT_BODY);
}

/* qdot = q (0, w) / 2 with w in the body frame (Eq. 1). */
static inline void rot_qdot(double qd[4], const double q[4],
                            const double w[3]) {
  double p[4] = {0.0, 0.5 * w[0], 0.5 * w[1], 0.5 * w[2]};
  q_mul(qd, q, p);
}

/* q <- q + h qd */
static inline void rot_q_axpy(double q[4], double h, const double qd[4]) {
  q[0] += h * qd[0];
  q[1] += h * qd[1];
  q[2] += h * qd[2];
  q[3] += h * qd[3];
}

/* A unit copy of q, for frame changes with a q not yet normalised. */
static inline void rot_unit(double u[4], const double q[4]) {
  double n = q_norm(q);
  u[0] = q[0] / n;
  u[1] = q[1] / n;
  u[2] = q[2] / n;
  u[3] = q[3] / n;
}

/* r = R v and r = R^T v for a row-major 3x3 R (lab = R body). */
static inline void rot_mv(double r[3], const double R[9], const double v[3]) {
  double x = R[0] * v[0] + R[1] * v[1] + R[2] * v[2];
  double y = R[3] * v[0] + R[4] * v[1] + R[5] * v[2];
  double z = R[6] * v[0] + R[7] * v[1] + R[8] * v[2];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline void rot_mtv(double r[3], const double R[9], const double v[3]) {
  double x = R[0] * v[0] + R[3] * v[1] + R[6] * v[2];
  double y = R[1] * v[0] + R[4] * v[1] + R[7] * v[2];
  double z = R[2] * v[0] + R[5] * v[1] + R[8] * v[2];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}

/* Lab inertia tensor J = R diag(I) R^T and its inverse, applied to v. */
static inline void rot_J(double r[3], const double R[9], const double I[3],
                         const double v[3]) {
  double b[3];
  rot_mtv(b, R, v);
  b[0] *= I[0];
  b[1] *= I[1];
  b[2] *= I[2];
  rot_mv(r, R, b);
}
static inline void rot_Jinv(double r[3], const double R[9], const double I[3],
                            const double v[3]) {
  double b[3];
  rot_mtv(b, R, v);
  b[0] /= I[0];
  b[1] /= I[1];
  b[2] /= I[2];
  rot_mv(r, R, b);
}

#endif
