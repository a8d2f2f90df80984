/* The hertz_mindlin contact model against theory: restitution at any
 * impact speed, impulse theory in gross sliding, rolling resistance, and
 * the energy balance (total + dissipated constant). */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/restitution.h"
#include "core/quat.h"
#include "run/observe.h"
#include "sim_fixture.h"

static const double PI = 3.14159265358979323846;

/* A sphere of radius R, material `mat` (YAML of the material), alone in a
 * big box whose floor z = 0 has material `wall`; starting at `pos` with
 * velocity `vel` and lab angular velocity `w`. */
static char *one_sphere(double dt, double t_end, double R, const char *mat,
                        const char *wall, const double pos[3],
                        const double vel[3], const double w[3],
                        double gravity) {
  char *y = malloc(4096);
  snprintf(y, 4096,
           "simulation: {time_step: %.17g, end_time: %.17g, seed: 1, "
           "gravity: [0, 0, %.17g]}\n"
           "materials: {ball: %s, wall: %s}\n"
           "shapes: {s: {material: ball, spheres: [{center: [0, 0, 0], "
           "radius: %.17g}]}}\n"
           "particles: [{body: {shape: s, position: [%.17g, %.17g, %.17g], "
           "velocity: [%.17g, %.17g, %.17g], angular_velocity: [%.17g, "
           "%.17g, %.17g]}}]\n"
           "domain: {box: {min: [-10, -10, 0], max: [10, 10, 10]}, "
           "wall_material: wall}\n"
           "contact: {model: hertz_mindlin, skin: %.17g}\n",
           dt, t_end, gravity, mat, wall, R, pos[0], pos[1], pos[2], vel[0],
           vel[1], vel[2], w[0], w[1], w[2], 0.1 * R);
  return y;
}

/* Steps until the sphere has touched the floor and left it again (or
 * max_steps); returns its synchronised velocity and angular velocity
 * (lab) then. */
static void bounce(struct fixture *f, long max_steps, double v[3],
                   double w[3]) {
  struct dem_sim *sim = &f->sim;
  int touched = 0;
  for (long k = 0; k < max_steps; k++) {
    fixture_steps(f, 1);
    int touching =
        sim->wall_contacts.n > 0 && sim->wall_contacts.force[0][2] != 0.0;
    touched |= touching;
    if (touched && !touching)
      break;
  }
  ck_assert_msg(touched, "the sphere never reached the floor");
  double(*vs)[3] = sim->b.v_sync, (*ws)[3] = sim->b.w_sync;
  dem_pipeline_sync(f->pipeline, sim, vs, ws);
  v3_copy(v, vs[0]);
  q_rotate(w, sim->b.q[0], ws[0]); /* w_sync is in the principal frame */
}

/* Duration of a Hertz impact of mass m, radius R on a rigid-ish wall of
 * effective modulus estar at speed v (Johnson). */
static double contact_time(double m, double R, double estar, double v) {
  return 2.868 * pow(m * m / (R * estar * estar * v), 0.2);
}

static const char *steel =
    "{density: 7800, young_modulus: 2.0e11, poisson_ratio: 0.3, "
    "restitution: %g, friction: 0.3}";

/* The restitution solved for is the one a simulated impact shows, from
 * 0.01 to 10 m/s (Tsuji's damping makes it independent of speed). */
START_TEST(restitution_is_what_was_asked_at_every_speed) {
  const double es[] = {0.3, 0.7, 0.98}, speeds[] = {0.01, 0.1, 1.0, 10.0};
  const double R = 0.01, m = 7800 * 4.0 / 3.0 * PI * R * R * R;
  const double estar = 2.0e11 / (2 * (1 - 0.09));
  for (int a = 0; a < 3; a++) {
    char mat[256];
    snprintf(mat, sizeof mat, steel, es[a]);
    for (int b = 0; b < 4; b++) {
      double v0 = speeds[b], tc = contact_time(m, R, estar, v0);
      double dt = tc / 400;
      double pos[3] = {0, 0, R + 0.5 * v0 * dt}, vel[3] = {0, 0, -v0};
      double zero[3] = {0, 0, 0}, v[3], w[3];
      char *y = one_sphere(dt, 1000 * tc, R, mat, mat, pos, vel, zero, 0);
      struct fixture f;
      fixture_start(&f, y, NULL);
      bounce(&f, 2000, v, w);
      double e = v[2] / v0;
      ck_assert_msg(fabs(e / es[a] - 1) < 0.01,
                    "restitution %g at %g m/s: measured %.6f", es[a], v0, e);
      fixture_end(&f);
      free(y);
    }
  }
}
END_TEST

