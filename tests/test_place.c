/* Spheres placed in vector lanes (sim/place.c) land on exactly the bits
 * of the one-at-a-time placement (q_rotate, then the sum), and measure
 * the same largest displacement and the same escapes. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/isa.h"
#include "core/rng.h"
#include "sim/near.h"
#include "sim/place.h"

enum { N_BODIES = 61 };

/* Bodies of 1 to 9 spheres (so that lanes straddle bodies and every
 * remainder of a vector occurs), poses with quaternions of any length
 * (SPIRAL does not normalise), build positions near the spheres. */
struct system {
  struct dem_bodies b;
  struct dem_spheres s;
  double (*ref)[3], *d2;
};

/* N_BODIES bodies of 1 to 9 spheres, or (rods) of three. */
static void make_of(struct system *m, uint64_t seed, int rods) {
  struct dem_rng r;
  dem_rng_seed(&r, seed);
  memset(m, 0, sizeof *m);
  size_t *first = malloc((N_BODIES + 1) * sizeof *first), n = 0;
  for (size_t k = 0; k < N_BODIES; k++) {
    first[k] = n;
    n += rods ? 3 : 1 + k % 9;
  }
  first[N_BODIES] = n;
  m->b.first_member = first;
  m->b.n = N_BODIES;
  m->b.x = malloc(N_BODIES * sizeof *m->b.x);
  m->b.q = malloc(N_BODIES * sizeof *m->b.q);
  m->s.n = n;
  m->s.x = malloc(n * sizeof *m->s.x);
  m->s.x_build = malloc(n * sizeof *m->s.x_build);
  m->s.offset = malloc(n * sizeof *m->s.offset);
  m->s.radius = malloc(n * sizeof *m->s.radius);
  m->s.body = malloc(n * sizeof *m->s.body);
  m->ref = malloc(n * sizeof *m->ref);
  m->d2 = malloc(n * sizeof *m->d2);
  for (size_t k = 0; k < N_BODIES; k++) {
    for (int a = 0; a < 3; a++)
      m->b.x[k][a] = 10 * dem_rng_uniform(&r) - 5;
    dem_rng_quaternion(&r, m->b.q[k]);
    double len = 0.9 + 0.2 * dem_rng_uniform(&r);
    for (int a = 0; a < 4; a++)
      m->b.q[k][a] *= len;
    for (size_t i = first[k]; i < first[k + 1]; i++) {
      m->s.body[i] = (int)k;
      m->s.radius[i] = 0.1 + 0.5 * dem_rng_uniform(&r);
      for (int a = 0; a < 3; a++) {
        m->s.offset[i][a] = 2 * dem_rng_uniform(&r) - 1;
        m->s.x_build[i][a] =
            m->b.x[k][a] + m->s.offset[i][a] + 0.3 * dem_rng_uniform(&r);
      }
    }
  }
}

static void make(struct system *m, uint64_t seed) { make_of(m, seed, 0); }

static void release(struct system *m) {
  free(m->b.first_member);
  free(m->b.x), free(m->b.q), free(m->s.x), free(m->s.x_build);
  free(m->s.offset), free(m->s.radius), free(m->s.body), free(m->ref);
  free(m->d2);
}

/* The reference: every sphere one at a time (dem_place_sphere, which
 * is q_rotate and v3_add), into ref and d2; s.x is garbage after. */
static void reference(struct system *m) {
  for (size_t i = 0; i < m->s.n; i++) {
    m->d2[i] = dem_place_sphere(&m->s, &m->b, i, (size_t)m->s.body[i]);
    memcpy(m->ref[i], m->s.x[i], sizeof m->ref[i]);
    m->s.x[i][0] = m->s.x[i][1] = m->s.x[i][2] = -1234.5;
  }
}

/* Whether sphere i lies entirely beyond one of the walls. */
static int beyond(const struct system *m, size_t i,
                  const struct dem_place_walls *w) {
  int out = 0;
  for (int a = 0; a < 3; a++)
    out |= m->ref[i][a] < w->lo[a] - m->s.radius[i] ||
           m->ref[i][a] > w->hi[a] + m->s.radius[i];
  return out;
}

