/* Sums that follow sphere ids over few active spheres (sim/active.c): the
 * contacts' elastic energy and the loads on the walls equal, bitwise, the
 * same sums taken over every sphere id. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/loop.h"
#include "contact/wall_loads.h"
#include "core/rng.h"
#include "pieces_yaml.h"
#include "sim/active.h"
#include "sim/body_order.h"
#include "sim/near.h"
#include "sim_fixture.h"

/* 32 pieces of 100 spheres shaken so that some touch each other and the
 * walls, renumbered in space (ids no longer ascend with the index), the
 * lists rebuilt and the contact forces evaluated. */
static void start_shaken(struct fixture *f) {
  char *yaml = pieces_yaml(32, 0.3, 1.0);
  fixture_start(f, yaml, NULL);
  free(yaml);
  struct dem_sim *sim = &f->sim;
  ck_assert_int_eq(dem_body_order_sort(sim), DEM_OK);
  struct dem_rng rng;
  dem_rng_seed(&rng, 7);
  for (size_t b = 0; b < sim->b.n; b++)
    for (int k = 0; k < 3; k++)
      sim->b.x[b][k] += 0.015 * (2.0 * dem_rng_uniform(&rng) - 1.0);
  dem_near_forget(sim);
  dem_sim_update_spheres(sim);
  ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
  memset(sim->s.force, 0, sim->s.n * sizeof *sim->s.force);
  dem_contact_forces(sim, sim->dt);
}

/* The energy of sphere i's contacts (pairs it owns, then walls), as the
 * definition reads: every sphere's, summed in id order. */
static double energy_by_every_id(const struct dem_sim *sim, size_t *touching) {
  const struct dem_contact_list *c = &sim->pairs, *wc = &sim->wall_contacts;
  const struct dem_contact_model *m = sim->law.model;
  const int *mat = sim->s.material;
  double total = 0.0;
  for (size_t id = 0; id < sim->s.n; id++) {
    const size_t i = sim->s.index_of[id];
    double pairs = 0.0, walls = 0.0;
    struct dem_pair g;
    for (size_t k = c->start[i]; k < c->start[i + 1]; k++)
      if (dem_pair_touch(sim, k, &g, 0)) {
        pairs += m->energy(dem_law_params(&sim->law, mat[i], mat[c->ij[k][1]]),
                           &g, NULL);
        ++*touching;
      }
    for (size_t k = wc->start[i]; k < wc->start[i + 1]; k++)
      if (dem_wall_touch(sim, k, &g)) {
        walls += m->energy(dem_law_params(&sim->law, mat[i],
                                          dem_wall_material(sim, wc->ij[k][1])),
                           &g, NULL);
        ++*touching;
      }
    total += pairs + walls;
  }
  return total;
}

START_TEST(elastic_energy_over_few_active_is_the_sum_over_every_id) {
  struct fixture f;
  start_shaken(&f);
  struct dem_sim *sim = &f.sim;
  /* Few active spheres, not in id order: the path under test. */
  size_t ids[DEM_ACTIVE_IDS_MAX];
  size_t few = dem_active_ids(sim, ids, DEM_ACTIVE_IDS_MAX);
  ck_assert_msg(few != (size_t)-1, "%zu active of %zu", sim->nb.n_active,
                sim->s.n);
  ck_assert_uint_eq(few, sim->nb.n_active);
  int unordered = 0;
  for (size_t a = 1; a < sim->nb.n_active; a++)
    unordered |=
        sim->s.id[sim->nb.active[a]] < sim->s.id[sim->nb.active[a - 1]];
  ck_assert(unordered);
  size_t touching = 0;
  double want = energy_by_every_id(sim, &touching);
  ck_assert_uint_ge(touching, 3);
  ck_assert_uint_ge(sim->wall_contacts.n, 1);
  ck_assert_double_gt(want, 0);
  double *scratch = malloc(sim->s.n * sizeof *scratch);
  for (size_t i = 0; i < sim->s.n; i++) /* nothing left in it is read */
    scratch[i] = 1e300;
  double got = dem_contact_elastic_energy(sim, scratch);
  ck_assert_mem_eq(&got, &want, sizeof got);
  free(scratch);
  fixture_end(&f);
}
END_TEST

START_TEST(wall_loads_over_few_active_are_the_sums_over_every_id) {
  struct fixture f;
  start_shaken(&f);
  struct dem_sim *sim = &f.sim;
  ck_assert_uint_ne(
      dem_active_ids(sim, (size_t[DEM_ACTIVE_IDS_MAX]){0}, DEM_ACTIVE_IDS_MAX),
      (size_t)-1);
  const size_t n = dem_wall_load_count(sim);
  double(*point)[3] = malloc(n * sizeof *point);
  double(*got)[6] = malloc(n * sizeof *got),
  (*want)[6] = malloc(n * sizeof *want);
  dem_contact_wall_loads(sim, point, got);
  /* Without the active list every id is walked. */
  int *active = sim->nb.active;
  sim->nb.active = NULL;
  ck_assert_uint_eq(dem_active_ids(sim, (size_t[1]){0}, 1), (size_t)-1);
  dem_contact_wall_loads(sim, point, want);
  sim->nb.active = active;
  int loaded = 0;
  for (size_t k = 0; k < n; k++) {
    ck_assert_mem_eq(got[k], want[k], sizeof got[k]);
    loaded += got[k][0] != 0 || got[k][1] != 0 || got[k][2] != 0;
  }
  ck_assert_int_ge(loaded, 1);
  free(point), free(got), free(want);
  fixture_end(&f);
}
END_TEST

static Suite *few_active_suite(void) {
  Suite *s = suite_create("few_active");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, elastic_energy_over_few_active_is_the_sum_over_every_id);
  tcase_add_test(tc, wall_loads_over_few_active_are_the_sums_over_every_id);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(few_active_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
