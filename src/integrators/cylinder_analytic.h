/* The driven cylinder of del Valle et al. (Sec. 3): analytic w, reference q. */
#ifndef DEM_CYLINDER_ANALYTIC_H
#define DEM_CYLINDER_ANALYTIC_H

/* The paper's parameters: steel cylinder r = 5 cm, h = 15 cm. */
extern const double dem_cylinder_inertia[3]; /* (0.0114, 0.0228, 0.0228) */
extern const double dem_cylinder_w0[3];      /* (0.3, -0.9, 0.6) rad/s, body */
extern const double dem_cylinder_torque[3];  /* (0.5, 0, 0) N m, body frame */

/* The cylinder's load as a torque function (dem_torque_fn): the body-frame
 * torque rotated to the lab with the current q. */
void dem_cylinder_torque_fn(void *ctx, double t, const double q[4],
                            const double w[3], double torque_lab[3]);

/* Analytic body angular velocity at time t, Eqs. 11-12 (q0 = 1, t0 = 0). */
void dem_cylinder_w(double t, double w[3]);

/* One RK4 step of qdot = q (0, w(t))/2 with the analytic w, from t to
 * t + h; q is normalised afterwards. */
void dem_cylinder_q_step(double q[4], double t, double h);

/* One step of the fourth-order Magnus method with the exact exponential:
 * q <- q exp(v), v = h/2 (a1 + a2) + sqrt(3)/6 h^2 (a1 x a2), a = w/2 at
 * the Gauss points t + (1/2 -+ sqrt(3)/6) h. Norm-preserving; the fast
 * spin about x (877 rad/s at 20 s) costs it no accuracy. */
void dem_cylinder_q_step_magnus4(double q[4], double t, double h);

/* Reference orientation q'(t) from q(0) = 1 by RK4 steps no longer than
 * h_max (1e-5 gives q' to ~1e-13 at t = 1 s). */
void dem_cylinder_q(double t, double h_max, double q[4]);

/* The same by Magnus-4 steps (1e-5 gives ~1e-14 at 1 s, ~1e-12 at 20 s). */
void dem_cylinder_q_magnus4(double t, double h_max, double q[4]);

/* The paper's error metric, Eq. 13: sum |v_i - r_i| / sum |r_i|. */
double dem_rel_l1(const double *v, const double *ref, int n);

#endif