START_TEST(every_copy_gives_the_same_bits) {
  dem_isa_limit((enum dem_isa)_i);
  struct system m;
  make(&m, 11 + (uint64_t)_i);
  reference(&m);
  const struct dem_place_walls w = {{-5, -5, -5}, {5, 5, 5}};
  double worst = 0, want = 0;
  int out = 0, beyond_any = 0;
  for (size_t i = 0; i < m.s.n; i++) {
    want = m.d2[i] > want ? m.d2[i] : want;
    beyond_any |= beyond(&m, i, &w);
  }
  dem_place_range(&m.s, &m.b, 0, m.s.n, &w, &worst, &out);
  ck_assert_mem_eq(m.s.x, m.ref, m.s.n * sizeof *m.ref);
  ck_assert_mem_eq(&worst, &want, sizeof want);
  ck_assert_int_eq(out, beyond_any);
  ck_assert_int_eq(beyond_any, 1); /* the box is smaller than the bodies' */
  /* every third sphere, of all bodies, by index */
  int *every = malloc(m.s.n * sizeof *every);
  size_t picked = 0;
  double most = 0, most_want = 0;
  int every_out = 0, every_want = 0;
  for (size_t i = 1; i < m.s.n; i += 3) {
    every[picked++] = (int)i;
    most_want = m.d2[i] > most_want ? m.d2[i] : most_want;
    every_want |= beyond(&m, i, &w);
  }
  memset(m.s.x, 0, m.s.n * sizeof *m.s.x);
  dem_place_list(&m.s, &m.b, every, picked, &w, &most, &every_out);
  for (size_t a = 0; a < picked; a++)
    ck_assert_mem_eq(m.s.x[every[a]], m.ref[every[a]], sizeof *m.ref);
  ck_assert_mem_eq(&most, &most_want, sizeof most);
  ck_assert_int_eq(every_out, every_want);
  free(every);
  int idx[9];
  for (size_t k = 0, i0 = 0; k < N_BODIES; k++) {
    size_t n = 1 + k % 9, picked = 0;
    for (size_t i = i0 + k % 2; i < i0 + n; i += 2)
      idx[picked++] = (int)i;
    memset(m.s.x + i0, 0, n * sizeof *m.s.x);
    dem_place_members(&m.s, &m.b, k, idx, 0, picked, &w, &worst, &out);
    for (size_t a = 0; a < picked; a++)
      ck_assert_mem_eq(m.s.x[idx[a]], m.ref[idx[a]], sizeof *m.ref);
    dem_place_members(&m.s, &m.b, k, NULL, i0, n, &w, &worst, &out);
    ck_assert_mem_eq(m.s.x + i0, m.ref + i0, n * sizeof *m.ref);
    i0 += n;
  }
  dem_isa_limit(DEM_ISA_AVX512);
  release(&m);
}
END_TEST

START_TEST(range_gives_the_bits_of_one_at_a_time) {
  struct system m;
  make(&m, 7);
  reference(&m);
  const struct dem_place_walls open = {{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL},
                                       {HUGE_VAL, HUGE_VAL, HUGE_VAL}};
  /* Every start and end modulo 8 lanes. */
  for (size_t i0 = 0; i0 < 9; i0++)
    for (size_t i1 = m.s.n - 9; i1 <= m.s.n; i1++) {
      double worst = 0, want = 0;
      int out = 0;
      for (size_t i = i0; i < i1; i++)
        want = m.d2[i] > want ? m.d2[i] : want;
      dem_place_range(&m.s, &m.b, i0, i1, &open, &worst, &out);
      ck_assert_mem_eq(m.s.x + i0, m.ref + i0, (i1 - i0) * sizeof *m.ref);
      ck_assert_mem_eq(&worst, &want, sizeof want);
      ck_assert_int_eq(out, 0);
    }
  release(&m);
}
END_TEST

START_TEST(members_give_the_bits_of_one_at_a_time) {
  struct system m;
  make(&m, 8);
  reference(&m);
  const struct dem_place_walls open = {{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL},
                                       {HUGE_VAL, HUGE_VAL, HUGE_VAL}};
  int idx[9];
  for (size_t k = 0, i0 = 0; k < N_BODIES; k++) {
    size_t n = 1 + k % 9, picked = 0;
    double worst = 0, want = 0;
    int out = 0;
    /* all members, contiguous */
    for (size_t i = i0; i < i0 + n; i++)
      want = m.d2[i] > want ? m.d2[i] : want;
    dem_place_members(&m.s, &m.b, k, NULL, i0, n, &open, &worst, &out);
    ck_assert_mem_eq(m.s.x + i0, m.ref + i0, n * sizeof *m.ref);
    ck_assert_mem_eq(&worst, &want, sizeof want);
    /* every other member, by index */
    for (size_t i = i0; i < i0 + n; i++)
      m.s.x[i][0] = -1234.5;
    worst = want = 0;
    for (size_t i = i0 + k % 2; i < i0 + n; i += 2) {
      idx[picked++] = (int)i;
      want = m.d2[i] > want ? m.d2[i] : want;
    }
    dem_place_members(&m.s, &m.b, k, idx, 0, picked, &open, &worst, &out);
    for (size_t a = 0; a < picked; a++)
      ck_assert_mem_eq(m.s.x[idx[a]], m.ref[idx[a]], sizeof *m.ref);
    ck_assert_mem_eq(&worst, &want, sizeof want);
    ck_assert_int_eq(out, 0);
    i0 += n;
  }
  release(&m);
}
END_TEST

