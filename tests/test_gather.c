/* gather_forces (sim/forces.c) against the sums written out here, one
 * body at a time: the same bits with every instruction set, rods four at
 * a time (AVX2) or not, with gravity, sphere torques, zero and -0 forces,
 * and bodies of two and four spheres among the rods; with the bodies
 * with a force marked (dem_spheres.forces_marked) the same, and only the
 * marked bodies' spheres read. And in runs: after every sparse contact
 * gather each sphere with a force belongs to a marked body, and runs are
 * bitwise the same with the marks and without. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "core/isa.h"
#include "core/rng.h"
#include "same_state.h"
#include "sim/forces.h"

/* Bodies 10 and 11 have two and four spheres (their four of bodies has
 * twelve), the others three. */
enum { NB = 23 };

struct case_ {
  struct dem_sim sim;
  double (*force)[3], (*torque)[3]; /* the bodies' sums, expected */
};

/* Sphere k's share, as the gather adds it: nothing when its force is
 * zero (either sign) and it turns by no torque of its own. */
static void add_share(const struct dem_spheres *s, const double xb[3], size_t k,
                      int torques, double f[3], double t[3]) {
  const double *fk = s->force[k], *tk = s->torque[k];
  const int turns = torques && (tk[0] != 0 || tk[1] != 0 || tk[2] != 0);
  if (fk[0] == 0 && fk[1] == 0 && fk[2] == 0 && !turns)
    return;
  const double a[3] = {s->x[k][0] - xb[0], s->x[k][1] - xb[1],
                       s->x[k][2] - xb[2]};
  for (int c = 0; c < 3; c++)
    f[c] = f[c] + fk[c];
  const double cx = a[1] * fk[2] - a[2] * fk[1],
               cy = a[2] * fk[0] - a[0] * fk[2],
               cz = a[0] * fk[1] - a[1] * fk[0];
  t[0] = t[0] + cx, t[1] = t[1] + cy, t[2] = t[2] + cz;
  if (turns)
    for (int c = 0; c < 3; c++)
      t[c] = t[c] + tk[c];
}

/* Forces on some spheres only: whole fours of bodies without any (where
 * the rods kernel takes its short way), single spheres with one, -0
 * components, and torques on spheres without force. */
static void make(struct case_ *m, uint64_t seed, int torques) {
  struct dem_rng r;
  dem_rng_seed(&r, seed);
  memset(m, 0, sizeof *m);
  struct dem_sim *sim = &m->sim;
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  size_t n = 0;
  b->n = NB;
  b->first_member = malloc((NB + 1) * sizeof *b->first_member);
  for (size_t k = 0; k < NB; k++) {
    b->first_member[k] = n;
    n += k == 10 ? 2 : k == 11 ? 4 : 3;
  }
  b->first_member[NB] = n;
  s->n = n;
  b->x = malloc(NB * sizeof *b->x);
  b->mass = malloc(NB * sizeof *b->mass);
  b->force = malloc(NB * sizeof *b->force);
  b->torque = malloc(NB * sizeof *b->torque);
  m->force = malloc(NB * sizeof *m->force);
  m->torque = malloc(NB * sizeof *m->torque);
  s->x = malloc(n * sizeof *s->x);
  s->force = calloc(n, sizeof *s->force);
  s->torque = calloc(n, sizeof *s->torque);
  sim->gravity[0] = 0.3, sim->gravity[1] = -9.81, sim->gravity[2] = 1.7;
  sim->pairs.has_torque = torques;
  for (size_t k = 0; k < NB; k++) {
    b->mass[k] = 0.5 + dem_rng_uniform(&r);
    for (int c = 0; c < 3; c++) {
      b->x[k][c] = 4 * dem_rng_uniform(&r) - 2;
      b->force[k][c] = k % 5 == 1 ? -0.0 : dem_rng_uniform(&r) - 0.5;
      b->torque[k][c] = k % 5 == 2 ? -0.0 : dem_rng_uniform(&r) - 0.5;
    }
  }
  for (size_t i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++)
      s->x[i][c] = 4 * dem_rng_uniform(&r) - 2;
    /* bodies 4-7 (spheres 12-23) without force or torque, bodies 16-19
     * (spheres 48-59) with a force on the last component only (and a
     * torque on sphere 49) */
    if (i >= 12 && i < 24)
      continue;
    if (i == 59)
      s->force[i][2] = 0.25;
    if (i < 48 || i >= 60) {
      if (i % 4 == 0)
        for (int c = 0; c < 3; c++)
          s->force[i][c] = dem_rng_uniform(&r) - 0.5;
      if (i % 7 == 3)
        s->force[i][1] = -0.0; /* a zero force of either sign */
    }
    if (i % 11 == 5)
      for (int c = 0; c < 3; c++)
        s->torque[i][c] = dem_rng_uniform(&r) - 0.5;
  }
  for (size_t k = 0; k < NB; k++) {
    double f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
    for (size_t i = b->first_member[k]; i < b->first_member[k + 1]; i++)
      add_share(s, b->x[k], i, torques, f, t);
    for (int c = 0; c < 3; c++) {
      f[c] = f[c] + b->mass[k] * sim->gravity[c];
      m->force[k][c] = b->force[k][c] + f[c];
      m->torque[k][c] = b->torque[k][c] + t[c];
    }
  }
}

