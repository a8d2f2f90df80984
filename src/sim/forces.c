/* Sphere forces and torques gathered per body in member order (no atomics,
 * thread-count independent). */
#include "sim/forces.h"

#include <stdint.h>
#include <string.h>

#include "core/isa.h"
#include "core/shares.h"
#include "core/vec3.h"
#include "sim/near.h"

/* Whether the rows a[0..m) are all zero (+0 or -0), as a[i][j] == 0 for
 * each says, on the bits: one test, where the comparisons of doubles are
 * three instructions each with a branch for NaN. */
static DEM_ALWAYS_INLINE int zero_rows(const double (*a)[3], size_t m) {
  uint64_t acc = 0, x, y, z;
  for (size_t i = 0; i < m; i++) {
    memcpy(&x, &a[i][0], sizeof x), memcpy(&y, &a[i][1], sizeof y);
    memcpy(&z, &a[i][2], sizeof z);
    acc |= x | y | z;
  }
  return (acc << 1) == 0; /* all bits but the signs clear */
}

/* Sphere k's force and torque added to its body's sums f and t (about
 * the body's centre xb), and zeroed; `torques` (a constant in each
 * caller's loop) says whether spheres carry torques of their own. With
 * `test` (a constant too), a sphere whose force (and torque) is zero is
 * skipped; the sums are the same either way, bitwise: f and t start at
 * +0 and never become -0, so adding +-0 leaves them as they are. */
static DEM_ALWAYS_INLINE void add_sphere(struct dem_spheres *s,
                                         const double xb[3], size_t k,
                                         double f[3], double t[3],
                                         const int torques, const int test) {
  double *fk = s->force[k];
  int turns = torques && (!test || !zero_rows(s->torque + k, 1));
  if (test && zero_rows(s->force + k, 1) && !turns)
    return;
  double arm[3], c[3];
  v3_add(f, f, fk);
  v3_sub(arm, s->x[k], xb);
  v3_cross(c, arm, fk);
  v3_add(t, t, c);
  if (turns) {
    v3_add(t, t, s->torque[k]);
    s->torque[k][0] = s->torque[k][1] = s->torque[k][2] = 0.0;
  }
  fk[0] = fk[1] = fk[2] = 0.0; /* moved */
}

/* Body bi's sum, over its members in order; with the near path
 * (sim/near.h) over its active members only, in the same order: the
 * others have no force, so the sums are the same, bitwise. Without
 * `test`, every member is added (add_sphere), where a dense packing
 * would pay for zero tests that find nothing to skip. With `forced`
 * (dem_spheres.forces_marked), only a marked body's members are read, and
 * its mark is cleared: an unmarked body's have no force, and its sums are
 * what they would give, m g and +0 (already there if `set`: the bodies
 * are `weighed`). With `set` the sums are set, not added. */
static DEM_ALWAYS_INLINE void
gather_body(struct dem_bodies *b, struct dem_spheres *s, long bi,
            const double g[3], const size_t *act, const int *active,
            int *forced, const int torques, const int test, const int set) {
  double f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
  if (forced) {
    if (!forced[bi] && set)
      return;
    if (forced[bi]) {
      for (size_t k = b->first_member[bi]; k < b->first_member[bi + 1]; k++)
        add_sphere(s, b->x[bi], k, f, t, torques, 1);
      forced[bi] = 0;
    }
  } else if (act)
    for (size_t a = act[bi]; a < act[bi + 1]; a++)
      add_sphere(s, b->x[bi], (size_t)active[a], f, t, torques, 1);
  else if (!test) {
    for (size_t k = b->first_member[bi]; k < b->first_member[bi + 1]; k++)
      add_sphere(s, b->x[bi], k, f, t, torques, 0);
  } else {
    /* A body's members are contiguous: one test tells whether any of
     * them has a force (or a torque), where most in a loose packing have
     * none. */
    const size_t k0 = b->first_member[bi], k1 = b->first_member[bi + 1];
    if (!zero_rows(s->force + k0, k1 - k0) ||
        (torques && !zero_rows(s->torque + k0, k1 - k0)))
      for (size_t k = k0; k < k1; k++)
        add_sphere(s, b->x[bi], k, f, t, torques, 1);
  }
  v3_axpy(f, b->mass[bi], g);
  if (set) {
    v3_copy(b->force[bi], f);
    v3_copy(b->torque[bi], t);
    return;
  }
  v3_add(b->force[bi], b->force[bi], f);
  v3_add(b->torque[bi], b->torque[bi], t);
}

