/* Neighbour lists and Hertz forces against brute force; the broad phase on
 * bodies and their spatial order change nothing; results do not depend on
 * the thread count. */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/hertz_law.h"
#include "core/rng.h"
#include "core/vec3.h"
#include "pieces_yaml.h"
#include "same_state.h"
#include "sim/body_order.h"
#include "sim/forces.h"
#include "sim/grid.h"
#include "sim/near.h"
#include "sim_fixture.h"

static const char *rods_yaml =
    "simulation: {time_step: 3.8e-5, end_time: 1.0, seed: "
    "11}\n" FIXTURE_RODS_AND_DUMBBELLS
    "particles: [{random_fill: {shape: rod, count: 900, speed: 3.0, "
    "angular_speed: 30}}, {random_fill: {shape: dumbbell, count: 300, "
    "speed: 3.0, angular_speed: 30}}]\n"
    "domain: {box: {min: [0, 0, 0], max: [1.5, 1.5, 1.5]}, wall_material: "
    "glass}\n"
    "contact: {skin: 0.006}\n";

/* Moves every body by up to `shake` in each coordinate (so that bodies
 * overlap and walls are crossed) and places the spheres. */
static void shake_bodies(struct dem_sim *sim, double shake, uint64_t seed) {
  struct dem_rng rng;
  dem_rng_seed(&rng, seed);
  for (size_t b = 0; b < sim->b.n; b++)
    for (int k = 0; k < 3; k++)
      sim->b.x[b][k] += shake * (2.0 * dem_rng_uniform(&rng) - 1.0);
  dem_sim_update_spheres(sim);
}

/* The partner of sphere i in list entry k (a code into the contacts:
 * c for the contact i owns, ~c for its partner's). */
static size_t listed_partner(const struct dem_sim *sim, size_t i, size_t k) {
  const struct dem_contact_list *c = &sim->pairs;
  int code = sim->nb.list[k];
  size_t at = code >= 0 ? (size_t)code : (size_t)~code;
  ck_assert_uint_lt(at, c->n);
  /* The owner is the lower id, and the key names both. */
  ck_assert_uint_eq((size_t)c->ij[at][code >= 0 ? 0 : 1], i);
  size_t j = (size_t)c->ij[at][code >= 0 ? 1 : 0];
  ck_assert_uint_lt(sim->s.id[c->ij[at][0]], sim->s.id[c->ij[at][1]]);
  ck_assert_uint_eq(c->key[at][0], sim->s.id[c->ij[at][0]]);
  ck_assert_uint_eq(c->key[at][1], sim->s.id[c->ij[at][1]]);
  return j;
}

/* Every pair of spheres of different bodies within r_i + r_j + skin is
 * listed, in both lists, in ascending id, and nothing else is; each pair
 * is one contact. */
static void check_lists_brute_force(const struct dem_sim *sim) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_neighbors *nb = &sim->nb;
  size_t pairs = 0;
  for (size_t i = 0; i < s->n; i++) {
    size_t k = nb->start[i];
    for (size_t jd = 0; jd < s->n; jd++) {
      size_t j = s->index_of[jd];
      if (s->body[j] == s->body[i])
        continue;
      double d[3], range = s->radius[i] + s->radius[j] + nb->skin;
      v3_sub(d, s->x[i], s->x[j]);
      if (!(v3_dot(d, d) < range * range))
        continue;
      ck_assert_msg(k < nb->start[i + 1] && listed_partner(sim, i, k) == j,
                    "sphere %zu: pair with %zu missing or out of order", i, j);
      k++;
      pairs++;
    }
    ck_assert_msg(k == nb->start[i + 1], "sphere %zu: %zu extra entries", i,
                  nb->start[i + 1] - k);
  }
  ck_assert_uint_eq(pairs, 2 * sim->pairs.n);
}

/* The Hertz force on every sphere from every sphere of another body and
 * the walls, by brute force, summed in ascending id as the lists are. */