/* The damping constant found for a restitution, against the perturbation
 * limit of small damping: the energy the dashpot takes along the elastic
 * path, 2 beta (5/4)^(1/2) int_0^1 x^(1/4) (1 - x^(5/2))^(1/2) dx = beta
 * 2 (5/4)^(1/2) 0.6283..., so 1 - e^2 -> 2 x that as beta -> 0. */
START_TEST(restitution_solver_small_damping_limit) {
  const double I = 0.62831853; /* the integral, by quadrature */
  for (double beta = 1e-4; beta < 2e-3; beta *= 3) {
    double e = dem_restitution_of_beta(beta);
    double loss = 4 * beta * sqrt(1.25) * I;
    ck_assert_msg(fabs((1 - e * e) / loss - 1) < 0.01,
                  "beta %g: 1 - e^2 = %g, perturbation theory %g", beta,
                  1 - e * e, loss);
  }
  ck_assert_double_eq_tol(dem_restitution_of_beta(dem_restitution_beta(0.5)),
                          0.5, 1e-6);
  ck_assert_double_eq(dem_restitution_beta(1.0), 0.0);
  ck_assert(isnan(dem_restitution_beta(0.0)));
}
END_TEST

/* Chung & Ooi (Granular Matter 13 (2011) 643), test 4's materials: an
 * alumina sphere (R = 2.55 mm) on an aluminium-alloy wall at 3.9 m/s.
 * In gross sliding the tangential impulse is mu times the normal one
 * throughout: dv_t = -mu dv_n and dw = (5 / 2R) mu dv_n exactly (impulse
 * theory), whatever the restitution. */
START_TEST(oblique_impact_in_gross_sliding_follows_impulse_theory) {
  const double R = 2.55e-3, v0 = 3.9, mu = 0.092;
  const char *alumina = "{density: 4000, young_modulus: 3.8e11, "
                        "poisson_ratio: 0.23, restitution: 0.98, friction: "
                        "0.092}";
  const char *alloy = "{density: 2700, young_modulus: 7.0e10, "
                      "poisson_ratio: 0.33, restitution: 0.98, friction: "
                      "0.092}";
  const double angles[] = {40, 60, 80}; /* from the normal */
  for (int a = 0; a < 3; a++) {
    double th = angles[a] * PI / 180, vn = v0 * cos(th), vt = v0 * sin(th);
    ck_assert_double_gt(vt / vn, 3.5 * mu * 2); /* sliding throughout */
    double dt = 2e-8;
    double pos[3] = {0, 0, R + 0.5 * vn * dt}, vel[3] = {vt, 0, -vn};
    double zero[3] = {0, 0, 0}, v[3], w[3];
    char *y = one_sphere(dt, 1e-3, R, alumina, alloy, pos, vel, zero, 0);
    struct fixture f;
    fixture_start(&f, y, NULL);
    bounce(&f, 100000, v, w);
    double dvn = v[2] + vn, dvt = v[0] - vt;
    ck_assert_msg(fabs(-dvt / (mu * dvn) - 1) < 0.01,
                  "%g deg: dv_t %g, mu dv_n %g", angles[a], dvt, mu * dvn);
    /* The friction on the bottom pushes -x: the sphere spins up about +y
     * (as it would roll along +x). */
    double dw = w[1];
    ck_assert_msg(fabs(dw / (2.5 / R * mu * dvn) - 1) < 0.01,
                  "%g deg: spin %g, impulse theory %g", angles[a], dw,
                  2.5 / R * mu * dvn);
    ck_assert_msg(fabs(v[2] / vn / 0.98 - 1) < 0.01, "normal restitution %g",
                  v[2] / vn);
    fixture_end(&f);
    free(y);
  }
}
END_TEST

/* A sphere rolling on the floor without slipping, with rolling friction
 * mu_r: the torque mu_r R F_n slows it at (5/7) mu_r g. */
START_TEST(rolling_resistance_decelerates_at_five_sevenths_mu_r_g) {
  const double R = 0.01, g = 9.81, mu_r = 0.02, v0 = 0.5;
  const char *mat = "{density: 2500, young_modulus: 1.0e8, poisson_ratio: "
                    "0.25, restitution: 0.5, friction: 0.8, "
                    "rolling_friction: 0.02}";
  /* Just touching the floor; the weight settles it in a few bounces. */
  double pos[3] = {0, 0, R}, vel[3] = {v0, 0, 0}, w[3] = {0, v0 / R, 0};
  char *y = one_sphere(2e-5, 1.0, R, mat, mat, pos, vel, w, -g);
  struct fixture f;
  fixture_start(&f, y, NULL);
  /* Let the rolling spring reach its limit, then fit v(t) over 0.3 s. */
  fixture_steps(&f, 5000);
  double t0 = f.sim.t, x0 = f.sim.b.v[0][0];
  fixture_steps(&f, 15000);
  double a = (f.sim.b.v[0][0] - x0) / (f.sim.t - t0);
  ck_assert_msg(fabs(-a / (5.0 / 7.0 * mu_r * g) - 1) < 0.01,
                "deceleration %g, theory %g", -a, 5.0 / 7.0 * mu_r * g);
  /* Rolling without slipping all along: v = w R. */
  ck_assert_double_eq_tol(f.sim.b.v[0][0], f.sim.b.w[0][1] * R, 1e-3 * v0);
  fixture_end(&f);
  free(y);
}
END_TEST