/* Bodies [b0, b1); `act` (NULL or not), `torques` and `set` are
 * constants in each of the loops, which are compiled without their
 * tests; `forced` (NULL or the marks) is used without the near path only,
 * a test each body that the processor foresees. */
static DEM_ALWAYS_INLINE void
gather_loops(struct dem_bodies *b, struct dem_spheres *s, const double *g,
             const size_t *act, const int *active, int *forced, int torques,
             const int set, long b0, long b1) {
  if (act && torques)
    for (long bi = b0; bi < b1; bi++)
      gather_body(b, s, bi, g, act, active, NULL, 1, 1, set);
  else if (act)
    for (long bi = b0; bi < b1; bi++)
      gather_body(b, s, bi, g, act, active, NULL, 0, 1, set);
  else if (torques)
    for (long bi = b0; bi < b1; bi++)
      gather_body(b, s, bi, g, NULL, active, forced, 1, 1, set);
  else
    for (long bi = b0; bi < b1; bi++)
      gather_body(b, s, bi, g, NULL, active, forced, 0, 1, set);
}

/* gather_loops with `set` a constant too (eight loops). */
static DEM_ALWAYS_INLINE void
gather_range(struct dem_bodies *b, struct dem_spheres *s, const double *g,
             const size_t *act, const int *active, int *forced, int torques,
             int set, long b0, long b1) {
  if (set)
    gather_loops(b, s, g, act, active, forced, torques, 1, b0, b1);
  else
    gather_loops(b, s, g, act, active, forced, torques, 0, b0, b1);
}

/* In the best instruction set (core/isa.h): the members' zero tests in
 * vector registers. */
DEM_ISA_DISPATCH_STATIC(gather_bodies,
                        (struct dem_bodies * b, struct dem_spheres *s,
                         const double *g, const size_t *act, const int *active,
                         int *forced, int torques, int set, long b0, long b1),
                        gather_range,
                        (b, s, g, act, active, forced, torques, set, b0, b1))

/* Asks for every line of the bytes [begin, end) (rw: 1 if they will be
 * written; a macro, as __builtin_prefetch takes rw only as a constant). */
#define PREFETCH_SPAN(begin, end, rw)                                          \
  do {                                                                         \
    const char *p_ = (const char *)(begin), *end_ = (const char *)(end);       \
    for (; p_ < end_; p_ += 64)                                                \
      __builtin_prefetch(p_, rw);                                              \
    __builtin_prefetch(end_ - 1, rw);                                          \
  } while (0)

/* How many marked bodies ahead gather_marked asks for a body's own rows
 * (its first member, pose, mass and sums); its members' rows (position,
 * force, torque) are asked for half as far ahead, once the first member
 * is in cache. */
#define MARK_AHEAD 16

static DEM_ALWAYS_INLINE void prefetch_body_rows(const struct dem_bodies *b,
                                                 long k) {
  __builtin_prefetch(&b->first_member[k], 0);
  __builtin_prefetch(&b->first_member[k + 1], 0);
  __builtin_prefetch(&b->mass[k], 0);
  PREFETCH_SPAN(b->x[k], b->x[k + 1], 0);
  PREFETCH_SPAN(b->force[k], b->force[k + 1], 1);
  PREFETCH_SPAN(b->torque[k], b->torque[k + 1], 1);
}

