/* A head-on collision of two spheres of different materials and radii
 * against Hertz theory, with E* from the textbook formula. */
/* Two equal materials cannot tell a right E* mixing from a wrong one (any
 * symmetric formula gives E/(2(1-nu^2))); these two differ in Young's
 * modulus and much more in Poisson's ratio, so using one material's nu, E or
 * (1-nu^2)/E for both moves the contact time by percents. */
#include <math.h>

#include "sim_fixture.h"

static const double pi = 3.14159265358979323846;

/* Sphere 1: R 1 cm, stiff, nu 0.1, moving at +0.7 m/s; sphere 2: R 6 mm,
 * half as stiff, nu 0.45, at -0.3 m/s (relative speed 1 m/s); 0.2 mm apart.
 * The time step is set by the test. */
static const char *pair_yaml =
    "simulation: {time_step: 1.0e-8, end_time: 1.0}\n"
    "materials:\n"
    "  hard: {density: 7800, young_modulus: 2.0e11, poisson_ratio: 0.1}\n"
    "  soft: {density: 2700, young_modulus: 1.0e11, poisson_ratio: 0.45}\n"
    "shapes:\n"
    "  big: {material: hard, spheres: [{center: [0, 0, 0], radius: 0.01}]}\n"
    "  small: {material: soft, spheres: [{center: [0, 0, 0], radius: "
    "0.006}]}\n"
    "particles:\n"
    "  - body: {shape: big, position: [-0.0101, 0, 0], velocity: [0.7, 0, "
    "0]}\n"
    "  - body: {shape: small, position: [0.0061, 0, 0], velocity: [-0.3, 0, "
    "0]}\n"
    "contact: {skin: 0.001}\n";

static const double R1 = 0.01, R2 = 0.006, v1 = 0.7, v2 = -0.3;

static double gap(const struct dem_sim *sim) {
  return sim->b.x[1][0] - sim->b.x[0][0] - (R1 + R2);
}

/* Hertz: m* = m1 m2/(m1+m2), R* = R1 R2/(R1+R2),
 * 1/E* = (1-nu1^2)/E1 + (1-nu2^2)/E2; the largest overlap
 * d = (15 m* v^2 / (16 E* sqrt(R*)))^(2/5) and the contact time
 * 2 d/v int_0^1 dx/sqrt(1 - x^(5/2)) = 2 d/v (2/5) B(2/5, 1/2), i.e.
 * 2.868 (m*^2/(R* E*^2 v))^(1/5). Elastic, so the speeds after are those
 * of a perfectly elastic 1-D collision. */
START_TEST(hertz_collision_of_two_materials) {
  const char *schemes[] = {"scheme=spiral_leapfrog", "scheme=velocity_verlet",
                           NULL};
  const double m1 = 4.0 / 3.0 * pi * R1 * R1 * R1 * 7800;
  const double m2 = 4.0 / 3.0 * pi * R2 * R2 * R2 * 2700;
  const double mstar = m1 * m2 / (m1 + m2), rstar = R1 * R2 / (R1 + R2);
  const double estar =
      1.0 / ((1 - 0.1 * 0.1) / 2.0e11 + (1 - 0.45 * 0.45) / 1.0e11);
  const double v = v1 - v2;
  const double d_max =
      pow(15.0 * mstar * v * v / (16.0 * estar * sqrt(rstar)), 0.4);
  const double tc =
      2.0 * d_max / v * 0.4 * tgamma(0.4) * sqrt(pi) / tgamma(0.9);
  const double u1 = ((m1 - m2) * v1 + 2 * m2 * v2) / (m1 + m2);
  const double u2 = ((m2 - m1) * v2 + 2 * m1 * v1) / (m1 + m2);
  /* the closed form's usual constant, as a check of the integral above */
  ck_assert_double_eq_tol(
      tc / pow(mstar * mstar / (rstar * estar * estar * v), 0.2), 2.868, 1e-3);
  for (int s = 0; schemes[s]; s++) {
    const double dt = tc / 2000;
    char set_dt[64];
    snprintf(set_dt, sizeof set_dt, "simulation.time_step=%.17g", dt);
    const char *sets[] = {set_dt, schemes[s], NULL};
    struct fixture f;
    fixture_start(&f, pair_yaml, sets);
    double t_in = -1, t_out = -1, g_prev = gap(&f.sim), t_prev = 0, deepest = 0;
    for (long i = 0; i < 100000 && t_out < 0; i++) {
      fixture_steps(&f, 1);
      double g = gap(&f.sim), t = f.sim.t;
      /* the crossings, interpolated linearly within the step */
      if (g_prev >= 0 && g < 0)
        t_in = t_prev + dt * g_prev / (g_prev - g);
      if (g_prev < 0 && g >= 0 && t_in >= 0)
        t_out = t_prev + dt * g_prev / (g_prev - g);
      deepest = fmax(deepest, -g);
      g_prev = g;
      t_prev = t;
    }
    ck_assert_msg(t_in > 0 && t_out > 0, "%s: no full contact seen",
                  schemes[s]);
    double duration = t_out - t_in;
    printf("%s: contact time %.6g s, Hertz %.6g s (%+.2g); deepest overlap "
           "%.6g m, Hertz %.6g m (%+.2g)\n",
           schemes[s], duration, tc, duration / tc - 1, deepest, d_max,
           deepest / d_max - 1);
    ck_assert_msg(fabs(duration / tc - 1) < 1e-4,
                  "%s: contact duration %.6g s vs Hertz %.6g s", schemes[s],
                  duration, tc);
    ck_assert_msg(fabs(deepest / d_max - 1) < 1e-5,
                  "%s: deepest overlap %.6g m vs Hertz %.6g m", schemes[s],
                  deepest, d_max);
    /* free flight after the contact: the speeds from two positions */
    fixture_steps(&f, 10);
    double x0[2] = {f.sim.b.x[0][0], f.sim.b.x[1][0]}, t0 = f.sim.t;
    fixture_steps(&f, 100);
    double w1 = (f.sim.b.x[0][0] - x0[0]) / (f.sim.t - t0);
    double w2 = (f.sim.b.x[1][0] - x0[1]) / (f.sim.t - t0);
    ck_assert_msg(fabs(w1 - u1) < 1e-6 && fabs(w2 - u2) < 1e-6,
                  "%s: speeds after %.9g, %.9g m/s; elastic collision %.9g, "
                  "%.9g m/s",
                  schemes[s], w1, w2, u1, u2);
    fixture_end(&f);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("hertz_materials");
  TCase *tc = tcase_create("collision");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, hertz_collision_of_two_materials);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed != 0;
}
