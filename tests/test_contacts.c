/* Contacts with identity: a contact model added from test code through the
 * model interface, and contact histories carried by key through rebuilds
 * and spatial re-sorts. */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/loop.h"
#include "core/rng.h"
#include "sim/body_order.h"
#include "sim/contacts.h"
#include "sim_fixture.h"

/* ---- a toy model: a linear spring, in this file only ---------------- */

/* F = k d n, with k from the two materials (harmonic mean of their
 * Young's moduli times a length), a history of two values (how many
 * evaluations the contact has been touching, and the normal relative
 * velocity seen at the last one), and a torque on each sphere. */
struct linear_params {
  double k;
};

static dem_status linear_mix(const struct dem_material *a,
                             const struct dem_material *b,
                             const struct dem_pair_props *pair, void *params) {
  struct linear_params *p = params;
  p->k = 2.0 / (1.0 / a->young_modulus + 1.0 / b->young_modulus) * 1e-3;
  return DEM_OK;
}

static const double TORQUE_OWNER = 1e-3, TORQUE_PARTNER = 2e-3;

static inline void linear_kernel(const void *params, const struct dem_pair *g,
                                 double *state, struct dem_pair_result *r) {
  const struct linear_params *p = params;
  double a = p->k * g->overlap / g->dist;
  for (int k = 0; k < 3; k++)
    r->f[k] = a * g->d[k];
  state[0] += 1.0;
  state[1] = v3_dot(g->v, g->d) / g->dist;
  memset(r->t, 0, sizeof r->t);
  r->t[2] = TORQUE_OWNER;
  r->t[5] = TORQUE_PARTNER;
}

enum { LINEAR_FLAGS = DEM_MODEL_VELOCITY | DEM_MODEL_TORQUE };

static void linear_pairs(struct dem_sim *sim, double dt) {
  dem_contact_pairs_loop(sim, dt, linear_kernel, NULL, NULL, LINEAR_FLAGS);
}

static void linear_walls(struct dem_sim *sim, double dt) {
  dem_contact_walls_loop(sim, dt, linear_kernel, NULL, NULL, LINEAR_FLAGS);
}

static double linear_energy(const void *params, const struct dem_pair *g,
                            const double *state) {
  const struct linear_params *p = params;
  return 0.5 * p->k * g->overlap * g->overlap;
}

static void linear_time_step(const struct dem_sim *sim,
                             struct dem_dt_advice *out) {
  *out = (struct dem_dt_advice){HUGE_VAL, 0, HUGE_VAL, 20, "", "", "linear"};
}

static const char *const linear_state_names[] = {"touching_steps",
                                                 "normal_velocity", NULL};

/* The whole model: this entry and the functions above. */
static const struct dem_contact_model linear_model = {
    .name = "linear",
    .doc = "A linear spring, for tests.",
    .params_size = sizeof(struct linear_params),
    .mix = linear_mix,
    .state_width = 2,
    .flags = LINEAR_FLAGS,
    .pairs = linear_pairs,
    .walls = linear_walls,
    .energy = linear_energy,
    .time_step = linear_time_step,
    .state_names = linear_state_names,
};

/* A run with the linear model in place of the config's. */
static void start_linear(struct fixture *f, const char *yaml) {
  memset(f, 0, sizeof *f);
  dem_error_clear();
  dem_status st = dem_config_load_string("test.yaml", yaml, &f->cfg);
  if (!st)
    st = dem_setup(f->cfg, &f->sim, &f->out);
  if (!st)
    st = dem_contact_law_init(&f->sim, &linear_model, NULL);
  if (!st)
    st = dem_setup_pipeline(f->cfg, &f->sim, &f->pipeline);
  if (!st)
    st = dem_neighbors_build(&f->sim);
  if (!st)
    st = dem_pipeline_initial_forces(f->pipeline, &f->sim);
  ck_assert_msg(st == DEM_OK, "setup failed: %s", dem_last_error());
  dem_pipeline_start(f->pipeline, &f->sim);
}

/* Two single-sphere bodies head-on along x: radius R, mass m, speed v0
 * each. */