/* Asks for the rows of the members of bodies [k0, k1): their positions
 * and, with `forces`, their forces (and torques). */
static DEM_ALWAYS_INLINE void prefetch_members(const struct dem_bodies *b,
                                               const struct dem_spheres *s,
                                               long k0, long k1, int forces,
                                               int torques) {
  const size_t i0 = b->first_member[k0], i1 = b->first_member[k1];
  PREFETCH_SPAN(s->x[i0], s->x[i1], 0);
  if (!forces)
    return;
  PREFETCH_SPAN(s->force[i0], s->force[i1], 1);
  if (torques)
    PREFETCH_SPAN(s->torque[i0], s->torque[i1], 1);
}

/* Bodies [b0, b1) with the weights in place (dem_bodies.weighed) and the
 * marks holding every body with a sphere force: the marked bodies only,
 * the others holding what they would get. They are few and scattered (in
 * the gas of 1e6 spheres 3-6 %), so they are listed first (into
 * list[b0..], by a scan of the marks with no branch) and their rows asked
 * for MARK_AHEAD marked bodies ahead: asked for a number of bodies ahead,
 * as gather_rods_avx2 does, they came too late once the loop left the
 * others alone. */
static void gather_marked(struct dem_bodies *b, struct dem_spheres *s,
                          const double *g, int *forced, int *list, int torques,
                          long b0, long b1) {
  int *l = list + b0;
  long n = 0;
  for (long k = b0; k < b1; k++) {
    l[n] = (int)k;
    n += forced[k] != 0;
  }
  for (long j = 0; j < n; j++) {
    if (j + MARK_AHEAD < n)
      prefetch_body_rows(b, l[j + MARK_AHEAD]);
    if (j + MARK_AHEAD / 2 < n) {
      const long k = l[j + MARK_AHEAD / 2];
      prefetch_members(b, s, k, k + 1, 1, torques);
    }
    /* as a body whose members are tested (its mark, scattered in a long
     * array, would be waited for), then its mark cleared */
    if (torques)
      gather_body(b, s, l[j], g, NULL, NULL, NULL, 1, 1, 1);
    else
      gather_body(b, s, l[j], g, NULL, NULL, NULL, 0, 1, 1);
    forced[l[j]] = 0;
  }
}

/* From how many bodies (a thread's share) gather_rods_avx2 asks for lines:
 * fewer, and the positions are in cache, where asking costs instructions for
 * nothing (10,000 rods' spheres take 720 kB). */
#define ROD_FAR 32768

#if DEM_ISA_VARIANTS
#include <immintrin.h>

/* How many bodies ahead gather_rods_avx2 asks for their positions: 16
 * ahead was too close for memory (gather_forces at 1e6 spheres 5-7 %
 * faster with 48). */
#define ROD_AHEAD 48

/* Asks for the positions of bodies k .. k + 3 and of their members,
 * which the bodies with a force read (arms for the torques): those are
 * scattered, so the processor does not foresee them, and with a million spheres
 * each line comes from memory. Asked for whether or not the body turns out to
 * have a force (most lines hold a member of one that does). With `forces`,
 * the members' forces (and torques) too. */
static DEM_ALWAYS_INLINE void prefetch_positions(const struct dem_bodies *b,
                                                 const struct dem_spheres *s,
                                                 long k, int forces,
                                                 int torques) {
  prefetch_members(b, s, k, k + 4, forces, torques);
  for (long j = 0; j < 4; j++) /* 96 bytes: up to three lines */
    __builtin_prefetch(b->x[k + j], 0);
  __builtin_prefetch(&b->x[k + 3][2], 0);
}

/* With the marks: the positions, forces and torques of bodies k .. k + 3
 * and their members, if one is marked (those are few and scattered). */
