/* The pipeline's tiled runs (operators/pipeline.c) against the step done
 * here one body at a time: in a gas of 2,500 rods, more bodies than one
 * tile holds, on one thread and on two, every body kicked, drifted and
 * turned from its own force and torque, every sphere placed, the forces
 * reset and gathered, the largest displacement and an escape found in
 * whichever tile they are, the contact velocities predicted from the
 * force before it is reset, and a motion that is not finite found where
 * dem run asks (dem_pipeline.check_motion). */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"
#include "core/rng.h"
#include "core/vec3.h"
#include "sim/finite.h"
#include "sim/near.h"
#include "sim_fixture.h"

enum { NR = 2500 };

/* Rods far enough apart that none touches another or a wall. */
static char *gas(const char *model) {
  char *y = malloc(4096);
  snprintf(y, 4096,
           "simulation: {time_step: 3.8e-5, end_time: 1.0, seed: 3, "
           "gravity: [0.4, -9.81, 1.3]}\n" FIXTURE_RODS_AND_DUMBBELLS
           "particles: [{random_fill: {shape: rod, count: %d, speed: 1.0, "
           "angular_speed: 3.0}}]\n"
           "domain: {box: {min: [0, 0, 0], max: [4, 4, 4]}, "
           "wall_material: glass}\n"
           "contact: {model: %s, skin: 0.005}\n",
           NR, model);
  return y;
}

/* The bodies' state before the step. */
struct before {
  double (*x)[3], (*v)[3], (*q)[4], (*w)[3], (*f)[3], (*t)[3], *aux;
};

static void *copy(const void *p, size_t bytes) {
  void *c = malloc(bytes);
  memcpy(c, p, bytes);
  return c;
}

static struct before keep(const struct dem_bodies *b) {
  const size_t n = b->n;
  return (struct before){
      copy(b->x, n * sizeof *b->x),
      copy(b->v, n * sizeof *b->v),
      copy(b->q, n * sizeof *b->q),
      copy(b->w, n * sizeof *b->w),
      copy(b->force, n * sizeof *b->force),
      copy(b->torque, n * sizeof *b->torque),
      copy(b->rot_aux, n * DEM_ROT_AUX * sizeof *b->rot_aux)};
}

static void drop(struct before *k) {
  free(k->x), free(k->v), free(k->q), free(k->w), free(k->f), free(k->t);
  free(k->aux);
}

/* Every body a force and a torque of its own, and the last body (in the
 * last tile) the fastest, so that the largest displacement is there. */
static void stir(struct dem_bodies *b) {
  struct dem_rng r;
  dem_rng_seed(&r, 17);
  for (size_t i = 0; i < b->n; i++)
    for (int c = 0; c < 3; c++) {
      b->force[i][c] = 0.5 * (2.0 * dem_rng_uniform(&r) - 1.0);
      b->torque[i][c] = 1e-3 * (2.0 * dem_rng_uniform(&r) - 1.0);
    }
  b->v[b->n - 1][0] = 20.0;
}

/* One step on `threads` threads, checked against the step body by body
 * (spiral_leapfrog: kick, drift, turn, place, reset, gather). */