/* Whether sphere i holds a force or a torque (either sign of zero is
 * none). */
static int holds_force(const struct dem_spheres *s, size_t i, int torques) {
  for (int c = 0; c < 3; c++)
    if (s->force[i][c] != 0 || (torques && s->torque[i][c] != 0))
      return 1;
  return 0;
}

/* Marks every body with a force (and, needlessly, every sixth), as the
 * sparse contact gather leaves them, but `skip` (-1: none). */
static void mark(struct case_ *m, int torques, long skip) {
  struct dem_sim *sim = &m->sim;
  sim->b.forced = calloc(NB, sizeof *sim->b.forced);
  for (size_t k = 0; k < NB; k++) {
    for (size_t i = sim->b.first_member[k]; i < sim->b.first_member[k + 1]; i++)
      sim->b.forced[k] |= holds_force(&sim->s, i, torques);
    sim->b.forced[k] |= k % 6 == 0;
    if ((long)k == skip)
      sim->b.forced[k] = 0;
  }
  sim->s.forces_marked = 1;
}

static void release(struct case_ *m) {
  struct dem_sim *sim = &m->sim;
  free(sim->b.forced);
  free(sim->b.first_member), free(sim->b.x), free(sim->b.mass);
  free(sim->b.force), free(sim->b.torque), free(sim->s.x);
  free(sim->s.force), free(sim->s.torque), free(m->force), free(m->torque);
  dem_scratch_release(&sim->nb.scratch);
}

START_TEST(gather_gives_the_sums_one_body_at_a_time) {
  dem_isa_limit((enum dem_isa)(_i / 4));
  const int torques = _i % 2, dense = _i / 2 % 2;
  struct case_ m;
  make(&m, 21 + (uint64_t)_i, torques);
  /* spheres with a contact: few, or all (the rods kernel then gathers a
   * four with a force without testing its members) */
  m.sim.nb.n_active = dense ? m.sim.s.n : 0;
  dem_forces_gather(&m.sim);
  ck_assert_mem_eq(m.sim.b.force, m.force, NB * sizeof *m.force);
  ck_assert_mem_eq(m.sim.b.torque, m.torque, NB * sizeof *m.torque);
  for (size_t i = 0; i < m.sim.s.n; i++)
    for (int c = 0; c < 3; c++) {
      ck_assert(m.sim.s.force[i][c] == 0); /* moved */
      if (torques)
        ck_assert(m.sim.s.torque[i][c] == 0);
    }
  dem_isa_limit(DEM_ISA_AVX512);
  release(&m);
}
END_TEST

/* With the marks: the same sums, every sphere's force moved, every mark
 * cleared. */
