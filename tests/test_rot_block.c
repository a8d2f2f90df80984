/* The SIMD block kernels of the rotation schemes against their per-body
 * functions: bitwise the same q, w, aux and synchronised w, every body. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/isa.h"
#include "core/quat.h"
#include "core/rng.h"
#include "operators/rot_bodies.h"
#include "scheme_names.h"

/* 3 full blocks and a short one of 5. */
enum { NB = 3 * DEM_ROT_LANES + 5 };
static const double dt = 2e-3;

struct bodies {
  struct dem_bodies b;
  double q[NB][4], w[NB][3], torque[NB][3], inertia[NB][3];
  double aux[NB * DEM_ROT_AUX], w_contact[NB][3], w_move[NB][3];
};

static void point(struct bodies *x) {
  memset(&x->b, 0, sizeof x->b);
  x->b.n = NB;
  x->b.q = x->q;
  x->b.w = x->w;
  x->b.torque = x->torque;
  x->b.inertia = x->inertia;
  x->b.rot_aux = x->aux;
  x->b.w_contact = x->w_contact;
  x->b.w_move = x->w_move;
}

static double sym(struct dem_rng *r) { return 2.0 * dem_rng_uniform(r) - 1.0; }

/* Random bodies: q near unit (not exactly), moments 0.5-2, torques of
 * either sign, aux any values; every third body spins fast enough that
 * dt |w| / 2 > 1e-2, where exp takes sin and cos (lanes redo it), and
 * every fourth body's torque is large (spiral's second factor). */
static void fill(struct bodies *x, unsigned long seed) {
  struct dem_rng r;
  dem_rng_seed(&r, seed);
  point(x);
  for (int i = 0; i < NB; i++) {
    double a[3] = {sym(&r), sym(&r), sym(&r)};
    q_from_axis_angle(x->q[i], a, 3.0 * sym(&r));
    for (int c = 0; c < 4; c++)
      x->q[i][c] *= 1.0 + 1e-6 * sym(&r);
    double spin = i % 3 == 1 ? 40.0 : 3.0;
    double load = i % 4 == 2 ? 1e4 : 1.0;
    for (int c = 0; c < 3; c++) {
      x->w[i][c] = spin * sym(&r);
      x->torque[i][c] = load * sym(&r);
      x->inertia[i][c] = 0.5 + 1.5 * dem_rng_uniform(&r);
      x->w_contact[i][c] = x->w_move[i][c] = 0.0;
    }
    for (int c = 0; c < DEM_ROT_AUX; c++)
      x->aux[i * DEM_ROT_AUX + c] = sym(&r);
  }
}

static void copy(struct bodies *to, const struct bodies *from) {
  memcpy(to, from, sizeof *to);
  point(to);
}

static void check_same(const struct bodies *a, const struct bodies *b,
                       int n_aux, const char *what) {
  for (int i = 0; i < NB; i++) {
    ck_assert_msg(memcmp(a->q[i], b->q[i], sizeof a->q[i]) == 0,
                  "%s: body %d: q differs", what, i);
    ck_assert_msg(memcmp(a->w[i], b->w[i], sizeof a->w[i]) == 0,
                  "%s: body %d: w differs", what, i);
    ck_assert_msg(memcmp(a->aux + i * DEM_ROT_AUX, b->aux + i * DEM_ROT_AUX,
                         (size_t)n_aux * sizeof(double)) == 0,
                  "%s: body %d: aux differs", what, i);
  }
}

typedef void (*per_body_fn)(struct dem_rot_state *, const double[3],
                            const double[3], double);

/* The per-body reference, as push_rotation ran it before blocks. */
static void reference(const struct dem_rotation_integrator *rot, per_body_fn f,
                      struct bodies *x, int i0, int i1, int normalise) {
  for (int i = i0; i < i1; i++) {
    struct dem_rot_state s;
    dem_body_rot_load(&x->b, (size_t)i, &s, rot->aux_size);
    f(&s, x->inertia[i], x->torque[i], dt);
    if (normalise)
      q_normalize(s.q);
    dem_body_rot_store(&x->b, (size_t)i, &s, rot->aux_size);
  }
}

static int n_checked;