static DEM_ALWAYS_INLINE void prefetch_forced(const struct dem_bodies *b,
                                              const struct dem_spheres *s,
                                              const int *forced, long k,
                                              int torques) {
  if (!(forced[k] | forced[k + 1] | forced[k + 2] | forced[k + 3]))
    return;
  prefetch_positions(b, s, k, 1, torques);
}

/* Without the near path, four bodies of twelve spheres in all (rods) at
 * a time in AVX2 registers: the members' forces (and torques) are tested
 * at once, and where all are zero (most in a loose packing) the four
 * bodies get what gather_body gives them then, each component in its
 * order: force += (+0 + m g), torque += +0. When the spheres are `dense`
 * (most of them have a contact, as in a packing at rest), fours with a
 * force are gathered body by body without testing their members again;
 * other fours, and the last bodies, body by body with the tests. */
DEM_TARGET_AVX2 static void gather_rods_avx2(struct dem_bodies *b,
                                             struct dem_spheres *s,
                                             const double *g, int *forced,
                                             int torques, int dense, int set,
                                             int far, long b0, long b1) {
  const size_t *first = b->first_member;
  const __m256d zero = _mm256_setzero_pd();
  /* g as the rows of four bodies lay it out: x y z x, y z x y, z x y z */
  const __m256d g0 = _mm256_setr_pd(g[0], g[1], g[2], g[0]),
                g1 = _mm256_setr_pd(g[1], g[2], g[0], g[1]),
                g2 = _mm256_setr_pd(g[2], g[0], g[1], g[2]);
  const __m256i bits = _mm256_set1_epi64x(INT64_MAX); /* all but the sign */
  long k = b0;
  for (; k + 4 <= b1; k += 4) {
    const size_t f0 = first[k];
    if (far && k + ROD_AHEAD + 4 <= b1) {
      if (forced)
        prefetch_forced(b, s, forced, k + ROD_AHEAD, torques);
      else
        prefetch_positions(b, s, k + ROD_AHEAD, 0, 0);
    }
    if (first[k + 4] - f0 == 12) { /* their members, however split */
      int none;
      if (forced) { /* the four marks, not the members' 36 components */
        none = !(forced[k] | forced[k + 1] | forced[k + 2] | forced[k + 3]);
      } else {
        /* the 36 components of the twelve members, nine vectors */
        const double *fs = s->force[f0], *ts = s->torque ? s->torque[f0] : NULL;
        __m256d any = _mm256_loadu_pd(fs);
        for (int j = 4; j < 36; j += 4)
          any = _mm256_or_pd(any, _mm256_loadu_pd(fs + j));
        if (torques)
          for (int j = 0; j < 36; j += 4)
            any = _mm256_or_pd(any, _mm256_loadu_pd(ts + j));
        none = _mm256_testz_si256(_mm256_castpd_si256(any), bits);
      }
      if (none && set) /* they hold what they would get */
        continue;
      if (none) {
        const __m256d m = _mm256_loadu_pd(b->mass + k);
        const __m256d m0 = _mm256_permute4x64_pd(m, _MM_SHUFFLE(1, 0, 0, 0)),
                      m1 = _mm256_permute4x64_pd(m, _MM_SHUFFLE(2, 2, 1, 1)),
                      m2 = _mm256_permute4x64_pd(m, _MM_SHUFFLE(3, 3, 3, 2));
        double *F = b->force[k], *T = b->torque[k];
        _mm256_storeu_pd(
            F, _mm256_add_pd(_mm256_loadu_pd(F),
                             _mm256_add_pd(zero, _mm256_mul_pd(m0, g0))));
        _mm256_storeu_pd(
            F + 4, _mm256_add_pd(_mm256_loadu_pd(F + 4),
                                 _mm256_add_pd(zero, _mm256_mul_pd(m1, g1))));
        _mm256_storeu_pd(
            F + 8, _mm256_add_pd(_mm256_loadu_pd(F + 8),
                                 _mm256_add_pd(zero, _mm256_mul_pd(m2, g2))));
        for (int j = 0; j < 12; j += 4)
          _mm256_storeu_pd(T + j, _mm256_add_pd(_mm256_loadu_pd(T + j), zero));
        continue;
      }
      if (forced) {
        gather_range(b, s, g, NULL, NULL, forced, torques, set, k, k + 4);
        continue;
      }
      if (dense && torques) {
        for (long bi = k; bi < k + 4; bi++)
          gather_body(b, s, bi, g, NULL, NULL, NULL, 1, 0, set);
        continue;
      }
      if (dense) {
        for (long bi = k; bi < k + 4; bi++)
          gather_body(b, s, bi, g, NULL, NULL, NULL, 0, 0, set);
        continue;
      }
    }
    gather_range(b, s, g, NULL, NULL, forced, torques, set, k, k + 4);
  }
  gather_range(b, s, g, NULL, NULL, forced, torques, set, k, b1);
}
#endif

