/* The driven cylinder of del Valle et al. (Sec. 3): analytic w, reference q. */
#include "integrators/cylinder_analytic.h"

#include <math.h>

#include "integrators/rot_common.h"

const double dem_cylinder_inertia[3] = {0.0114, 0.0228, 0.0228};
const double dem_cylinder_w0[3] = {0.3, -0.9, 0.6};
const double dem_cylinder_torque[3] = {0.5, 0.0, 0.0};

void dem_cylinder_w(double t, double w[3]) {
  const double Ix = dem_cylinder_inertia[0], Iy = dem_cylinder_inertia[1];
  const double Iz = dem_cylinder_inertia[2], Mx = dem_cylinder_torque[0];
  const double wx0 = dem_cylinder_w0[0], wy0 = dem_cylinder_w0[1];
  const double wz0 = dem_cylinder_w0[2];
  /* Eq. 12 */
  const double B = (Ix - Iy) * (Iz - Ix) / (Iz * Iy);
  const double Om = sqrt(-(Ix / (2.0 * Mx)) * (Ix / (2.0 * Mx)) * B);
  const double eta = Iy / (Iz - Ix) * 2.0 * Mx / Ix;
  const double p0 = Om * wx0 * wx0;
  const double k1 = wy0 * cos(p0) - wz0 / (Om * eta) * sin(p0);
  const double k2 = wy0 * sin(p0) + wz0 / (Om * eta) * cos(p0);
  /* Eq. 11 */
  const double wx = wx0 + Mx / Ix * t;
  const double p = Om * wx * wx;
  w[0] = wx;
  w[1] = k1 * cos(p) + k2 * sin(p);
  w[2] = eta * Om * (k2 * cos(p) - k1 * sin(p));
}

static void qdot(double qd[4], const double q[4], const double w[3]) {
  double p[4] = {0.0, 0.5 * w[0], 0.5 * w[1], 0.5 * w[2]};
  q_mul(qd, q, p);
}

void dem_cylinder_q_step(double q[4], double t, double h) {
  double w0[3], wm[3], w1[3], k1[4], k2[4], k3[4], k4[4], y[4];
  dem_cylinder_w(t, w0);
  dem_cylinder_w(t + 0.5 * h, wm);
  dem_cylinder_w(t + h, w1);
  qdot(k1, q, w0);
  for (int i = 0; i < 4; i++)
    y[i] = q[i] + 0.5 * h * k1[i];
  qdot(k2, y, wm);
  for (int i = 0; i < 4; i++)
    y[i] = q[i] + 0.5 * h * k2[i];
  qdot(k3, y, wm);
  for (int i = 0; i < 4; i++)
    y[i] = q[i] + h * k3[i];
  qdot(k4, y, w1);
  for (int i = 0; i < 4; i++)
    q[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  q_normalize(q);
}

void dem_cylinder_q_step_magnus4(double q[4], double t, double h) {
  const double r3 = sqrt(3.0);
  double a1[3], a2[3], x[3], v[3];
  dem_cylinder_w(t + (0.5 - r3 / 6.0) * h, a1);
  dem_cylinder_w(t + (0.5 + r3 / 6.0) * h, a2);
  v3_scale(a1, a1, 0.5);
  v3_scale(a2, a2, 0.5);
  v3_cross(x, a1, a2);
  for (int i = 0; i < 3; i++)
    v[i] = 0.5 * h * (a1[i] + a2[i]) + r3 / 6.0 * h * h * x[i];
  rot_q_mul_exp(q, v);
}

/* q(t) from q(0) = 1 by equal steps of `step`, no longer than h_max. */
static void integrate_q(void (*step)(double q[4], double t, double h), double t,
                        double h_max, double q[4]) {
  long n = (long)ceil(t / h_max);
  if (n < 1)
    n = 1;
  double h = t / (double)n;
  q_set(q, 1.0, 0.0, 0.0, 0.0);
  for (long i = 0; i < n; i++)
    step(q, (double)i * h, h);
}

void dem_cylinder_q_magnus4(double t, double h_max, double q[4]) {
  integrate_q(dem_cylinder_q_step_magnus4, t, h_max, q);
}

void dem_cylinder_q(double t, double h_max, double q[4]) {
  integrate_q(dem_cylinder_q_step, t, h_max, q);
}

double dem_rel_l1(const double *v, const double *ref, int n) {
  double num = 0.0, den = 0.0;
  for (int i = 0; i < n; i++) {
    num += fabs(v[i] - ref[i]);
    den += fabs(ref[i]);
  }
  return num / den;
}

void dem_cylinder_torque_fn(void *ctx, double t, const double q[4],
                            const double w[3], double torque_lab[3]) {
  (void)ctx;
  (void)t;
  (void)w;
  /* A body-frame load turns with the body's unit quaternion: q itself is
   * not one for schemes that do not normalise it every step. */
  double u[4];
  q_copy(u, q);
  q_normalize(u);
  q_rotate(torque_lab, u, dem_cylinder_torque);
}