static const char *two_balls =
    "simulation: {time_step: 1.0e-6, end_time: 1.0, seed: 1}\n"
    "materials: {steel: {density: 7800, young_modulus: 2.0e8, "
    "poisson_ratio: 0.3}}\n"
    "shapes: {ball: {material: steel, spheres: [{center: [0, 0, 0], radius: "
    "0.01}]}}\n"
    "particles:\n"
    "  - body: {shape: ball, position: [-0.0105, 0, 0], velocity: [0.5, 0, "
    "0]}\n"
    "  - body: {shape: ball, position: [0.0105, 0, 0], velocity: [-0.5, 0, "
    "0]}\n"
    "contact: {skin: 0.001}\n";

/* A model added in test code runs through the pipeline: the collision of
 * a linear spring lasts pi sqrt(m* / k) and gives back the speed; the
 * kernel sees the relative velocity of the contact points; its torques
 * reach both bodies; its history lives with the contact. */
START_TEST(a_model_from_test_code_runs) {
  struct fixture f;
  start_linear(&f, two_balls);
  struct dem_sim *sim = &f.sim;
  ck_assert_ptr_eq(sim->law.model, &linear_model);
  const double m = sim->b.mass[0], k = 2.0e8 * 1e-3, v0 = 0.5;
  double first_contact = -1, last_contact = -1, seen_speed = 0;
  for (long step = 0; step < 40000 && last_contact < 0; step++) {
    fixture_steps(&f, 1);
    int touching = sim->pairs.n == 1 &&
                   v3_dot(sim->pairs.force[0], sim->pairs.force[0]) > 0;
    if (touching && first_contact < 0) {
      first_contact = sim->t;
      /* The first touching evaluation: velocities as they came, 0.5 m/s
       * each, approaching (the owner, body 0, is at lower x). */
      seen_speed = sim->pairs.state[1];
      ck_assert_double_eq(sim->pairs.state[0], 1.0);
      /* Torques about the sphere centres, which are the bodies' centres:
       * each body gets exactly its own. */
      size_t b0 = sim->b.index_of[0], b1 = sim->b.index_of[1];
      ck_assert_double_eq(sim->b.torque[b0][2], TORQUE_OWNER);
      ck_assert_double_eq(sim->b.torque[b1][2], TORQUE_PARTNER);
    }
    if (!touching && first_contact >= 0)
      last_contact = sim->t;
  }
  ck_assert_double_gt(first_contact, 0);
  ck_assert_double_gt(last_contact, 0);
  /* d = x_0 - x_1 points to the owner; approaching means v.d < 0. */
  ck_assert_double_eq_tol(seen_speed, -2 * v0, 1e-12);
  double duration = last_contact - first_contact;
  double expected = 3.14159265358979323846 * sqrt(0.5 * m / k);
  ck_assert_msg(fabs(duration - expected) < 2 * sim->dt,
                "contact lasted %g s, a linear spring %g s", duration,
                expected);
  /* The history was cleared when the spheres parted. */
  ck_assert_double_eq(sim->pairs.state[0], 0.0);
  double v_after = sim->b.v[sim->b.index_of[1]][0];
  ck_assert_double_eq_tol(v_after, v0, 1e-3 * v0);
  fixture_end(&f);
}
END_TEST

/* ---- histories through rebuilds and re-sorts ------------------------- */

/* Glass rods of three spheres in a glass box of 1.6 m, the parts the
 * rods configs below share. */
#define RODS_SHAPE                                                             \
  "materials: {glass: {density: 2500, young_modulus: 1.0e9, "                  \
  "poisson_ratio: 0.1}}\n"                                                     \
  "shapes:\n"                                                                  \
  "  rod: {material: glass, spheres: [{center: [-0.07, 0, 0], radius: "        \
  "0.035}, {center: [0, 0, 0], radius: 0.035}, {center: [0.07, 0, 0], "        \
  "radius: 0.035}]}\n"
#define RODS_BOX                                                               \
  "domain: {box: {min: [0, 0, 0], max: [1.6, 1.6, 1.6]}, wall_material: "      \
  "glass}\n"

