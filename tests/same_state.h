/* Test helper: two runs' states compared bitwise, for the tests that run
 * one thing two ways (threads, the broad phase, the near path). */
#ifndef DEM_TEST_SAME_STATE_H
#define DEM_TEST_SAME_STATE_H

#include <check.h>

#include "sim_fixture.h"

/* The sphere array compared besides the positions. */
enum same_also { SAME_SPHERE_FORCE, SAME_X_BUILD };

/* a and b the same, bitwise: the bodies' x, v, q, w, force and torque, the
 * spheres' x and `also`, the neighbour builds and the lists. */
static inline void assert_same_state(const struct dem_sim *a,
                                     const struct dem_sim *b,
                                     enum same_also also) {
  size_t n = a->b.n, m = a->s.n;
  ck_assert_uint_eq(n, b->b.n);
  ck_assert_mem_eq(a->b.x, b->b.x, n * sizeof *a->b.x);
  ck_assert_mem_eq(a->b.v, b->b.v, n * sizeof *a->b.v);
  ck_assert_mem_eq(a->b.q, b->b.q, n * sizeof *a->b.q);
  ck_assert_mem_eq(a->b.w, b->b.w, n * sizeof *a->b.w);
  ck_assert_mem_eq(a->b.force, b->b.force, n * sizeof *a->b.force);
  ck_assert_mem_eq(a->b.torque, b->b.torque, n * sizeof *a->b.torque);
  ck_assert_mem_eq(a->s.x, b->s.x, m * sizeof *a->s.x);
  if (also == SAME_X_BUILD)
    ck_assert_mem_eq(a->s.x_build, b->s.x_build, m * sizeof *a->s.x);
  else
    ck_assert_mem_eq(a->s.force, b->s.force, m * sizeof *a->s.force);
  ck_assert_int_eq(a->nb.builds, b->nb.builds);
  ck_assert_uint_eq(a->nb.start[m], b->nb.start[m]);
  ck_assert_mem_eq(a->nb.list, b->nb.list, a->nb.start[m] * sizeof(int));
}

/* assert_same_state, then both fixtures ended. */
static inline void assert_same_and_end(struct fixture *a, struct fixture *b,
                                       enum same_also also) {
  assert_same_state(&a->sim, &b->sim, also);
  fixture_end(a);
  fixture_end(b);
}

#endif
