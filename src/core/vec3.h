/* Small 3-vector helpers on double[3] (static inline, no dependencies). */
#ifndef DEM_VEC3_H
#define DEM_VEC3_H

#include <math.h>

static inline void v3_set(double r[3], double x, double y, double z) {
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline void v3_copy(double r[3], const double a[3]) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}
static inline void v3_add(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}
static inline void v3_sub(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}
static inline void v3_scale(double r[3], const double a[3], double s) {
  r[0] = a[0] * s;
  r[1] = a[1] * s;
  r[2] = a[2] * s;
}
/* r += s * a */
static inline void v3_axpy(double r[3], double s, const double a[3]) {
  r[0] += s * a[0];
  r[1] += s * a[1];
  r[2] += s * a[2];
}
static inline double v3_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline double v3_norm(const double a[3]) { return sqrt(v3_dot(a, a)); }
static inline void v3_cross(double r[3], const double a[3], const double b[3]) {
  double x = a[1] * b[2] - a[2] * b[1];
  double y = a[2] * b[0] - a[0] * b[2];
  double z = a[0] * b[1] - a[1] * b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}

#endif