/* w with one wall (side: 2 axis + (0 low, 1 high)) moved so that sphere
 * i lies 1e-9 beyond it (far) or 1e-9 short of beyond it. */
static struct dem_place_walls wall_moved(const struct system *m, size_t i,
                                         int side, int far,
                                         const struct dem_place_walls *w) {
  const int a = side / 2;
  const double x = m->ref[i][a], r = m->s.radius[i], step = far ? 1e-9 : -1e-9;
  struct dem_place_walls t = *w;
  if (side % 2) /* beyond: x > hi + r */
    t.hi[a] = x - r - step;
  else /* beyond: x < lo - r */
    t.lo[a] = x + r + step;
  return t;
}

/* Escapes through each of the six walls, by each of the first 16
 * spheres (every lane), just beyond and just short of it; a periodic
 * (open) axis never counts. */
START_TEST(escapes_are_found_in_every_lane) {
  struct system m;
  make(&m, 9);
  reference(&m);
  struct dem_place_walls w = {{-20, -20, -20}, {20, 20, 20}};
  double worst = 0;
  int out = 0;
  dem_place_range(&m.s, &m.b, 0, m.s.n, &w, &worst, &out);
  ck_assert_int_eq(out, 0);
  for (size_t i = 0; i < 16; i++)
    for (int side = 0; side < 6; side++)
      for (int far = 0; far < 2; far++) {
        const struct dem_place_walls t = wall_moved(&m, i, side, far, &w);
        int want = 0;
        for (size_t j = 0; j < 16; j++)
          want |= beyond(&m, j, &t);
        out = 0;
        dem_place_range(&m.s, &m.b, 0, 16, &t, &worst, &out);
        ck_assert_int_eq(out, want);
        out = 0;
        dem_place_members(&m.s, &m.b, (size_t)m.s.body[i], NULL, i, 1, &t,
                          &worst, &out);
        ck_assert_int_eq(out, far);
        ck_assert_int_eq(beyond(&m, i, &t), far);
      }
  /* beyond the x walls, but x is periodic: open */
  struct dem_walls box = {
      .enabled = 1, .lo = {0, 0, 0}, .hi = {1e-3, 1e-3, 1e-3}, .periodic = 7u};
  dem_place_walls_of(&box, &w);
  out = 0;
  dem_place_range(&m.s, &m.b, 0, m.s.n, &w, &worst, &out);
  ck_assert_int_eq(out, 0);
  box.periodic = 0, box.enabled = 0;
  dem_place_walls_of(&box, &w);
  dem_place_range(&m.s, &m.b, 0, m.s.n, &w, &worst, &out);
  ck_assert_int_eq(out, 0);
  box.enabled = 1;
  dem_place_walls_of(&box, &w);
  dem_place_range(&m.s, &m.b, 0, m.s.n, &w, &worst, &out);
  ck_assert_int_eq(out, 1);
  release(&m);
}
END_TEST

/* A NaN pose neither counts as the largest displacement nor as an
 * escape, as in the one-at-a-time loop (`d2 > worst ? d2 : worst`). */
START_TEST(nan_counts_for_nothing) {
  struct system m;
  make(&m, 10);
  m.b.q[3][2] = NAN;
  reference(&m);
  const struct dem_place_walls w = {{-20, -20, -20}, {20, 20, 20}};
  double worst = 0, want = 0;
  int out = 0;
  for (size_t i = 0; i < m.s.n; i++)
    want = m.d2[i] > want ? m.d2[i] : want;
  dem_place_range(&m.s, &m.b, 0, m.s.n, &w, &worst, &out);
  ck_assert(isnan(m.d2[6])); /* body 3's first sphere */
  ck_assert_mem_eq(&worst, &want, sizeof want);
  ck_assert_int_eq(out, 0);
  ck_assert_mem_eq(m.s.x, m.ref, m.s.n * sizeof *m.ref);
  release(&m);
}
END_TEST

