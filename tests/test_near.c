/* Work only where contacts can happen (sim/near.h): bodies far from
 * everything, moved and turned into contact, are never missed; the lists
 * are rebuilt at exactly the steps a placement of every sphere would
 * rebuild them; runs are bitwise the same with and without the near path,
 * and on 1 and 2 threads. */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"
#include "core/rng.h"
#include "core/vec3.h"
#include "pieces_yaml.h"
#include "same_state.h"
#include "sim/near.h"
#include "sim_fixture.h"

/* Where sphere i's body puts it, with the placement's own arithmetic. */
static void true_position(const struct dem_sim *sim, size_t i, double x[3]) {
  double d[3];
  int k = sim->s.body[i];
  q_rotate(d, sim->b.q[k], sim->s.offset[i]);
  v3_add(x, sim->b.x[k], d);
}

/* Whether some sphere, at its true position, is more than skin/2 from
 * where the last build saw it: the rebuild every sphere's placement
 * would decide. */
static int truly_stale(const struct dem_sim *sim, double (*xt)[3]) {
  double worst = 0, limit = 0.25 * sim->nb.skin * sim->nb.skin;
  for (size_t i = 0; i < sim->s.n; i++) {
    double m[3];
    v3_sub(m, xt[i], sim->s.x_build[i]);
    double d2 = v3_dot(m, m);
    worst = d2 > worst ? d2 : worst;
  }
  return !(worst <= limit);
}

/* Whether the pair (i, j) is in i's list. */
static int listed(const struct dem_sim *sim, size_t i, size_t j) {
  const struct dem_contact_list *c = &sim->pairs;
  for (size_t k = sim->nb.start[i]; k < sim->nb.start[i + 1]; k++) {
    int code = sim->nb.list[k];
    size_t at = code >= 0 ? (size_t)code : (size_t)~code;
    if ((size_t)c->ij[at][code >= 0 ? 1 : 0] == j)
      return 1;
  }
  return 0;
}

/* Whether sphere i has a contact with wall w. */
static int has_wall(const struct dem_sim *sim, size_t i, int w) {
  const struct dem_contact_list *c = &sim->wall_contacts;
  for (size_t k = c->start[i]; k < c->start[i + 1]; k++)
    if (c->ij[k][1] == w)
      return 1;
  return 0;
}

/* Every touching pair of spheres of different bodies (true positions) is
 * listed, every sphere touching a wall has its contact, and every sphere
 * the contact loops read is where its body puts it, bitwise. Returns the
 * touching pairs. */
static size_t check_contacts_found(const struct dem_sim *sim, double (*xt)[3]) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_walls *w = &sim->walls;
  size_t touching = 0;
  for (size_t a = 0; a < sim->nb.n_active; a++) {
    size_t i = (size_t)sim->nb.active[a];
    ck_assert_mem_eq(s->x[i], xt[i], sizeof xt[i]);
  }
  for (size_t i = 0; i < s->n; i++) {
    for (size_t j = i + 1; j < s->n; j++) {
      double d[3], r = s->radius[i] + s->radius[j];
      v3_sub(d, xt[i], xt[j]);
      if (s->body[i] == s->body[j] || !(v3_dot(d, d) < r * r))
        continue;
      touching++;
      ck_assert_msg(listed(sim, i, j) && listed(sim, j, i),
                    "step %ld: touching spheres %zu and %zu not listed",
                    sim->step, i, j);
    }
    for (int k = 0; k < 3; k++) {
      if (xt[i][k] - w->lo[k] < s->radius[i])
        ck_assert_msg(has_wall(sim, i, 2 * k), "wall contact missed");
      if (w->hi[k] - xt[i][k] < s->radius[i])
        ck_assert_msg(has_wall(sim, i, 2 * k + 1), "wall contact missed");
    }
  }
  return touching;
}

/* q turned by `angle` about the lab axis a, and scaled by `grow` (SPIRAL
 * does not normalise: q_rotate then also stretches). */
static void turn(double q[4], const double a[3], double angle, double grow) {
  double dq[4];
  q_from_axis_angle(dq, a, angle);
  q_mul(q, dq, q);
  for (int k = 0; k < 4; k++)
    q[k] *= grow;
}

/* Four pieces far apart, moved by hand, without forces: first piece 1
 * only spins in place, then piece 2's quaternion only grows, then all
 * at once: piece 0 drifts into piece 1 and turns slowly, piece 1 spins,
 * piece 2 drifts to a wall, piece 3 turns about the lab z (a loose bound:
 * its spheres are placed whole before a rebuild). Each step, as the
 * scheme does: place, decide, rebuild. */