static const char *rods_yaml =
    "simulation: {time_step: 3.8e-5, end_time: 1.0, seed: 11}\n" RODS_SHAPE
    "particles: [{random_fill: {shape: rod, count: 900, speed: 3.0, "
    "angular_speed: 30}}]\n" RODS_BOX "contact: {skin: 0.01}\n";

/* What a test remembers of one contact: its key and history. */
struct remembered {
  uint64_t key[2];
  double state[2];
};

static int by_key(const void *a, const void *b) {
  const struct remembered *x = a, *y = b;
  if (x->key[0] != y->key[0])
    return x->key[0] < y->key[0] ? -1 : 1;
  return x->key[1] < y->key[1] ? -1 : x->key[1] > y->key[1];
}

/* Checks every contact of c against what was remembered (kept: the same
 * history, bitwise; new: zero), then gives the new ones random histories
 * and remembers them all. Returns how many were kept. */
static size_t check_and_remember(struct dem_contact_list *c,
                                 struct remembered **mem, size_t *n_mem,
                                 struct dem_rng *rng) {
  struct remembered *now = malloc((c->n + 1) * sizeof *now);
  size_t kept = 0;
  for (size_t k = 0; k < c->n; k++) {
    struct remembered probe = {{c->key[k][0], c->key[k][1]}, {0, 0}};
    const struct remembered *old =
        *n_mem ? bsearch(&probe, *mem, *n_mem, sizeof probe, by_key) : NULL;
    double *s = c->state + 2 * k;
    if (old) {
      ck_assert_msg(memcmp(s, old->state, sizeof old->state) == 0,
                    "contact (%llu, %llu) lost its history",
                    (unsigned long long)probe.key[0],
                    (unsigned long long)probe.key[1]);
      kept++;
    } else {
      ck_assert_msg(
          s[0] == 0 && s[1] == 0, "new contact (%llu, %llu) has a history",
          (unsigned long long)probe.key[0], (unsigned long long)probe.key[1]);
      s[0] = dem_rng_uniform(rng);
      s[1] = -dem_rng_uniform(rng);
    }
    now[k] = probe;
    memcpy(now[k].state, s, sizeof now[k].state);
  }
  qsort(now, c->n, sizeof *now, by_key);
  for (size_t k = 1; k < c->n; k++) /* keys are unique */
    ck_assert_int_lt(by_key(&now[k - 1], &now[k]), 0);
  free(*mem);
  *mem = now;
  *n_mem = c->n;
  return kept;
}

/* 100 rebuilds, 10 of them after a spatial re-sort, bodies moving between
 * them: every contact that stays in the lists keeps its history exactly,
 * every new one starts from nothing (one that left and came back too). */
START_TEST(histories_survive_rebuilds_and_sorts) {
  int saved = omp_get_max_threads();
  omp_set_num_threads(2);
  struct fixture f;
  memset(&f, 0, sizeof f);
  ck_assert_int_eq(dem_config_load_string("test.yaml", rods_yaml, &f.cfg),
                   DEM_OK);
  ck_assert_int_eq(dem_setup(f.cfg, &f.sim, &f.out), DEM_OK);
  ck_assert_int_eq(dem_contact_law_init(&f.sim, &linear_model, NULL), DEM_OK);
  struct dem_sim *sim = &f.sim;
  ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
  struct dem_rng rng;
  dem_rng_seed(&rng, 42);
  struct remembered *pairs = NULL, *walls = NULL;
  size_t n_pairs = 0, n_walls = 0, kept_pairs = 0, kept_walls = 0;
  size_t seen_pairs = 0;
  long sorts = sim->nb.sorts;
  check_and_remember(&sim->pairs, &pairs, &n_pairs, &rng);
  check_and_remember(&sim->wall_contacts, &walls, &n_walls, &rng);
  for (int r = 1; r <= 100; r++) {
    for (size_t b = 0; b < sim->b.n; b++)
      for (int k = 0; k < 3; k++) /* a random walk inside the box */
        sim->b.x[b][k] = fmin(
            fmax(sim->b.x[b][k] + 0.01 * (2 * dem_rng_uniform(&rng) - 1), 0.11),
            1.49);
    dem_sim_update_spheres(sim);
    if (r % 10 == 0)
      ck_assert_int_eq(dem_body_order_sort(sim), DEM_OK);
    ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
    seen_pairs += sim->pairs.n;
    kept_pairs += check_and_remember(&sim->pairs, &pairs, &n_pairs, &rng);
    kept_walls +=
        check_and_remember(&sim->wall_contacts, &walls, &n_walls, &rng);
  }
  ck_assert_int_eq(sim->nb.sorts, sorts + 10);
  /* A test of something: many kept, many new. */
  ck_assert_uint_gt(kept_pairs, seen_pairs / 4);
  ck_assert_uint_lt(kept_pairs, seen_pairs * 9 / 10);
  ck_assert_uint_gt(kept_walls, 100);
  free(pairs), free(walls);
  fixture_end(&f);
  omp_set_num_threads(saved);
}
END_TEST