static void brute_force_hertz(const struct dem_sim *sim, double (*f)[3]) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_walls *w = &sim->walls;
  const struct dem_material *m = sim->materials;
  for (size_t i = 0; i < s->n; i++) {
    const struct dem_material *mi = &m[s->material[i]];
    double fi[3] = {0, 0, 0};
    for (size_t jd = 0; jd < s->n; jd++) {
      size_t j = s->index_of[jd];
      if (s->body[j] == s->body[i])
        continue;
      double d[3] = {s->x[i][0] - s->x[j][0], s->x[i][1] - s->x[j][1],
                     s->x[i][2] - s->x[j][2]};
      double dist2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      double rsum = s->radius[i] + s->radius[j];
      if (dist2 >= rsum * rsum)
        continue;
      double dist = sqrt(dist2);
      double fn =
          dem_hertz_force(dem_effective_modulus(mi, &m[s->material[j]]),
                          s->radius[i] * s->radius[j] / rsum, rsum - dist);
      v3_axpy(fi, fn / dist, d);
    }
    for (int k = 0; k < 3; k++) {
      double r = s->radius[i];
      double d_lo = r - (s->x[i][k] - w->lo[k]);
      double d_hi = r - (w->hi[k] - s->x[i][k]);
      double estar_wall = dem_effective_modulus(mi, &m[w->material]);
      if (d_lo > 0)
        fi[k] += dem_hertz_force(estar_wall, r, d_lo);
      if (d_hi > 0)
        fi[k] -= dem_hertz_force(estar_wall, r, d_hi);
    }
    v3_copy(f[i], fi);
  }
}

static void hertz_only(struct dem_sim *sim) {
  memset(sim->s.force, 0, sim->s.n * sizeof *sim->s.force);
  dem_contact_forces(sim, sim->dt);
}

/* Builds with the given broad phase setting, checks lists and forces
 * against brute force (bitwise: the same terms in the same order). */
static void check_against_brute_force(struct dem_sim *sim, int broad) {
  sim->nb.broad_phase = broad;
  ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
  check_lists_brute_force(sim);
  size_t n = sim->s.n;
  double(*f)[3] = malloc(n * sizeof *f);
  brute_force_hertz(sim, f);
  hertz_only(sim);
  size_t touching = 0;
  for (size_t i = 0; i < n; i++) {
    ck_assert_msg(memcmp(f[i], sim->s.force[i], sizeof f[i]) == 0,
                  "sphere %zu: force (%.17g %.17g %.17g), brute force "
                  "(%.17g %.17g %.17g)",
                  i, sim->s.force[i][0], sim->s.force[i][1], sim->s.force[i][2],
                  f[i][0], f[i][1], f[i][2]);
    touching += v3_dot(f[i], f[i]) > 0;
  }
  ck_assert_msg(touching > 20, "only %zu spheres touch: a weak test", touching);
  free(f);
}

START_TEST(rods_lists_and_forces_match_brute_force) {
  struct fixture f;
  fixture_start(&f, rods_yaml, NULL);
  shake_bodies(&f.sim, 0.02, 5);
  check_against_brute_force(&f.sim, DEM_BROAD_OFF);
  check_against_brute_force(&f.sim, DEM_BROAD_ON);
  fixture_end(&f);
}
END_TEST

START_TEST(pieces_lists_and_forces_match_brute_force) {
  struct fixture f;
  char *yaml = pieces_yaml(32, 0.3, 1.0);
  fixture_start(&f, yaml, NULL);
  shake_bodies(&f.sim, 0.01, 7);
  check_against_brute_force(&f.sim, DEM_BROAD_OFF);
  size_t all = f.sim.nb.n_candidates;
  check_against_brute_force(&f.sim, DEM_BROAD_AUTO); /* on: 100 per body */
  ck_assert_msg(f.sim.nb.n_candidates < all,
                "the broad phase kept all %zu spheres", all);
  check_against_brute_force(&f.sim, DEM_BROAD_ON);
  fixture_end(&f);
  free(yaml);
}
END_TEST

/* Pieces renumbered in space, three pressed together: so few
 * spheres are searched (8 per 100 or fewer) that the lists, the contacts
 * and the active set visit only them (sim/neighbors.c, `at`); lists and
 * forces still match brute force, partners in id order. */