static void check_step(const char *model, int predicts, int threads) {
  struct fixture f;
  char *y = gas(model);
  fixture_start(&f, y, NULL);
  free(y);
  struct dem_sim *sim = &f.sim;
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  ck_assert_uint_eq(b->n, NR);
  ck_assert_int_eq(f.pipeline->predict_velocities, predicts);
  ck_assert_ptr_null(dem_near_on(sim)); /* every sphere placed */
  stir(b);
  struct before k = keep(b);
  const long builds = sim->nb.builds;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  fixture_steps(&f, 1);
  omp_set_num_threads(saved);

  const double dt = sim->dt;
  const struct dem_rotation_integrator *rot = f.pipeline->rotation->rot;
  double moved2 = 0.0, last2 = 0.0;
  for (size_t i = 0; i < b->n; i++) {
    double v[3], x[3];
    v3_copy(v, k.v[i]);
    v3_axpy(v, dt / b->mass[i], k.f[i]);
    v3_copy(x, k.x[i]);
    v3_axpy(x, dt, v);
    struct dem_rot_state r;
    memcpy(r.q, k.q[i], sizeof r.q);
    memcpy(r.w, k.w[i], sizeof r.w);
    memcpy(r.aux, k.aux + i * DEM_ROT_AUX, sizeof r.aux);
    rot->before_force(&r, b->inertia[i], k.t[i], dt);
    for (int c = 0; c < 3; c++) {
      ck_assert_msg(b->v[i][c] == v[c] && b->x[i][c] == x[c],
                    "body %zu: v, x not those of its kick and drift", i);
      ck_assert_msg(b->w[i][c] == r.w[c], "body %zu: w", i);
      ck_assert_msg(b->force[i][c] == b->mass[i] * sim->gravity[c] &&
                        b->torque[i][c] == 0.0,
                    "body %zu: force not reset and gathered", i);
    }
    for (int c = 0; c < 4; c++)
      ck_assert_msg(b->q[i][c] == r.q[c], "body %zu: q", i);
    if (predicts) {
      /* hertz_mindlin reads velocities at the force's time: from the
       * scheme's v at t + dt/2, half a step on with the force of the
       * last evaluation, the one before the reset. */
      double vc[3];
      v3_copy(vc, v);
      v3_axpy(vc, 0.5 * dt / b->mass[i], k.f[i]);
      for (int c = 0; c < 3; c++)
        ck_assert_msg(b->v_contact[i][c] == vc[c], "body %zu: v_contact", i);
    }
    for (size_t m = b->first_member[i]; m < b->first_member[i + 1]; m++) {
      double d[3], at[3], u[3];
      q_rotate(d, r.q, s->offset[m]);
      v3_add(at, x, d);
      for (int c = 0; c < 3; c++)
        ck_assert_msg(s->x[m][c] == at[c], "sphere %zu not placed", m);
      v3_sub(u, at, s->x_build[m]);
      moved2 = fmax(moved2, v3_dot(u, u));
      if (i == b->n - 1)
        last2 = fmax(last2, v3_dot(u, u));
    }
  }
  /* update_spheres' measure, which neighbor_update read (and found the
   * lists current: the positions were not read back from them). */
  ck_assert_int_eq(sim->nb.builds, builds);
  ck_assert_msg(sim->nb.moved2 == moved2, "largest displacement %g, not %g",
                sim->nb.moved2, moved2);
  ck_assert(moved2 == last2); /* the last body's, in the last tile */
  ck_assert(!s->escaped);
  drop(&k);
  fixture_end(&f);
}

START_TEST(step_hertz_one_thread) { check_step("hertz", 0, 1); }
END_TEST

START_TEST(step_hertz_two_threads) { check_step("hertz", 0, 2); }
END_TEST

START_TEST(step_mindlin_one_thread) { check_step("hertz_mindlin", 1, 1); }
END_TEST

START_TEST(step_mindlin_two_threads) { check_step("hertz_mindlin", 1, 2); }
END_TEST

/* A sphere of the last body, in the last tile, outside the box after the
 * step: found, on one thread and on two. */
static void check_escape(int threads) {
  struct fixture f;
  char *y = gas("hertz");
  fixture_start(&f, y, NULL);
  free(y);
  struct dem_bodies *b = &f.sim.b;
  b->x[b->n - 1][1] = 4.0 + 0.5;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  ck_assert_int_eq(dem_pipeline_step(f.pipeline, &f.sim), DEM_OK);
  omp_set_num_threads(saved);
  ck_assert(f.sim.s.escape_known);
  ck_assert_msg(f.sim.s.escaped, "the escape in the last tile was missed");
  fixture_end(&f);
}

START_TEST(escape_one_thread) { check_escape(1); }
END_TEST

START_TEST(escape_two_threads) { check_escape(2); }
END_TEST

/* Body `at` given a field that is not finite before the step (`field`:
 * 0 position, 1 velocity, 2 angular velocity, 3 orientation, -1 none):
 * the tiles, asked to look, find it after the last push, on `threads`
 * threads; not asked, they say nothing. */
