/* Quaternion algebra on double[4] = (w, x, y, z); q rotates body -> lab. */
#ifndef DEM_QUAT_H
#define DEM_QUAT_H

#include "vec3.h"

static inline void q_set(double q[4], double w, double x, double y, double z) {
  q[0] = w;
  q[1] = x;
  q[2] = y;
  q[3] = z;
}
static inline void q_copy(double r[4], const double a[4]) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
  r[3] = a[3];
}
/* r = a * b (Hamilton product); r may alias a or b. */
static inline void q_mul(double r[4], const double a[4], const double b[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  r[0] = w;
  r[1] = x;
  r[2] = y;
  r[3] = z;
}
static inline void q_conj(double r[4], const double a[4]) {
  r[0] = a[0];
  r[1] = -a[1];
  r[2] = -a[2];
  r[3] = -a[3];
}
static inline double q_norm(const double a[4]) {
  return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
}
static inline void q_normalize(double a[4]) {
  double n = q_norm(a);
  a[0] /= n;
  a[1] /= n;
  a[2] /= n;
  a[3] /= n;
}
/* r = q v q* : body-frame vector to lab frame (q need not be unit-checked,
 * but must be unit for a pure rotation). r may alias v. */
static inline void q_rotate(double r[3], const double q[4], const double v[3]) {
  /* t = 2 (qv x v); r = v + w t + qv x t */
  const double *u = q + 1;
  double t[3], c[3];
  v3_cross(t, u, v);
  v3_scale(t, t, 2.0);
  v3_cross(c, u, t);
  r[0] = v[0] + q[0] * t[0] + c[0];
  r[1] = v[1] + q[0] * t[1] + c[1];
  r[2] = v[2] + q[0] * t[2] + c[2];
}
/* r = q* v q : lab-frame vector to body frame. r may alias v. */
static inline void q_rotate_inv(double r[3], const double q[4],
                                const double v[3]) {
  double c[4];
  q_conj(c, q);
  q_rotate(r, c, v);
}
/* Unit quaternion from a rotation axis (need not be unit) and angle. */
static inline void q_from_axis_angle(double q[4], const double axis[3],
                                     double angle) {
  double n = v3_norm(axis);
  double s = n > 0 ? sin(0.5 * angle) / n : 0.0;
  q[0] = cos(0.5 * angle);
  q[1] = axis[0] * s;
  q[2] = axis[1] * s;
  q[3] = axis[2] * s;
}
/* Rotation matrix R (row-major, lab = R body) of a unit quaternion. */
static inline void q_to_matrix(double R[9], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}

#endif