/* ---- what the build keeps of each pair -------------------------------- */

/* Rods and dumbbells (three radii, two densities): every pair's R*, m*
 * and rolling inertia as the build keeps them, against their
 * definitions (1/R* = 1/r_i + 1/r_j, 1/m* = 1/m_i + 1/m_j, and Ai et
 * al.'s 1/I = 1/(I_i + m_i r_i^2) + 1/(I_j + m_j r_j^2) with I = 2/5 m
 * r^2), after the first build and after a spatial re-sort and rebuild. */
static const char *mixed_yaml =
    "simulation: {time_step: 3.8e-5, end_time: 1.0, seed: "
    "11}\n" FIXTURE_RODS_AND_DUMBBELLS
    "particles: [{random_fill: {shape: rod, count: 900, speed: 3.0}}, "
    "{random_fill: {shape: dumbbell, count: 300, speed: 3.0}}]\n"
    "domain: {box: {min: [0, 0, 0], max: [1.5, 1.5, 1.5]}, wall_material: "
    "glass}\n"
    "contact: {skin: 0.02}\n";

static void check_pair_constants(const struct dem_sim *sim, int *kinds) {
  const struct dem_contact_list *c = &sim->pairs;
  ck_assert_uint_gt(c->n, 100);
  for (size_t k = 0; k < c->n; k++) {
    const int i = c->ij[k][0], j = c->ij[k][1];
    const double ri = sim->s.radius[i], rj = sim->s.radius[j];
    const double mi = sim->b.mass[sim->s.body[i]],
                 mj = sim->b.mass[sim->s.body[j]];
    const double ii = (0.4 + 1.0) * mi * ri * ri,
                 ij = (0.4 + 1.0) * mj * rj * rj;
    const double want[3] = {1 / (1 / ri + 1 / rj), 1 / (1 / mi + 1 / mj),
                            1 / (1 / ii + 1 / ij)};
    const double got[3] = {c->rstar[k], c->mstar[k], c->inertia[k]};
    const char *what[3] = {"R*", "m*", "rolling inertia"};
    for (int q = 0; q < 3; q++)
      ck_assert_msg(fabs(got[q] - want[q]) <= 1e-14 * want[q],
                    "pair %zu: %s %.17g, expected %.17g", k, what[q], got[q],
                    want[q]);
    kinds[(ri == rj) + 2 * (mi == mj)] = 1;
  }
}

START_TEST(the_build_keeps_each_pairs_constants) {
  struct fixture f;
  memset(&f, 0, sizeof f);
  ck_assert_int_eq(dem_config_load_string("test.yaml", mixed_yaml, &f.cfg),
                   DEM_OK);
  ck_assert_msg(dem_setup(f.cfg, &f.sim, &f.out) == DEM_OK, "%s",
                dem_last_error());
  struct dem_sim *sim = &f.sim;
  int kinds[4] = {0};
  ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
  check_pair_constants(sim, kinds);
  ck_assert_int_eq(dem_body_order_sort(sim), DEM_OK);
  ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
  check_pair_constants(sim, kinds);
  /* pairs of unequal radii and of unequal masses among them */
  ck_assert(kinds[0] && kinds[3]);
  fixture_end(&f);
}
END_TEST

/* ---- the loops' accounting of dissipated work ------------------------ */

