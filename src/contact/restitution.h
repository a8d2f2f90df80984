/* The damping that gives a coefficient of restitution, for Hertz contacts
 * with Tsuji's damping. */
#ifndef DEM_RESTITUTION_H
#define DEM_RESTITUTION_H

/* For the head-on collision m d'' = -max(0, k d^(3/2) + c d^(1/4) d'),
 * the coefficient of restitution depends on beta = c / sqrt(m k) alone
 * (not on the impact speed). This returns the beta that gives `e`
 * (0 < e <= 1), by integrating the collision (in units where m = k = 1
 * and the impact speed is 1) and bisecting on beta; NAN if e is out of
 * range. Accurate to about 1e-6 in e. */
double dem_restitution_beta(double e);

/* The restitution of one collision with damping constant beta (the
 * integration dem_restitution_beta inverts). */
double dem_restitution_of_beta(double beta);

#endif