START_TEST(marked_bodies_give_the_same_sums) {
  dem_isa_limit((enum dem_isa)(_i / 2));
  const int torques = _i % 2;
  struct case_ m;
  make(&m, 41 + (uint64_t)_i, torques);
  mark(&m, torques, -1);
  dem_forces_gather(&m.sim);
  ck_assert_mem_eq(m.sim.b.force, m.force, NB * sizeof *m.force);
  ck_assert_mem_eq(m.sim.b.torque, m.torque, NB * sizeof *m.torque);
  for (size_t i = 0; i < m.sim.s.n; i++)
    ck_assert(!holds_force(&m.sim.s, i, torques));
  for (size_t k = 0; k < NB; k++)
    ck_assert_int_eq(m.sim.b.forced[k], 0);
  ck_assert_int_eq(m.sim.s.forces_marked, 1);
  dem_isa_limit(DEM_ISA_AVX512);
  release(&m);
}
END_TEST

/* An unmarked body's spheres are not read: it gets m g and +0 as if they
 * held no force, and theirs stay. (So a body the contact gather failed to
 * mark would lose its force: the runs below would differ.) */
START_TEST(an_unmarked_body_is_not_read) {
  dem_isa_limit((enum dem_isa)(_i / 2));
  const int torques = _i % 2;
  struct case_ m;
  make(&m, 61 + (uint64_t)_i, torques);
  const long k = 20; /* a rod with a force on its sphere 60 */
  ck_assert(holds_force(&m.sim.s, 60, torques));
  double f0[3], t0[3], s60[3];
  memcpy(f0, m.sim.b.force[k], sizeof f0);
  memcpy(t0, m.sim.b.torque[k], sizeof t0);
  memcpy(s60, m.sim.s.force[60], sizeof s60);
  mark(&m, torques, k);
  dem_forces_gather(&m.sim);
  for (int c = 0; c < 3; c++) {
    ck_assert(m.sim.b.force[k][c] ==
              f0[c] + (0.0 + m.sim.b.mass[k] * m.sim.gravity[c]));
    ck_assert(m.sim.b.torque[k][c] == t0[c] + 0.0);
  }
  ck_assert_mem_eq(m.sim.s.force[60], s60, sizeof s60);
  for (long j = 0; j < NB; j++)
    if (j != k) {
      ck_assert_mem_eq(m.sim.b.force[j], m.force[j], sizeof *m.force);
      ck_assert_mem_eq(m.sim.b.torque[j], m.torque[j], sizeof *m.torque);
    }
  dem_isa_limit(DEM_ISA_AVX512);
  release(&m);
}
END_TEST

/* With the weights in place (dem_bodies.weighed: each body's force
 * +0 + (+0 + m g) and its torque +0, as reset_forces writes them when
 * gather_forces follows) and the marks: every body gets the sums it would
 * get from a force and torque of +0, the marked ones set from their
 * members (only those listed and read), the others left with their
 * weights; every sphere's force moved, every mark and `weighed`
 * cleared. */
START_TEST(weighed_bodies_give_the_sums_from_zero) {
  dem_isa_limit((enum dem_isa)(_i / 2));
  const int torques = _i % 2;
  struct case_ m;
  make(&m, 81 + (uint64_t)_i, torques);
  struct dem_bodies *b = &m.sim.b;
  for (size_t k = 0; k < NB; k++) {
    double f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
    for (size_t i = b->first_member[k]; i < b->first_member[k + 1]; i++)
      add_share(&m.sim.s, b->x[k], i, torques, f, t);
    for (int c = 0; c < 3; c++) {
      const double g = b->mass[k] * m.sim.gravity[c];
      m.force[k][c] = 0.0 + (f[c] + g);
      m.torque[k][c] = 0.0 + t[c];
      b->force[k][c] = 0.0 + (0.0 + g);
      b->torque[k][c] = 0.0;
    }
  }
  mark(&m, torques, -1);
  b->weighed = 1;
  dem_forces_gather(&m.sim);
  ck_assert_mem_eq(b->force, m.force, NB * sizeof *m.force);
  ck_assert_mem_eq(b->torque, m.torque, NB * sizeof *m.torque);
  for (size_t i = 0; i < m.sim.s.n; i++)
    ck_assert(!holds_force(&m.sim.s, i, torques));
  for (size_t k = 0; k < NB; k++)
    ck_assert_int_eq(b->forced[k], 0);
  ck_assert_int_eq(b->weighed, 0);
  dem_isa_limit(DEM_ISA_AVX512);
  release(&m);
}
END_TEST