/* The linear spring again, reporting a work of 1 (damping) at every
 * evaluation and 1 (friction) when its spheres part, and counting both
 * itself: what the loops add to the spheres' dissipated work must be
 * exactly those counts, whatever the blocks, threads and rebuilds. */
static long ledger_kernels, ledger_releases;

static inline void ledger_kernel(const void *params, const struct dem_pair *g,
                                 double *state, struct dem_pair_result *r) {
  linear_kernel(params, g, state, r);
  r->work[DEM_DISSIPATION_DAMPING] = 1.0;
  r->work[DEM_DISSIPATION_FRICTION] = r->work[DEM_DISSIPATION_ROLLING] = 0.0;
#pragma omp atomic
  ledger_kernels++;
}

static void ledger_release(const void *params, const struct dem_pair *g,
                           const double *state,
                           double work[DEM_N_DISSIPATION]) {
  work[DEM_DISSIPATION_FRICTION] = 1.0;
  work[DEM_DISSIPATION_DAMPING] = work[DEM_DISSIPATION_ROLLING] = 0.0;
#pragma omp atomic
  ledger_releases++;
}

enum { LEDGER_FLAGS = LINEAR_FLAGS | DEM_MODEL_DISSIPATIVE };

static void ledger_pairs(struct dem_sim *sim, double dt) {
  dem_contact_pairs_loop(sim, dt, ledger_kernel, NULL, ledger_release,
                         LEDGER_FLAGS);
}

static void ledger_walls(struct dem_sim *sim, double dt) {
  dem_contact_walls_loop(sim, dt, ledger_kernel, NULL, ledger_release,
                         LEDGER_FLAGS);
}

START_TEST(every_evaluation_and_parting_is_accounted_once) {
  int saved = omp_get_max_threads();
  omp_set_num_threads(2);
  struct dem_contact_model ledger = linear_model;
  ledger.name = "ledger";
  ledger.flags = LEDGER_FLAGS;
  ledger.pairs = ledger_pairs;
  ledger.walls = ledger_walls;
  ledger.release = ledger_release;
  struct fixture f;
  memset(&f, 0, sizeof f);
  dem_status st = dem_config_load_string("test.yaml", rods_yaml, &f.cfg);
  if (!st)
    st = dem_setup(f.cfg, &f.sim, &f.out);
  if (!st)
    st = dem_contact_law_init(&f.sim, &ledger, NULL);
  if (!st)
    st = dem_setup_pipeline(f.cfg, &f.sim, &f.pipeline);
  if (!st)
    st = dem_neighbors_build(&f.sim);
  ledger_kernels = ledger_releases = 0;
  if (!st)
    st = dem_pipeline_initial_forces(f.pipeline, &f.sim);
  ck_assert_msg(st == DEM_OK, "setup failed: %s", dem_last_error());
  dem_pipeline_start(f.pipeline, &f.sim);
  fixture_steps(&f, 2000);
  double sum[DEM_N_DISSIPATION];
  dem_contact_dissipated(&f.sim, sum);
  ck_assert_msg(ledger_releases > 200 && ledger_kernels > 10000,
                "%ld partings, %ld evaluations: a weak test", ledger_releases,
                ledger_kernels);
  ck_assert_double_eq(sum[DEM_DISSIPATION_DAMPING], (double)ledger_kernels);
  ck_assert_double_eq(sum[DEM_DISSIPATION_FRICTION], (double)ledger_releases);
  ck_assert_double_eq(sum[DEM_DISSIPATION_ROLLING], 0.0);
  fixture_end(&f);
  omp_set_num_threads(saved);
}
END_TEST

/* ---- the touching contacts as the loop lists them ------------------- */

/* Chunk by chunk (dem_owner_chunk), c->touched_at must hold the places
 * of exactly the contacts with `touched` set, ascending, then SIZE_MAX
 * where the chunk has room. Returns how many touch; counts the chunks. */