START_TEST(far_bodies_moved_into_contact_are_never_missed) {
  struct fixture f;
  char *yaml = pieces_yaml(4, 0.4, 1.0);
  fixture_start(&f, yaml, NULL);
  free(yaml);
  struct dem_sim *sim = &f.sim;
  struct dem_bodies *b = &sim->b;
  ck_assert_ptr_nonnull(dem_near_on(sim));
  double(*xt)[3] = malloc(sim->s.n * sizeof *xt);
  const double ax[3] = {1, 0, 0}, ay[3] = {0, 1, 0}, az[3] = {0, 0, 1};
  long rebuilds = 0, lagging = 0, anchored = 0;
  size_t touched = 0;
  for (long step = 0; step < 2000; step++) {
    if (step < 500) { /* a turn alone */
      turn(b->q[1], ax, 4e-3, 1.0);
    } else if (step < 1000) { /* a growing quaternion alone */
      turn(b->q[2], az, 0.0, 1.0 + 1e-4);
    } else { /* everything at once */
      double to[3];
      v3_sub(to, b->x[1], b->x[0]);
      double dist = sqrt(v3_dot(to, to));
      if (dist > 0.01)
        v3_axpy(b->x[0], 3e-4 / dist, to);
      turn(b->q[0], ay, 2e-3, 1.0);
      turn(b->q[1], ax, 4e-3, 1.0);
      double *x2 = &b->x[2][0]; /* to the nearer x wall's plane, then stop */
      if (*x2 > 0.005 && *x2 < 0.395)
        *x2 += *x2 < 0.2 ? -2e-4 : 2e-4;
      turn(b->q[2], az, 0.0, 1.0 + 2e-5);
      turn(b->q[3], az, 1e-3, 1.0);
    }
    sim->step++;
    dem_sim_update_spheres(sim);
    for (size_t i = 0; i < sim->s.n; i++) {
      true_position(sim, i, xt[i]);
      lagging += memcmp(sim->s.x[i], xt[i], sizeof xt[i]) != 0;
    }
    const struct dem_near *nr = dem_near_on(sim);
    for (size_t k = 0; nr && k < b->n; k++)
      anchored += nr->moved[k] > 0;
    int stale = truly_stale(sim, xt);
    ck_assert_int_eq(dem_neighbors_stale(sim), stale);
    if (stale) {
      ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
      rebuilds++;
    }
    touched += check_contacts_found(sim, xt);
  }
  /* It did what it means to test: spheres were left unplaced, bodies
   * placed whole before a rebuild, pieces 0 and 1 and piece 2 and its
   * wall came into contact. */
  ck_assert_int_gt(rebuilds, 50);
  ck_assert_int_gt(lagging, 0);
  ck_assert_int_gt(anchored, 0);
  ck_assert_uint_gt(touched, 0);
  ck_assert_uint_gt(sim->wall_contacts.n, 0);
  free(xt);
  fixture_end(&f);
}
END_TEST

/* Runs `steps` steps on `threads` threads; with `off`, the near path is
 * turned off after every step (every sphere placed each step but in the
 * steps that build). */
static void run(struct fixture *f, const char *yaml, int threads, int off,
                long steps) {
  omp_set_num_threads(threads);
  fixture_start(f, yaml, NULL);
  for (long i = 0; i < steps; i++) {
    fixture_steps(f, 1);
    if (off)
      dem_near_forget(&f->sim);
  }
  dem_near_place_all(&f->sim);
}

/* `pieces` pieces in a box of side `box` at `speed` m/s, run `steps`
 * steps twice: a on one thread with the near path, b on `threads` threads
 * and with the near path `off` or not. */
static void run_two(struct fixture *a, struct fixture *b, int pieces,
                    double box, double speed, int threads, int off,
                    long steps) {
  char *yaml = pieces_yaml(pieces, box, speed);
  int saved = omp_get_max_threads();
  run(a, yaml, 1, 0, steps);
  run(b, yaml, threads, off, steps);
  omp_set_num_threads(saved);
  free(yaml);
}

/* 32 pieces in a small box, colliding: the same state, bitwise, with the
 * near path and with every sphere placed each step. */
START_TEST(near_path_changes_no_number) {
  struct fixture f1, f2;
  run_two(&f1, &f2, 32, 0.3, 3.0, 1, 1, 3000);
  ck_assert_int_gt(f1.sim.nb.builds, 5);
  ck_assert_uint_gt(f1.sim.pairs.n, 0);
  assert_same_and_end(&f1, &f2, SAME_X_BUILD);
}
END_TEST

/* Enough pieces that the near path's loops run in parallel: 1 and 2
 * threads give the same state, bitwise. */
START_TEST(near_path_same_on_one_and_two_threads) {
  struct fixture f1, f2;
  run_two(&f1, &f2, 800, 1.2, 10.0, 2, 0, 200);
  ck_assert_ptr_nonnull(dem_near_on(&f1.sim));
  ck_assert_uint_gt(f1.sim.nb.n_active + DEM_NEAR_BODY_COST * f1.sim.b.n,
                    DEM_PARALLEL_MIN);
  ck_assert_int_gt(f1.sim.nb.builds, 2);
  assert_same_and_end(&f1, &f2, SAME_X_BUILD);
}
END_TEST

static Suite *near_suite(void) {
  Suite *s = suite_create("near");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, far_bodies_moved_into_contact_are_never_missed);
  tcase_add_test(tc, near_path_changes_no_number);
  tcase_add_test(tc, near_path_same_on_one_and_two_threads);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(near_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