/* The rods of m (reference() done) placed by dem_place_bodies (with
 * `shapes`, or NULL) over bodies [k0, k1) for every k0 below k0_end and
 * k1 from k0 up, one at a time for nine, then `stride` at a time: the
 * bits of one at a time, the same largest displacement and escapes, and
 * the spheres outside the range untouched. */
static void rods_in_every_range(struct system *m,
                                const struct dem_place_shapes *shapes,
                                size_t k0_end, size_t stride) {
  const struct dem_place_walls w = {{-5, -5, -5}, {5, 5, 5}};
  for (size_t k0 = 0; k0 < k0_end; k0++)
    for (size_t k1 = k0; k1 <= N_BODIES; k1 += k1 < k0 + 9 ? 1 : stride) {
      const size_t i0 = 3 * k0, i1 = 3 * k1;
      double worst = 0, want = 0;
      int out = 0, beyond_any = 0;
      for (size_t i = i0; i < i1; i++) {
        want = m->d2[i] > want ? m->d2[i] : want;
        beyond_any |= beyond(m, i, &w);
      }
      for (size_t i = 0; i < m->s.n; i++)
        m->s.x[i][0] = m->s.x[i][1] = m->s.x[i][2] = -1234.5;
      dem_place_bodies(&m->s, &m->b, shapes, k0, k1, &w, &worst, &out);
      ck_assert_mem_eq(m->s.x + i0, m->ref + i0, (i1 - i0) * sizeof *m->ref);
      for (size_t i = 0; i < m->s.n; i++)
        if (i < i0 || i >= i1)
          ck_assert(m->s.x[i][0] == -1234.5 && m->s.x[i][2] == -1234.5);
      ck_assert_mem_eq(&worst, &want, sizeof want);
      ck_assert_int_eq(out, beyond_any);
    }
}

/* Rods (bodies of three spheres) placed by dem_place_bodies, four bodies
 * at a time with AVX2: the bits of one at a time, for every start and
 * end of the range of bodies (the last four overlap the four before
 * unless the count is a multiple of four), with a NaN pose (body 5) that
 * counts for nothing, and the spheres outside the range untouched. */
START_TEST(rods_give_the_bits_of_one_at_a_time) {
  dem_isa_limit((enum dem_isa)_i);
  struct system m;
  make_of(&m, 12 + (uint64_t)_i, 1);
  m.b.q[5][1] = NAN;
  reference(&m);
  rods_in_every_range(&m, NULL, 6, 7);
  dem_isa_limit(DEM_ISA_AVX512);
  release(&m);
}
END_TEST

/* Rods: the largest displacement, sphere 0's (the first lane), survives
 * a NaN pose that reaches the same lane later (body 8: the first lane of
 * the second eight, of the third four), as `d2 > most ? d2 : most` keeps
 * it; a lane maximum that took the NaN would lose it. */
START_TEST(rods_keep_the_largest_displacement_past_a_nan) {
  dem_isa_limit((enum dem_isa)_i);
  struct system m;
  make_of(&m, 15, 1);
  m.s.x_build[0][0] += 100.0;
  m.b.q[8][0] = NAN;
  reference(&m);
  double want = 0, worst = 0;
  int out = 0;
  for (size_t i = 0; i < 48; i++)
    want = m.d2[i] > want ? m.d2[i] : want;
  ck_assert(want > 1e4 && want == m.d2[0] && isnan(m.d2[24]));
  const struct dem_place_walls w = {{-50, -50, -50}, {50, 50, 50}};
  dem_place_bodies(&m.s, &m.b, NULL, 0, 16, &w, &worst, &out);
  ck_assert_mem_eq(&worst, &want, sizeof want);
  dem_isa_limit(DEM_ISA_AVX512);
  release(&m);
}
END_TEST

/* Rods: escapes through each of the six walls by each of the first 24
 * spheres (every lane of the eight bodies: two fours for AVX2, one eight
 * for AVX-512), just beyond and just short. */
