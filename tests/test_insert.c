/* Insertion in process: scaled bodies' mass and inertia against the
 * analytic sphere, no overlap by brute force, the leapfrog start of a new
 * body, and size draws against their laws' moments. */
#include <check.h>
#include <math.h>

#include "sim/insert.h"
#include "sim_fixture.h"

static const char *yaml =
    "simulation: {time_step: 1.0e-4, end_time: 0.01, seed: 5, gravity: [0, "
    "0, -9.81]}\n"
    "materials: {glass: {density: 2500, young_modulus: 1.0e7, "
    "poisson_ratio: 0.25}}\n"
    "shapes:\n"
    "  ball: {material: glass, spheres: [{center: [0, 0, 0], radius: "
    "0.01}]}\n"
    "  rod: {material: glass, spheres: [{center: [-0.01, 0, 0], radius: "
    "0.01}, {center: [0.01, 0, 0], radius: 0.01}]}\n"
    "particles:\n"
    "  - body: {shape: ball, position: [0.5, 0.5, 0.5]}\n"
    "  - insert: {region: {box: {min: [0.3, 0.3, 0.3], max: [0.7, 0.7, "
    "0.7]}}, shapes: [{shape: ball, fraction: 0.5}, {shape: rod, fraction: "
    "0.5}], count: 400, velocity: [0.1, 0.2, 0.3], scale: {distribution: "
    "table, sizes: [0.5, 1.7, 3.0], fractions: [0.3, 0.3, 0.4]}}\n"
    "domain: {box: {min: [0, 0, 0], max: [1, 1, 1]}, wall_material: glass}\n"
    "contact: {model: hertz}\n";

START_TEST(scaled_sphere_exact) {
  struct fixture f;
  fixture_start(&f, yaml, NULL);
  size_t added = 0;
  ck_assert_int_eq(dem_insert_due(&f.sim, f.pipeline->half_step, &added),
                   DEM_OK);
  ck_assert_uint_gt(added, 300);
  const struct dem_bodies *b = &f.sim.b;
  size_t balls = 0;
  for (size_t i = 0; i < b->n; i++) {
    if (b->shape[i] != 0)
      continue;
    double r = 0.01 * b->scale[i];
    double m = 2500 * 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
    ck_assert_double_eq_tol(b->mass[i], m, 1e-14 * m);
    for (int k = 0; k < 3; k++)
      ck_assert_double_eq_tol(b->inertia[i][k], 0.4 * m * r * r,
                              1e-14 * 0.4 * m * r * r);
    ck_assert(f.sim.s.radius[b->first_member[i]] == r);
    balls++;
  }
  ck_assert_uint_gt(balls, 100);
  fixture_end(&f);
}
END_TEST

START_TEST(no_overlap_brute_force) {
  struct fixture f;
  fixture_start(&f, yaml, NULL);
  size_t added = 0;
  ck_assert_int_eq(dem_insert_due(&f.sim, f.pipeline->half_step, &added),
                   DEM_OK);
  const struct dem_spheres *s = &f.sim.s;
  for (size_t i = 0; i < s->n; i++) {
    for (int k = 0; k < 3; k++) {
      ck_assert(s->x[i][k] - s->radius[i] >= 0);
      ck_assert(s->x[i][k] + s->radius[i] <= 1);
    }
    for (size_t j = i + 1; j < s->n; j++) {
      if (s->body[i] == s->body[j])
        continue;
      double d = sqrt(pow(s->x[i][0] - s->x[j][0], 2) +
                      pow(s->x[i][1] - s->x[j][1], 2) +
                      pow(s->x[i][2] - s->x[j][2], 2));
      ck_assert_msg(d >= (s->radius[i] + s->radius[j]) * (1 - 1e-12),
                    "spheres %zu and %zu overlap", i, j);
    }
  }
  /* ids unique and increasing with the arrays (nothing sorted yet) */
  for (size_t i = 0; i < f.sim.b.n; i++)
    ck_assert_uint_eq(f.sim.b.id[i], i);
  /* and the run goes on with them */
  fixture_steps(&f, 20);
  fixture_end(&f);
}
END_TEST

/* A new body's synchronised velocity at t is the one asked, for the
 * leapfrog default scheme and a whole-step one. */
START_TEST(new_body_velocity_synchronised) {
  static const char *const schemes[] = {"scheme=spiral_leapfrog",
                                        "scheme=velocity_verlet_spiral"};
  const char *sets[] = {schemes[_i], NULL};
  struct fixture f;
  fixture_start(&f, yaml, sets);
  size_t added = 0;
  ck_assert_int_eq(dem_insert_due(&f.sim, f.pipeline->half_step, &added),
                   DEM_OK);
  struct dem_bodies *b = &f.sim.b;
  dem_pipeline_sync(f.pipeline, &f.sim, b->v_sync, b->w_sync);
  static const double want[3] = {0.1, 0.2, 0.3};
  for (size_t i = 1; i < b->n; i++)
    for (int k = 0; k < 3; k++) {
      ck_assert_double_eq_tol(b->v_sync[i][k], want[k], 1e-15);
      ck_assert(b->w_sync[i][k] == 0);
    }
  fixture_end(&f);
}
END_TEST

/* Moments of the draws against the laws': uniform (a+b)/2, (b-a)^2/12;
 * a normal truncated far out (mean, std); table fractions. */
START_TEST(size_draw_moments) {
  struct dem_rng rng;
  dem_rng_seed(&rng, 11);
  const int n = 200000;
  struct dem_size_dist u = {.kind = DEM_SIZE_UNIFORM, .min = 0.5, .max = 2};
  struct dem_size_dist g = {
      .kind = DEM_SIZE_NORMAL, .a = 1, .b = 0.1, .min = 0.1, .max = 2};
  double su = 0, su2 = 0, sg = 0, sg2 = 0;
  for (int i = 0; i < n; i++) {
    double x = dem_size_draw(&u, &rng), y = dem_size_draw(&g, &rng);
    ck_assert(x >= 0.5 && x <= 2 && y >= 0.1 && y <= 2);
    su += x, su2 += x * x, sg += y, sg2 += y * y;
  }
  double mu = su / n, vu = su2 / n - mu * mu, mg = sg / n,
         vg = sg2 / n - mg * mg;
  ck_assert_double_eq_tol(mu, 1.25, 4 * sqrt(0.1875 / n));
  ck_assert_double_eq_tol(vu, 0.1875, 0.01 * 0.1875);
  ck_assert_double_eq_tol(mg, 1.0, 4 * 0.1 / sqrt(n));
  ck_assert_double_eq_tol(vg, 0.01, 0.01 * 0.01);
}
END_TEST

int main(void) {
  Suite *s = suite_create("insert");
  TCase *tc = tcase_create("insert");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, scaled_sphere_exact);
  tcase_add_test(tc, no_overlap_brute_force);
  tcase_add_loop_test(tc, new_body_velocity_synchronised, 0, 2);
  tcase_add_test(tc, size_draw_moments);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