START_TEST(few_searched_spheres_lists_match_brute_force) {
  struct fixture f;
  char *yaml = pieces_yaml(32, 0.4, 1.0);
  fixture_start(&f, yaml, NULL);
  struct dem_sim *sim = &f.sim;
  ck_assert_int_eq(dem_body_order_sort(sim), DEM_OK);
  dem_near_forget(sim);
  /* Pieces q < r stored in the order opposite to their ids, pressed
   * against piece a, the rest where they were: spheres of a with
   * partners in both, whose order the sort by id decides. */
  size_t a = 0, q = 1, r = 2;
  for (size_t u = 1; u < sim->b.n && sim->b.id[q] < sim->b.id[r]; u++)
    for (size_t v = u + 1; v < sim->b.n; v++)
      if (sim->b.id[u] > sim->b.id[v]) {
        q = u, r = v;
        break;
      }
  ck_assert_uint_gt(sim->b.id[q], sim->b.id[r]);
  for (int c = 0; c < 3; c++) {
    sim->b.x[q][c] = sim->b.x[a][c] + (c == 0 ? 0.02 : 0.0);
    sim->b.x[r][c] = sim->b.x[a][c] + (c == 1 ? 0.02 : 0.0);
  }
  shake_bodies(sim, 0.0, 7);
  check_against_brute_force(sim, DEM_BROAD_ON);
  ck_assert_msg(8 * sim->nb.n_candidates < sim->s.n, "%zu searched of %zu",
                sim->nb.n_candidates, sim->s.n);
  /* Spheres whose partners belong to two bodies listed out of the id
   * order: the sort by id has work to do. */
  size_t mixed = 0;
  for (size_t i = 0; i < sim->s.n; i++) {
    int unsorted = 0;
    for (size_t k = sim->nb.start[i] + 1; k < sim->nb.start[i + 1]; k++) {
      size_t j0 = listed_partner(sim, i, k - 1), j1 = listed_partner(sim, i, k);
      unsorted |= sim->s.body[j0] != sim->s.body[j1] && j1 < j0;
    }
    mixed += (size_t)unsorted;
  }
  ck_assert_msg(mixed > 0, "no list whose sort by id reorders its spheres");
  fixture_end(&f);
  free(yaml);
}
END_TEST

/* Pieces far apart: the broad phase leaves no sphere to the sphere phase
 * but those near a wall, and no pair. */
START_TEST(broad_phase_skips_pieces_far_apart) {
  struct fixture f;
  char *yaml = pieces_yaml(8, 2.0, 1.0);
  fixture_start(&f, yaml, NULL);
  struct dem_sim *sim = &f.sim;
  sim->nb.broad_phase = DEM_BROAD_ON;
  ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
  size_t near_wall = 0;
  for (size_t i = 0; i < sim->s.n; i++)
    for (int k = 0; k < 3; k++)
      near_wall += sim->s.x[i][k] - sim->s.radius[i] - sim->nb.skin < 0 ||
                   sim->s.x[i][k] + sim->s.radius[i] + sim->nb.skin > 2.0;
  ck_assert_uint_le(sim->nb.n_candidates, near_wall);
  ck_assert_uint_eq(sim->pairs.n, 0);
  fixture_end(&f);
  free(yaml);
}
END_TEST

/* After many steps (several rebuilds), the lists still hold every pair
 * in contact, and the forces equal brute force. */
START_TEST(lists_stay_complete_between_builds) {
  struct fixture f;
  fixture_start(&f, rods_yaml, NULL);
  for (int r = 0; r < 4; r++) {
    fixture_steps(&f, 150);
    const struct dem_spheres *s = &f.sim.s;
    const struct dem_neighbors *nb = &f.sim.nb;
    double(*bf)[3] = malloc(s->n * sizeof *bf);
    brute_force_hertz(&f.sim, bf);
    hertz_only(&f.sim); /* with the lists as they are, maybe not fresh */
    for (size_t i = 0; i < s->n; i++)
      ck_assert_msg(memcmp(bf[i], s->force[i], sizeof bf[i]) == 0,
                    "step %ld sphere %zu: force differs from brute force",
                    f.sim.step, i);
    free(bf);
    ck_assert_int_gt(nb->builds, 1);
  }
  fixture_end(&f);
}
END_TEST