START_TEST(rods_escapes_are_found_in_every_lane) {
  dem_isa_limit((enum dem_isa)_i);
  struct system m;
  make_of(&m, 13, 1);
  reference(&m);
  const struct dem_place_walls w = {{-20, -20, -20}, {20, 20, 20}};
  for (size_t i = 0; i < 24; i++)
    for (int side = 0; side < 6; side++)
      for (int far = 0; far < 2; far++) {
        const struct dem_place_walls t = wall_moved(&m, i, side, far, &w);
        int want = 0, out = 0;
        double worst = 0;
        for (size_t j = 0; j < 24; j++)
          want |= beyond(&m, j, &t);
        dem_place_bodies(&m.s, &m.b, NULL, 0, 8, &t, &worst, &out);
        ck_assert_int_eq(out, want);
        ck_assert_int_eq(beyond(&m, i, &t), far);
        if (far)
          ck_assert_int_eq(out, 1);
      }
  dem_isa_limit(DEM_ISA_AVX512);
  release(&m);
}
END_TEST

/* Two shapes of three spheres, and rods of one or the other at scale 1
 * or (bodies 5, 22 and 40) 1.5, their spheres' offsets and radii set as
 * dem_body_pose sets them (the shape's times the scale): placed by
 * dem_place_bodies with the shapes, which reads a four's (AVX2) or an
 * eight's (AVX-512) members from its shape when they are of one shape at
 * scale 1, they land on the bits of one at a time, whatever the range.
 * Fours and eights of both kinds occur: runs of twelve bodies of a
 * shape, so that some mix the two (bodies 24-31 are an eight of one
 * shape, 8-15 one of both). */
START_TEST(rods_of_a_shape_give_the_bits_of_one_at_a_time) {
  dem_isa_limit((enum dem_isa)_i);
  struct system m;
  make_of(&m, 14 + (uint64_t)_i, 1);
  struct dem_rng r;
  dem_rng_seed(&r, 99);
  double offset[2][3][3], radius[2][3];
  struct dem_shape shape[2] = {{0}};
  for (int k = 0; k < 2; k++) {
    for (int j = 0; j < 3; j++) {
      radius[k][j] = 0.1 + 0.3 * dem_rng_uniform(&r);
      for (int a = 0; a < 3; a++)
        offset[k][j][a] = 2 * dem_rng_uniform(&r) - 1;
    }
    shape[k].n_spheres = 3;
    shape[k].offset = offset[k];
    shape[k].radius = radius[k];
  }
  m.b.shape = malloc(N_BODIES * sizeof *m.b.shape);
  m.b.scale = malloc(N_BODIES * sizeof *m.b.scale);
  size_t scaled = 0;
  for (size_t k = 0; k < N_BODIES; k++) {
    const int sh = (int)(k / 12 % 2);
    const double scale = k == 5 || k == 22 || k == 40 ? 1.5 : 1.0;
    m.b.shape[k] = sh;
    m.b.scale[k] = scale;
    scaled += scale != 1.0;
    for (size_t j = 0; j < 3; j++) {
      const size_t i = 3 * k + j;
      m.s.radius[i] = radius[sh][j] * scale;
      for (int a = 0; a < 3; a++)
        m.s.offset[i][a] = offset[sh][j][a] * scale;
    }
  }
  ck_assert_uint_eq(scaled, 3);
  reference(&m);
  const struct dem_place_shapes shapes = {shape, 2};
  rods_in_every_range(&m, &shapes, 8, 5);
  dem_isa_limit(DEM_ISA_AVX512);
  free(m.b.shape), free(m.b.scale);
  release(&m);
}
END_TEST

static Suite *place_suite(void) {
  Suite *s = suite_create("place");
  /* Each test on every copy the CPU can run: the base one (SSE2), AVX2
   * and AVX-512 (those it lacks fall back to the next). */
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, every_copy_gives_the_same_bits, DEM_ISA_BASE,
                      DEM_ISA_AVX512 + 1);
  tcase_add_test(tc, range_gives_the_bits_of_one_at_a_time);
  tcase_add_test(tc, members_give_the_bits_of_one_at_a_time);
  tcase_add_test(tc, escapes_are_found_in_every_lane);
  tcase_add_test(tc, nan_counts_for_nothing);
  tcase_add_loop_test(tc, rods_give_the_bits_of_one_at_a_time, DEM_ISA_BASE,
                      DEM_ISA_AVX512 + 1);
  tcase_add_loop_test(tc, rods_escapes_are_found_in_every_lane, DEM_ISA_BASE,
                      DEM_ISA_AVX512 + 1);
  tcase_add_loop_test(tc, rods_keep_the_largest_displacement_past_a_nan,
                      DEM_ISA_BASE, DEM_ISA_AVX512 + 1);
  tcase_add_loop_test(tc, rods_of_a_shape_give_the_bits_of_one_at_a_time,
                      DEM_ISA_BASE, DEM_ISA_AVX512 + 1);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(place_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