/* 600 rods in a box, dilute enough for the sparse contact gather. */
static const char *rods_yaml =
    "simulation: {time_step: 2.0e-5, end_time: 1.0, seed: "
    "5}\n" FIXTURE_RODS_AND_DUMBBELLS
    "particles: [{random_fill: {shape: rod, count: 600, speed: 3.0, "
    "angular_speed: 6.0}}]\n"
    "domain: {box: {min: [0, 0, 0], max: [1.6, 1.6, 1.6]}, "
    "wall_material: glass}\n"
    "contact: {skin: 0.005}\n";

/* `steps` steps; with `check`, after each the contact forces once more
 * (hertz keeps no history: the same forces), and every sphere holding one
 * then belongs to a marked body; returns how many of those evaluations
 * were sparse (marked). With `off`, the marks are dropped after every
 * step: gather_forces then reads every sphere. */
static long run_rods(struct fixture *f, int off, int check, long steps) {
  fixture_start(f, rods_yaml, NULL);
  struct dem_sim *sim = &f->sim;
  long marked = 0;
  for (long i = 0; i < steps; i++) {
    fixture_steps(f, 1);
    if (off)
      sim->s.forces_marked = 0;
    if (!check)
      continue;
    dem_contact_forces(sim, sim->dt);
    if (!sim->s.forces_marked)
      continue;
    marked++;
    for (size_t s = 0; s < sim->s.n; s++)
      if (holds_force(&sim->s, s, sim->pairs.has_torque))
        ck_assert_int_ne(sim->b.forced[sim->s.body[s]], 0);
  }
  return marked;
}

START_TEST(contact_gather_marks_every_body_it_adds_to) {
  struct fixture f;
  const long steps = 400;
  long marked = run_rods(&f, 0, 1, steps);
  ck_assert_int_gt(marked, steps / 2); /* the sparse gather, mostly */
  size_t forced = 0;
  for (size_t k = 0; k < f.sim.b.n; k++)
    forced += f.sim.b.forced[k] != 0;
  ck_assert_uint_gt(forced, 0);
  fixture_end(&f);
}
END_TEST

START_TEST(runs_are_the_same_with_the_marks_and_without) {
  struct fixture a, b;
  run_rods(&a, 0, 0, 1500);
  run_rods(&b, 1, 0, 1500);
  ck_assert_uint_gt(a.sim.pairs.n, 0);
  assert_same_and_end(&a, &b, SAME_SPHERE_FORCE);
}
END_TEST

int main(void) {
  Suite *s = suite_create("gather");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  /* every instruction set the CPU runs, without and with sphere torques,
   * few or all spheres with a contact */
  tcase_add_loop_test(tc, gather_gives_the_sums_one_body_at_a_time, 0,
                      4 * (DEM_ISA_AVX512 + 1));
  tcase_add_loop_test(tc, marked_bodies_give_the_same_sums, 0,
                      2 * (DEM_ISA_AVX512 + 1));
  tcase_add_loop_test(tc, an_unmarked_body_is_not_read, 0,
                      2 * (DEM_ISA_AVX512 + 1));
  tcase_add_loop_test(tc, weighed_bodies_give_the_sums_from_zero, 0,
                      2 * (DEM_ISA_AVX512 + 1));
  tcase_add_test(tc, contact_gather_marks_every_body_it_adds_to);
  tcase_add_test(tc, runs_are_the_same_with_the_marks_and_without);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