static void run_threads(struct fixture *f, const char *yaml, int threads,
                        int broad, long steps) {
  omp_set_num_threads(threads);
  memset(f, 0, sizeof *f);
  dem_error_clear();
  ck_assert_int_eq(dem_config_load_string("t.yaml", yaml, &f->cfg), DEM_OK);
  ck_assert_int_eq(dem_setup(f->cfg, &f->sim, &f->out), DEM_OK);
  ck_assert_int_eq(dem_setup_pipeline(f->cfg, &f->sim, &f->pipeline), DEM_OK);
  f->sim.nb.broad_phase = broad;
  ck_assert_int_eq(dem_neighbors_build(&f->sim), DEM_OK);
  ck_assert_int_eq(dem_pipeline_initial_forces(f->pipeline, &f->sim), DEM_OK);
  dem_pipeline_start(f->pipeline, &f->sim);
  fixture_steps(f, steps);
}

START_TEST(bitwise_same_state_for_one_and_two_threads) {
  int saved = omp_get_max_threads();
  for (int broad = DEM_BROAD_ON; broad <= DEM_BROAD_OFF; broad++) {
    struct fixture f1, f2;
    run_threads(&f1, rods_yaml, 1, broad, 200);
    run_threads(&f2, rods_yaml, 2, broad, 200);
    ck_assert_int_gt((long)f1.sim.s.n, DEM_PARALLEL_MIN); /* really parallel */
    ck_assert_int_gt(f1.sim.nb.builds, 2);
    assert_same_and_end(&f1, &f2, SAME_SPHERE_FORCE);
  }
  omp_set_num_threads(saved);
}
END_TEST

/* The broad phase gives the same lists, hence the same run, bitwise. */
START_TEST(broad_phase_run_is_bitwise_the_same) {
  struct fixture f1, f2;
  char *yaml = pieces_yaml(32, 0.3, 1.0);
  run_threads(&f1, yaml, 1, DEM_BROAD_ON, 2000);
  run_threads(&f2, yaml, 1, DEM_BROAD_OFF, 2000);
  ck_assert_int_gt(f1.sim.nb.builds, 1);
  assert_same_and_end(&f1, &f2, SAME_SPHERE_FORCE);
  free(yaml);
}
END_TEST

/* Sorting bodies in space: a real permutation that keeps every body with
 * its own state and spheres, members contiguous and in member order, the
 * bodies in ascending cell, z slowest; the lists built after it still
 * match brute force. */
START_TEST(spatial_sort_keeps_every_body_whole) {
  struct fixture f;
  fixture_start(&f, rods_yaml, NULL);
  struct dem_sim *sim = &f.sim;
  shake_bodies(sim, 0.02, 5);
  size_t nb = sim->b.n, ns = sim->s.n;
  double(*bx)[3] = malloc(nb * sizeof *bx), (*bq)[4] = malloc(nb * sizeof *bq);
  double(*sx)[3] = malloc(ns * sizeof *sx);
  memcpy(bx, sim->b.x, nb * sizeof *bx);
  memcpy(bq, sim->b.q, nb * sizeof *bq);
  memcpy(sx, sim->s.x, ns * sizeof *sx);
  double *scratch = malloc(ns * sizeof *scratch);
  ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
  double energy = dem_contact_elastic_energy(sim, scratch);
  long sorts = sim->nb.sorts;
  ck_assert_int_eq(dem_body_order_sort(sim), DEM_OK);
  ck_assert_int_eq(sim->nb.sorts, sorts + 1);
  size_t moved = 0;
  for (size_t i = 0; i < nb; i++) {
    size_t id = sim->b.id[i];
    moved += id != i;
    ck_assert_uint_eq(sim->b.index_of[id], i);
    ck_assert_mem_eq(sim->b.x[i], bx[id], sizeof bx[id]);
    ck_assert_mem_eq(sim->b.q[i], bq[id], sizeof bq[id]);
    if (i > 0) /* ascending z, to within a cell of two bounding radii */
      ck_assert_double_ge(sim->b.x[i][2] + 0.25, sim->b.x[i - 1][2]);
    size_t m0 = sim->b.first_member[i], m1 = sim->b.first_member[i + 1];
    ck_assert_uint_eq(m1 - m0, sim->shapes[sim->b.shape[i]].n_spheres);
    for (size_t m = m0; m < m1; m++) {
      size_t k = m;
      ck_assert_int_eq(sim->s.body[k], (int)i);
      ck_assert_uint_eq(sim->s.member[k], m - m0);
      ck_assert_uint_eq(sim->s.index_of[sim->s.id[k]], k);
      ck_assert_mem_eq(sim->s.x[k], sx[sim->s.id[k]], sizeof sx[0]);
    }
  }
  ck_assert_uint_gt(moved, nb / 2);
  ck_assert_uint_eq(sim->b.first_member[nb], ns);
  /* Placing the spheres again gives the same positions, bitwise. */
  dem_sim_update_spheres(sim);
  for (size_t k = 0; k < ns; k++)
    ck_assert_mem_eq(sim->s.x[k], sx[sim->s.id[k]], sizeof sx[0]);
  check_against_brute_force(sim, DEM_BROAD_OFF);
  /* The elastic energy, a sum over many overlaps, bitwise unchanged. */
  double after = dem_contact_elastic_energy(sim, scratch);
  ck_assert_mem_eq(&after, &energy, sizeof energy);
  ck_assert_double_gt(energy, 0);
  free(bx), free(bq), free(sx), free(scratch);
  fixture_end(&f);
}
END_TEST