/* A pile of rods settling with friction, damping and rolling resistance:
 * total + dissipated stays E0 up to the time step's error, which falls at
 * least in proportion to the time step; the same for 1 and 2 threads,
 * bitwise. */
static const char *pile =
    "simulation: {time_step: %g, end_time: 0.25, seed: 3, gravity: [0, 0, "
    "-9.81]}\n"
    "materials:\n"
    "  glass: {density: 2500, young_modulus: 5.0e7, poisson_ratio: 0.25, "
    "restitution: 0.5, friction: 0.5, rolling_friction: 0.05}\n"
    "shapes:\n"
    "  rod: {material: glass, spheres: [{center: [-0.007, 0, 0], radius: "
    "0.005}, {center: [0, 0, 0], radius: 0.005}, {center: [0.007, 0, 0], "
    "radius: 0.005}]}\n"
    "particles: [{random_fill: {shape: rod, count: 120, speed: 0.3, "
    "angular_speed: 3, region: {min: [0, 0, 0], max: [0.08, 0.08, 0.25]}}}]\n"
    "domain: {box: {min: [0, 0, 0], max: [0.08, 0.08, 0.3]}, wall_material: "
    "glass}\n"
    "contact: {model: hertz_mindlin}\n";

/* The largest |E + W - E0| / E0 over the run, and the work dissipated. */
static double balance_error(double dt, double *dissipated, double *x_out,
                            int threads) {
  char y[4096];
  snprintf(y, sizeof y, pile, dt);
  omp_set_num_threads(threads);
  struct fixture f;
  struct dem_observer o;
  struct dem_energy_row row;
  fixture_start(&f, y, NULL);
  ck_assert_int_eq(dem_observer_init(&o, &f.sim), DEM_OK);
  dem_observe_energy(&o, &f.sim, f.pipeline, &row);
  double e0 = row.total, worst = 0;
  long steps = (long)(0.25 / dt + 0.5), every = steps / 100;
  for (long k = 0; k < steps; k += every) {
    fixture_steps(&f, every);
    dem_observe_energy(&o, &f.sim, f.pipeline, &row);
    worst = fmax(worst, fabs(row.total + row.dissipated - e0) / e0);
  }
  *dissipated = row.dissipated / e0;
  if (x_out)
    *x_out = f.sim.b.x[f.sim.b.index_of[7]][2];
  dem_observer_free(&o);
  fixture_end(&f);
  return worst;
}

START_TEST(energy_balance_closes_and_converges) {
  int saved = omp_get_max_threads();
  double w1, w2, x1, x2;
  /* dt = 2e-5 s is a tenth of the Rayleigh step; measured: 6.1e-3,
   * 1.5e-3, 4.1e-4, 1.0e-4 at 8, 4, 2, 1 x 1e-5 s (second order). */
  double b1 = balance_error(2e-5, &w1, &x1, 2);
  double b2 = balance_error(1e-5, &w2, &x2, 1);
  ck_assert_msg(w1 > 0.3, "only %g of E0 dissipated: a weak test", w1);
  ck_assert_msg(b1 < 1e-3, "balance error %g at dt = 2e-5", b1);
  ck_assert_msg(b2 < 0.5 * b1, "balance error %g at dt, %g at dt/2", b1, b2);
  /* The same run on one and two threads, bitwise. */
  double w3, x3;
  balance_error(2e-5, &w3, &x3, 1);
  ck_assert_mem_eq(&w1, &w3, sizeof w1);
  ck_assert_mem_eq(&x1, &x3, sizeof x1);
  omp_set_num_threads(saved);
}
END_TEST

static Suite *friction_suite(void) {
  Suite *s = suite_create("friction");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, restitution_solver_small_damping_limit);
  tcase_add_test(tc, restitution_is_what_was_asked_at_every_speed);
  tcase_add_test(tc, oblique_impact_in_gross_sliding_follows_impulse_theory);
  tcase_add_test(tc, rolling_resistance_decelerates_at_five_sevenths_mu_r_g);
  tcase_add_test(tc, energy_balance_closes_and_converges);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(friction_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