/* What a step's gather does, the same for every part of the bodies. */
struct gather_plan {
  const double *g;
  const size_t *act;
  const int *active;
  int *forced, *list, *clear;
  int torques, dense, set, far;
};

/* Bodies [i0, i1) of the gather. */
static void gather_part(struct dem_bodies *b, struct dem_spheres *s,
                        const struct gather_plan *p, long i0, long i1) {
  if (p->list)
    gather_marked(b, s, p->g, p->forced, p->list, p->torques, i0, i1);
#if DEM_ISA_VARIANTS
  else if (!p->act && dem_isa_best() >= DEM_ISA_AVX2)
    gather_rods_avx2(b, s, p->g, p->forced, p->torques, p->dense, p->set,
                     p->far, i0, i1);
#endif
  else
    gather_bodies(b, s, p->g, p->act, p->active, p->forced, p->torques, p->set,
                  i0, i1);
  if (p->clear && i1 > i0)
    memset(p->clear + i0, 0, (size_t)(i1 - i0) * sizeof *p->clear);
}

void dem_forces_gather(struct dem_sim *sim) {
  const struct dem_near *nr = dem_near_on(sim);
  const size_t *act = nr ? nr->act : NULL;
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  const long n = (long)b->n;
  /* The work is per sphere: 2,000 rods (6,000 spheres) are worth two
   * threads. */
  const long work = act ? (long)sim->nb.n_active : (long)s->n;
  const int threads = work > DEM_PARALLEL_MIN && omp_get_max_threads() > 1
                          ? omp_get_max_threads()
                          : 1;
  struct gather_plan p = {.g = sim->gravity,
                          .act = act,
                          .active = sim->nb.active,
                          .torques = sim->pairs.has_torque,
                          .set = b->weighed};
  /* Most spheres with a contact: a test of each member would find few
   * to skip (gather_rods_avx2). */
  p.dense = 8 * sim->nb.n_active >= 7 * s->n;
  /* The marks, if they hold every body with a force (not with the near
   * path, which visits the active spheres only: then they are cleared). */
  p.forced = s->forces_marked && !act ? b->forced : NULL;
  p.clear = p.forced ? NULL : b->forced;
  /* With the weights in place, the marked bodies only, listed in the
   * neighbours' scratch (gather_marked). */
  p.list =
      p.forced && p.set &&
              !dem_scratch_reserve(&sim->nb.scratch, (size_t)n * sizeof *p.list)
          ? sim->nb.scratch.p
          : NULL;
  /* The data beyond the caches: a thread's share of the bodies is many. */
  p.far = n / threads >= ROD_FAR;
  if (threads == 1)
    gather_part(b, s, &p, 0, n);
  else /* each body's sums are its own, whoever makes them */
    DEM_IN_SHARED_PARTS((size_t)n, threads, i0, i1,
                        gather_part(b, s, &p, (long)i0, (long)i1););
  /* No sphere holds a force now, and no body is marked. */
  sim->s.forces_dirty = 0;
  sim->s.forces_marked = b->forced != NULL;
  b->weighed = 0;
}