/* The same run with bodies sorted in space now and then and never: the
 * same state for every body id, bitwise (force sums run in id order), a
 * load on listed bodies following them wherever they are stored. */
START_TEST(spatial_order_changes_no_number) {
  struct fixture f1, f2;
  int saved = omp_get_max_threads();
  size_t len = strlen(rods_yaml) + 200;
  char *yaml = malloc(len);
  snprintf(yaml, len,
           "%sloads: [{prescribed_load: {torque: [0, 0, 0.05], force: [0, "
           "0, 20], bodies: [3, 700, 1100]}}]\n",
           rods_yaml);
  for (int threads = 1; threads <= 2; threads++) {
    omp_set_num_threads(threads);
    const char *on[] = {"contact.sort_bodies=on", NULL};
    const char *off[] = {"contact.sort_bodies=off", NULL};
    fixture_start(&f1, yaml, on);
    fixture_start(&f2, yaml, off);
    fixture_steps(&f1, 400);
    fixture_steps(&f2, 400);
    ck_assert_int_ge(f1.sim.nb.sorts, 2);
    ck_assert_int_eq(f2.sim.nb.sorts, 0);
    ck_assert_int_eq(f1.sim.nb.builds, f2.sim.nb.builds);
    const struct dem_bodies *a = &f1.sim.b, *b = &f2.sim.b;
    size_t moved = 0;
    for (size_t i = 0; i < a->n; i++) {
      size_t j = b->index_of[a->id[i]];
      moved += j != i;
      ck_assert_mem_eq(a->x[i], b->x[j], sizeof a->x[i]);
      ck_assert_mem_eq(a->v[i], b->v[j], sizeof a->v[i]);
      ck_assert_mem_eq(a->q[i], b->q[j], sizeof a->q[i]);
      ck_assert_mem_eq(a->w[i], b->w[j], sizeof a->w[i]);
      ck_assert_mem_eq(a->force[i], b->force[j], sizeof a->force[i]);
      ck_assert_mem_eq(a->torque[i], b->torque[j], sizeof a->torque[i]);
    }
    ck_assert_uint_gt(moved, a->n / 2);
    double *scratch = malloc(f1.sim.s.n * sizeof *scratch);
    double e1 = dem_contact_elastic_energy(&f1.sim, scratch);
    double e2 = dem_contact_elastic_energy(&f2.sim, scratch);
    ck_assert_mem_eq(&e1, &e2, sizeof e1);
    ck_assert_double_gt(e1, 0);
    free(scratch);
    fixture_end(&f1);
    fixture_end(&f2);
  }
  omp_set_num_threads(saved);
  free(yaml);
}
END_TEST

static Suite *neighbors_suite(void) {
  Suite *s = suite_create("neighbors");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, rods_lists_and_forces_match_brute_force);
  tcase_add_test(tc, pieces_lists_and_forces_match_brute_force);
  tcase_add_test(tc, few_searched_spheres_lists_match_brute_force);
  tcase_add_test(tc, broad_phase_skips_pieces_far_apart);
  tcase_add_test(tc, lists_stay_complete_between_builds);
  tcase_add_test(tc, bitwise_same_state_for_one_and_two_threads);
  tcase_add_test(tc, broad_phase_run_is_bitwise_the_same);
  tcase_add_test(tc, spatial_sort_keeps_every_body_whole);
  tcase_add_test(tc, spatial_order_changes_no_number);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(neighbors_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
