/* Restitution of a damped Hertz collision, and its inverse, by integrating
 * the one-dimensional collision once per material pair at setup. */
#include "contact/restitution.h"

#include <math.h>

/* u'' = -max(0, u^(3/2) + beta u^(1/4) u'), with u >= 0. */
static double accel(double u, double v, double beta) {
  if (u <= 0)
    return 0.0;
  double f = u * sqrt(u) + beta * sqrt(sqrt(u)) * v;
  return f > 0 ? -f : 0.0;
}

double dem_restitution_of_beta(double beta) {
  /* Classical RK4 in steps of h; the collision lasts about 3.2 units
   * elastic, longer damped. The speed at u = 0 on the way out is
   * interpolated within the last step (cubic Hermite in u). */
  const double h = 2e-4;
  double u = 0.0, v = 1.0;
  for (long step = 0; step < 50000000; step++) {
    double k1u = v, k1v = accel(u, v, beta);
    double k2u = v + 0.5 * h * k1v,
           k2v = accel(u + 0.5 * h * k1u, v + 0.5 * h * k1v, beta);
    double k3u = v + 0.5 * h * k2v,
           k3v = accel(u + 0.5 * h * k2u, v + 0.5 * h * k2v, beta);
    double k4u = v + h * k3v, k4v = accel(u + h * k3u, v + h * k3v, beta);
    double un = u + h / 6 * (k1u + 2 * k2u + 2 * k3u + k4u);
    double vn = v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    if (un <= 0 && step > 0) {
      /* Where in [0, h] u crosses 0: u(s) ~ u + v s on the way out (the
       * force is small there); the speed then, linearly between v, vn. */
      double s = u / (u - un);
      return -(v + s * (vn - v));
    }
    if (vn >= 0 && v < 0 && un > 0)
      return 0.0; /* comes to rest inside: no rebound */
    u = un;
    v = vn;
  }
  return 0.0;
}

double dem_restitution_beta(double e) {
  if (!(e > 0 && e <= 1))
    return NAN;
  if (e == 1)
    return 0.0;
  double lo = 0.0, hi = 1.0;
  while (dem_restitution_of_beta(hi) > e && hi < 1e6)
    hi *= 2;
  for (int it = 0; it < 60 && hi - lo > 1e-12 * hi; it++) {
    double mid = 0.5 * (lo + hi);
    if (dem_restitution_of_beta(mid) > e)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}