static size_t check_touched_list(const struct dem_contact_list *c,
                                 size_t *chunks_seen) {
  const size_t chunks = dem_chunks(c);
  size_t touching = 0;
  for (size_t j = 0; j < chunks; j++) {
    size_t k0, k1, e;
    dem_owner_chunk((const int(*)[2])c->ij, c->n, j, c->chunk, &k0, &k1);
    e = k0;
    for (size_t k = k0; k < k1; k++) {
      if (!c->touched[k])
        continue;
      ck_assert_msg(e < k1 && c->touched_at[e] == k,
                    "chunk %zu: contact %zu touches, not listed in order", j,
                    k);
      e++;
      touching++;
    }
    if (e < k1)
      ck_assert_msg(c->touched_at[e] == SIZE_MAX,
                    "chunk %zu: its list of %zu does not end", j, e - k0);
  }
  *chunks_seen += chunks;
  return touching;
}

/* The rods box with more rods and a wider skin: several chunks of pairs. */
static const char *rods_many_yaml =
    "simulation: {time_step: 3.8e-5, end_time: 1.0, seed: 12}\n" RODS_SHAPE
    "particles: [{random_fill: {shape: rod, count: 1200, speed: 3.0, "
    "angular_speed: 30}}]\n" RODS_BOX "contact: {skin: 0.05}\n";

/* After each of 200 steps of that box, on 1 and on 2 threads (each
 * thread its share of the chunks), for the pairs and the walls. */
START_TEST(touching_contacts_are_listed_chunk_by_chunk) {
  int saved = omp_get_max_threads();
  for (int threads = 1; threads <= 2; threads++) {
    omp_set_num_threads(threads);
    struct fixture f;
    start_linear(&f, rods_many_yaml);
    size_t pairs = 0, walls = 0, chunks = 0, steps = 200;
    for (size_t step = 0; step < steps; step++) {
      fixture_steps(&f, 1);
      pairs += check_touched_list(&f.sim.pairs, &chunks);
      walls += check_touched_list(&f.sim.wall_contacts, &chunks);
    }
    ck_assert_msg(pairs > 1000 && walls > 50 && chunks > 3 * steps,
                  "%zu touching pairs, %zu walls, %zu chunks: a weak test",
                  pairs, walls, chunks);
    fixture_end(&f);
  }
  omp_set_num_threads(saved);
}
END_TEST

/* dem_chunk_size: chunks of at most DEM_CHUNK contacts, as many for each
 * thread, so that each thread's static share of them (contiguous, as
 * `schedule(static)` gives) holds its share of the contacts to within a
 * chunk's rounding; whole chunks of DEM_CHUNK gave one thread of two up
 * to a chunk more. */
START_TEST(chunks_are_as_many_on_each_thread) {
  static const size_t sizes[] = {513, 2049, 6600, 7150, 9683, 100001};
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
    for (size_t threads = 1; threads <= 4; threads++) {
      const size_t n = sizes[a], size = dem_chunk_size(n, threads);
      const size_t chunks = (n + size - 1) / size;
      ck_assert(size >= 1 && size <= DEM_CHUNK);
      ck_assert_msg(chunks % threads == 0,
                    "%zu contacts, %zu threads: %zu "
                    "chunks of %zu",
                    n, threads, chunks, size);
      const size_t per = chunks / threads;
      for (size_t t = 0; t < threads; t++) {
        size_t lo = t * per * size, hi = (t + 1) * per * size;
        lo = lo < n ? lo : n, hi = hi < n ? hi : n;
        const double share = (double)n / (double)threads;
        /* each chunk rounds up by less than one contact; the last
         * thread's share takes what the others' rounding left */
        ck_assert_msg(fabs((double)(hi - lo) - share) <=
                          (double)(threads * per),
                      "%zu contacts, thread %zu of %zu: %zu of them", n, t,
                      threads, hi - lo);
      }
    }
}
END_TEST

static Suite *contacts_suite(void) {
  Suite *s = suite_create("contacts");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, a_model_from_test_code_runs);
  tcase_add_test(tc, histories_survive_rebuilds_and_sorts);
  tcase_add_test(tc, the_build_keeps_each_pairs_constants);
  tcase_add_test(tc, every_evaluation_and_parting_is_accounted_once);
  tcase_add_test(tc, touching_contacts_are_listed_chunk_by_chunk);
  tcase_add_test(tc, chunks_are_as_many_on_each_thread);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(contacts_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
