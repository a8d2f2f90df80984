/* gather_forces (sim/forces.c) against the sums written out here, one
 * body at a time: the same bits with every instruction set, rods four at
 * a time (AVX2) or not, with gravity, sphere torques, zero and -0 forces,
 * and bodies of two and four spheres among the rods. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/isa.h"
#include "core/rng.h"
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

static void release(struct case_ *m) {
  struct dem_sim *sim = &m->sim;
  free(sim->b.first_member), free(sim->b.x), free(sim->b.mass);
  free(sim->b.force), free(sim->b.torque), free(sim->s.x);
  free(sim->s.force), free(sim->s.torque), free(m->force), free(m->torque);
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

int main(void) {
  Suite *s = suite_create("gather");
  TCase *tc = tcase_create("core");
  /* every instruction set the CPU runs, without and with sphere torques,
   * few or all spheres with a contact */
  tcase_add_loop_test(tc, gather_gives_the_sums_one_body_at_a_time, 0,
                      4 * (DEM_ISA_AVX512 + 1));
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