static void check_scheme(const struct dem_rotation_integrator *rot,
                         enum dem_isa isa) {
  const enum dem_rot_fn fns[] = {DEM_ROT_START, DEM_ROT_BEFORE, DEM_ROT_AFTER};
  const per_body_fn f[] = {rot->start, rot->before_force, rot->after_force};
  /* The whole range, and one starting and ending inside blocks. */
  const int ranges[][2] = {{0, NB}, {3, NB - 2}};
  char what[160];
  for (int k = 0; k < 3; k++) {
    if (!f[k])
      continue;
    for (int normalise = 0; normalise <= (k == 1); normalise++)
      for (int g = 0; g < 2; g++) {
        static struct bodies a, b;
        fill(&a, 7 + (unsigned long)(3 * k + g));
        copy(&b, &a);
        int i0 = ranges[g][0], i1 = ranges[g][1];
        reference(rot, f[k], &a, i0, i1, normalise);
        dem_rot_bodies_advance(rot, fns[k], &b.b, (size_t)i0, (size_t)i1, dt,
                               normalise, isa);
        snprintf(what, sizeof what, "%s %s, fn %d, normalise %d, [%d, %d)",
                 rot->name, dem_isa_name(isa), k, normalise, i0, i1);
        check_same(&a, &b, DEM_ROT_AUX, what);
        n_checked++;
      }
  }
  /* Synchronised w, and the lab angular velocities for contacts. */
  static struct bodies x;
  fill(&x, 99);
  double ref[NB][3], got[NB][3];
  memset(got, 0, sizeof got);
  for (int i = 0; i < NB; i++) {
    struct dem_rot_state s;
    dem_body_rot_load(&x.b, (size_t)i, &s, rot->aux_size);
    if (rot->sync)
      rot->sync(&s, x.inertia[i], x.torque[i], dt, ref[i]);
    else
      v3_copy(ref[i], x.w[i]);
  }
  dem_rot_bodies_sync(rot, &x.b, 2, NB, dt, got, isa);
  for (int i = 2; i < NB; i++)
    ck_assert_msg(memcmp(ref[i], got[i], sizeof ref[i]) == 0,
                  "%s %s: sync of body %d differs", rot->name,
                  dem_isa_name(isa), i);
  for (int sync = 0; sync <= 1; sync++) {
    dem_rot_bodies_lab(rot, sync, &x.b, 0, NB, dt, isa);
    for (int i = 0; i < NB; i++) {
      double wc[3], wm[3];
      q_rotate(wc, x.q[i], sync ? ref[i] : x.w[i]);
      q_rotate(wm, x.q[i], x.w[i]);
      ck_assert_msg(memcmp(wc, x.w_contact[i], sizeof wc) == 0 &&
                        memcmp(wm, x.w_move[i], sizeof wm) == 0,
                    "%s %s: lab w of body %d differs (sync %d)", rot->name,
                    dem_isa_name(isa), i, sync);
    }
  }
}

START_TEST(test_blocks_bitwise) {
  int with_block = 0;
  for (int v = 0; v < DEM_ISA_COUNT; v++) {
    if (!dem_isa_supported((enum dem_isa)v))
      continue;
    for (size_t s = 0; dem_rotation_integrators[s]; s++) {
      const struct dem_rotation_integrator *rot = dem_rotation_integrators[s];
      with_block += v == 0 && rot->block;
      check_scheme(rot, (enum dem_isa)v);
    }
  }
  /* Every named scheme but rk4 must have block kernels (the test fails
   * if one loses them); every scheme with kernels is checked above. */
  for (int i = 0; i < NSCHEMES; i++)
    ck_assert_msg(strcmp(scheme_names[i], "rk4") == 0 ||
                      dem_rotation_find(scheme_names[i])->block,
                  "%s has no block kernels", scheme_names[i]);
  ck_assert_int_gt(with_block, 0);
  ck_assert_int_gt(n_checked, 0);
}
END_TEST

/* The data does take both branches of exp: slow bodies (series) and fast
 * ones (sin and cos), so lanes are redone per body in the test above. */
START_TEST(test_fill_has_both_angles) {
  static struct bodies x;
  int slow = 0, fast = 0;
  fill(&x, 7);
  for (int i = 0; i < NB; i++) {
    double a = 0.5 * dt * v3_norm(x.w[i]);
    slow += a < 5e-3;
    fast += a > 2e-2;
  }
  ck_assert_int_gt(slow, 8);
  ck_assert_int_gt(fast, 4);
}
END_TEST

START_TEST(test_isa_choice) {
  ck_assert(dem_isa_supported(DEM_ISA_BASE));
  ck_assert(dem_isa_supported(dem_isa_best()));
  ck_assert_str_eq(dem_isa_name(DEM_ISA_AVX2), "avx2");
}
END_TEST

/* Check runs each test in its own process: the choice is made here. */
START_TEST(test_isa_cap) {
  const char *fork = getenv("CK_FORK");
  if (fork && strcmp(fork, "no") == 0)
    return; /* the choice may be made already */
  setenv("DEM_ISA", "base", 1);
  ck_assert_int_eq(dem_isa_best(), DEM_ISA_BASE);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rot_block");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_blocks_bitwise);
  tcase_add_test(tc, test_fill_has_both_angles);
  tcase_add_test(tc, test_isa_choice);
  tcase_add_test(tc, test_isa_cap);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