static void check_nonfinite(int field, size_t at, int threads, int asked) {
  struct fixture f;
  char *y = gas("hertz");
  fixture_start(&f, y, NULL);
  free(y);
  struct dem_bodies *b = &f.sim.b;
  ck_assert_uint_lt(at, b->n);
  const double bad = field == 1 ? INFINITY : NAN;
  if (field == 0)
    b->x[at][2] = bad;
  else if (field == 1)
    b->v[at][1] = bad;
  else if (field == 2)
    b->w[at][0] = bad;
  else if (field == 3)
    b->q[at][3] = bad;
  f.pipeline->check_motion = asked;
  b->motion_checked = b->motion_nonfinite = 7; /* the step sets both */
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  ck_assert_int_eq(dem_pipeline_step(f.pipeline, &f.sim), DEM_OK);
  omp_set_num_threads(saved);
  if (!asked) {
    ck_assert_int_eq(b->motion_checked, 0);
  } else {
    ck_assert_int_eq(b->motion_checked, 1);
    ck_assert_msg(b->motion_nonfinite == (field >= 0),
                  "field %d of body %zu: found %d", field, at,
                  b->motion_nonfinite);
  }
  fixture_end(&f);
}

/* The scans (sim/finite.h) find a NaN or an infinity in any component of
 * any field of any body of a range, and nothing outside it or in finite
 * fields: 37 bodies, not a whole number of SIMD vectors. */
START_TEST(scans_find_each_field) {
  enum { NB = 37 };
  static double x[NB][3], v[NB][3], w[NB][3], q[NB][4], f[NB][3], t[NB][3];
  struct dem_bodies b = {
      .n = NB, .x = x, .v = v, .w = w, .q = q, .force = f, .torque = t};
  double *field[6] = {x[0], v[0], w[0], q[0], f[0], t[0]};
  const int width[6] = {3, 3, 3, 4, 3, 3};
  for (int k = 0; k < 6; k++)
    for (int i = 0; i < NB * width[k]; i++)
      field[k][i] = 1e300 * (i % 3 - 1); /* large, finite */
  ck_assert(!dem_bodies_motion_suspect(&b, 0, NB));
  ck_assert(!dem_bodies_loads_suspect(&b, 0, NB));
  for (int k = 0; k < 6; k++)
    for (int i = 0; i < NB * width[k]; i++) {
      const double keep = field[k][i];
      field[k][i] = i % 2 ? NAN : -INFINITY;
      const size_t body = (size_t)(i / width[k]);
      const int motion = dem_bodies_motion_suspect(&b, 0, NB),
                loads = dem_bodies_loads_suspect(&b, 0, NB);
      ck_assert_msg(motion == (k < 4) && loads == (k >= 4),
                    "field %d, body %zu: motion %d, loads %d", k, body, motion,
                    loads);
      ck_assert(!dem_bodies_motion_suspect(&b, body + 1, NB) &&
                !dem_bodies_loads_suspect(&b, body + 1, NB));
      ck_assert(!dem_bodies_motion_suspect(&b, 0, body) &&
                !dem_bodies_loads_suspect(&b, 0, body));
      field[k][i] = keep;
    }
}
END_TEST

START_TEST(nonfinite_one_thread) {
  check_nonfinite(-1, 0, 1, 1);
  check_nonfinite(0, NR / 2, 1, 1);
  check_nonfinite(1, NR - 1, 1, 1);
  check_nonfinite(2, 0, 1, 1);
  check_nonfinite(3, NR - 1, 1, 1);
  check_nonfinite(1, NR - 1, 1, 0);
}
END_TEST

START_TEST(nonfinite_two_threads) {
  check_nonfinite(-1, 0, 2, 1);
  check_nonfinite(0, NR - 1, 2, 1);
  check_nonfinite(1, 0, 2, 1);
  check_nonfinite(2, NR / 2, 2, 1);
  check_nonfinite(3, NR - 1, 2, 1);
}
END_TEST

int main(void) {
  Suite *su = suite_create("tiles");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, step_hertz_one_thread);
  tcase_add_test(tc, step_hertz_two_threads);
  tcase_add_test(tc, step_mindlin_one_thread);
  tcase_add_test(tc, step_mindlin_two_threads);
  tcase_add_test(tc, escape_one_thread);
  tcase_add_test(tc, escape_two_threads);
  tcase_add_test(tc, scans_find_each_field);
  tcase_add_test(tc, nonfinite_one_thread);
  tcase_add_test(tc, nonfinite_two_threads);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
