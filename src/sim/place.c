/* Spheres placed at their bodies' poses: x = x_body + q_rotate(q, offset),
 * in vector lanes, with the displacement since the build and the escape
 * check on the way. */
#include "sim/place.h"

#include <math.h>
#include <string.h>

#include "core/isa.h"

void dem_place_walls_of(const struct dem_walls *wl, struct dem_place_walls *w) {
  for (int k = 0; k < 3; k++) {
    int open = !wl->enabled || (wl->periodic >> k & 1u);
    w->lo[k] = open ? -HUGE_VAL : wl->lo[k];
    w->hi[k] = open ? HUGE_VAL : wl->hi[k];
  }
}

/* The sphere arrays flat (x, y, z of sphere i at 3 i), loaded once, and
 * the walls: the vectoriser then sees strided and gathered loads it can
 * do in lanes. */
struct lanes {
  double *restrict x;
  const double *restrict x_build, *restrict offset, *restrict radius;
  double lo0, lo1, lo2, hi0, hi1, hi2;
};

static DEM_ALWAYS_INLINE struct lanes
lanes_of(struct dem_spheres *s, const struct dem_place_walls *w) {
  return (struct lanes){
      .x = &s->x[0][0],
      .x_build = &s->x_build[0][0],
      .offset = &s->offset[0][0],
      .radius = s->radius,
      .lo0 = w->lo[0],
      .lo1 = w->lo[1],
      .lo2 = w->lo[2],
      .hi0 = w->hi[0],
      .hi1 = w->hi[1],
      .hi2 = w->hi[2],
  };
}

/* What one lane measures. */
struct lane {
  double d2;
  int out;
};

/* Sphere i at the pose (x, q) of its body. The operations of q_rotate
 * (t = 2 (u x v), r = v + w t + u x t), v3_add, v3_sub and v3_dot, in
 * their order, spelled out on scalars: an array local to the loop body
 * would become a per-lane array in memory under `omp simd`. The same
 * operations give the same bits as dem_place_sphere
 * (tests/test_place.c). */
static DEM_ALWAYS_INLINE struct lane place_lane(const struct lanes l, double bx,
                                                double by, double bz, double qw,
                                                double qx, double qy, double qz,
                                                size_t i) {
  const double vx = l.offset[3 * i], vy = l.offset[3 * i + 1],
               vz = l.offset[3 * i + 2];
  double tx = qy * vz - qz * vy, ty = qz * vx - qx * vz, tz = qx * vy - qy * vx;
  tx = tx * 2.0, ty = ty * 2.0, tz = tz * 2.0;
  const double cx = qy * tz - qz * ty, cy = qz * tx - qx * tz,
               cz = qx * ty - qy * tx;
  const double x = bx + (vx + qw * tx + cx), y = by + (vy + qw * ty + cy),
               z = bz + (vz + qw * tz + cz);
  l.x[3 * i] = x, l.x[3 * i + 1] = y, l.x[3 * i + 2] = z;
  const double mx = x - l.x_build[3 * i], my = y - l.x_build[3 * i + 1],
               mz = z - l.x_build[3 * i + 2];
  const double r = l.radius[i];
  return (struct lane){mx * mx + my * my + mz * mz,
                       (x < l.lo0 - r) | (x > l.hi0 + r) | (y < l.lo1 - r) |
                           (y > l.hi1 + r) | (z < l.lo2 - r) | (z > l.hi2 + r)};
}

/* Lanes of a vector, at most (8: AVX-512); the compiler picks the width
 * and unrolls. The largest displacement and the escapes are kept per
 * lane and reduced once at the end: no reduction inside the vector loop,
 * which both gcc and clang vectorise. */
enum { LANES = 8 };

/* The largest displacement and the escapes of one run of lanes. */
struct lanes_sum {
  double most[LANES];
  int out[LANES];
};

static DEM_ALWAYS_INLINE void lanes_add(struct lanes_sum *sum, int j,
                                        struct lane p) {
  sum->most[j] = p.d2 > sum->most[j] ? p.d2 : sum->most[j];
  sum->out[j] |= p.out;
}

static DEM_ALWAYS_INLINE void lanes_reduce(const struct lanes_sum *sum,
                                           double *worst, int *escaped) {
  for (int j = 0; j < LANES; j++) {
    *worst = sum->most[j] > *worst ? sum->most[j] : *worst;
    *escaped |= sum->out[j];
  }
}

/* Where a run's spheres go: each to its own body's pose (the arrays), or
 * all to the pose of one body, loaded once. */
struct target {
  const int *restrict body;
  const double *restrict bx, *restrict bq;
  double x, y, z, qw, qx, qy, qz;
};

static DEM_ALWAYS_INLINE struct target target_of(const struct dem_spheres *s,
                                                 const struct dem_bodies *b,
                                                 int own, size_t k) {
  struct target t = {s->body, &b->x[0][0], &b->q[0][0], 0, 0, 0, 0, 0, 0, 0};
  if (!own) {
    t.x = b->x[k][0], t.y = b->x[k][1], t.z = b->x[k][2];
    t.qw = b->q[k][0], t.qx = b->q[k][1], t.qy = b->q[k][2], t.qz = b->q[k][3];
  }
  return t;
}

/* Sphere i at its own body k = body[i]'s pose (own), or at the one pose
 * of t. */
static DEM_ALWAYS_INLINE struct lane place_at(const struct lanes l, int own,
                                              const struct target t, size_t i) {
  if (!own)
    return place_lane(l, t.x, t.y, t.z, t.qw, t.qx, t.qy, t.qz, i);
  const size_t k = (size_t)t.body[i];
  return place_lane(l, t.bx[3 * k], t.bx[3 * k + 1], t.bx[3 * k + 2],
                    t.bq[4 * k], t.bq[4 * k + 1], t.bq[4 * k + 2],
                    t.bq[4 * k + 3], i);
}

/* Places the spheres idx[a] if `listed`, else the spheres a, for a in
 * [a0, a1): each at its own body's pose if `own`, else all at body k's.
 * The kernels below pass constants for own and listed, so that each of
 * their lane loops is one of the four, with no test in it. */
static DEM_ALWAYS_INLINE void
place_run(struct dem_spheres *s, const struct dem_bodies *b, int own, size_t k,
          int listed, const int *idx, size_t a0, size_t a1,
          const struct dem_place_walls *w, double *worst, int *escaped) {
  const struct lanes l = lanes_of(s, w);
  const struct target t = target_of(s, b, own, k);
  struct lanes_sum sum = {{0}, {0}};
  size_t a = a0;
  for (; a + LANES <= a1; a += LANES) {
#pragma omp simd
    for (int j = 0; j < LANES; j++)
      lanes_add(&sum, j,
                place_at(l, own, t,
                         listed ? (size_t)idx[a + (size_t)j] : a + (size_t)j));
  }
  for (; a < a1; a++)
    lanes_add(&sum, 0, place_at(l, own, t, listed ? (size_t)idx[a] : a));
  lanes_reduce(&sum, worst, escaped);
}

static DEM_ALWAYS_INLINE void place_range(struct dem_spheres *s,
                                          const struct dem_bodies *b, size_t i0,
                                          size_t i1,
                                          const struct dem_place_walls *w,
                                          double *worst, int *escaped) {
  place_run(s, b, 1, 0, 0, NULL, i0, i1, w, worst, escaped);
}

static DEM_ALWAYS_INLINE void place_list(struct dem_spheres *s,
                                         const struct dem_bodies *b,
                                         const int *idx, size_t n,
                                         const struct dem_place_walls *w,
                                         double *worst, int *escaped) {
  place_run(s, b, 1, 0, 1, idx, 0, n, w, worst, escaped);
}

static DEM_ALWAYS_INLINE void
place_members(struct dem_spheres *s, const struct dem_bodies *b, size_t k,
              const int *idx, size_t i0, size_t n,
              const struct dem_place_walls *w, double *worst, int *escaped) {
  if (idx)
    place_run(s, b, 0, k, 1, idx, 0, n, w, worst, escaped);
  else
    place_run(s, b, 0, k, 0, NULL, i0, i0 + n, w, worst, escaped);
}

#if DEM_ISA_VARIANTS
#include <immintrin.h>

/* Rods: bodies of three spheres, four bodies (twelve spheres, three
 * vectors of four) at a time in AVX2 registers. The spheres' rows are
 * turned into components (x of four spheres, y, z) and back by blends
 * and permutes, and each body's pose is loaded once and spread to its
 * three lanes, where the general kernel gathers a pose for every sphere.
 * Each lane does place_lane's operations in its order (no FMA), so the
 * bits are the same. */

/* Rows a = (x0 y0 z0 x1), b = (y1 z1 x2 y2), c = (z2 x3 y3 z3) into
 * x = (x0 x1 x2 x3), y, z. */
DEM_TARGET_AVX2 static inline void rows_to_xyz(__m256d a, __m256d b, __m256d c,
                                               __m256d *x, __m256d *y,
                                               __m256d *z) {
  const __m256d m1 = _mm256_blend_pd(_mm256_blend_pd(a, b, 0x4), c, 0x2);
  const __m256d m2 = _mm256_blend_pd(_mm256_blend_pd(a, b, 0x9), c, 0x4);
  const __m256d m3 = _mm256_blend_pd(_mm256_blend_pd(a, b, 0x2), c, 0x9);
  *x = _mm256_permute4x64_pd(m1, _MM_SHUFFLE(1, 2, 3, 0)); /* (0 3 2 1) */
  *y = _mm256_permute4x64_pd(m2, _MM_SHUFFLE(2, 3, 0, 1)); /* (1 0 3 2) */
  *z = _mm256_permute4x64_pd(m3, _MM_SHUFFLE(3, 0, 1, 2)); /* (2 1 0 3) */
}

/* The inverse: x, y, z into the rows a, b, c. */
DEM_TARGET_AVX2 static inline void xyz_to_rows(__m256d x, __m256d y, __m256d z,
                                               __m256d *a, __m256d *b,
                                               __m256d *c) {
  const __m256d m1 = _mm256_permute4x64_pd(x, _MM_SHUFFLE(1, 2, 3, 0));
  const __m256d m2 = _mm256_permute4x64_pd(y, _MM_SHUFFLE(2, 3, 0, 1));
  const __m256d m3 = _mm256_permute4x64_pd(z, _MM_SHUFFLE(3, 0, 1, 2));
  *a = _mm256_blend_pd(_mm256_blend_pd(m1, m2, 0x2), m3, 0x4);
  *b = _mm256_blend_pd(_mm256_blend_pd(m2, m3, 0x2), m1, 0x4);
  *c = _mm256_blend_pd(_mm256_blend_pd(m3, m1, 0x2), m2, 0x4);
}

/* The pose of four bodies as components over the bodies. */
struct poses4 {
  __m256d x, y, z, qw, qx, qy, qz;
};

/* The escapes of a vector of four lanes: all ones where a sphere lay
 * beyond a wall (what comparing vectors of doubles gives). */
typedef long long lanes4_out __attribute__((vector_size(32)));

/* What the twelve spheres of four bodies add up to: the largest squared
 * displacement per lane and the escapes. */
struct sum4 {
  __m256d most;
  lanes4_out out;
};

/* The offsets (as components) and radii of the twelve spheres of four
 * rods, a vector of four spheres each: spheres 0-3 (members 0 1 2 0 of
 * the bodies 0 0 0 1), 4-7 (1 2 0 1), 8-11 (2 0 1 2). */
struct members4 {
  __m256d x[3], y[3], z[3], r[3];
};

/* Defines LOAD, the members of the N rods whose first sphere is i from
 * the spheres' own offsets and radii, and OF_SHAPE, the members of N rods
 * of one shape sh (three spheres) at scale 1: its offsets and radii, the
 * numbers dem_body_pose gave their spheres (times a scale of 1); M holds
 * three vectors T of N lanes. One body for the AVX2 and AVX-512 kernels. */
#define DEM_DEFINE_MEMBERS(LOAD, OF_SHAPE, TARGET, M, T, N, LOADU, TO_XYZ)     \
  TARGET static inline __attribute__((always_inline)) void LOAD(               \
      const struct lanes *l, size_t i, M *m) {                                 \
    for (int v = 0; v < 3; v++) {                                              \
      const double *o = l->offset + 3 * (i + (N) * (size_t)v);                 \
      TO_XYZ(LOADU(o), LOADU(o + (N)), LOADU(o + 2 * (N)), &m->x[v], &m->y[v], \
             &m->z[v]);                                                        \
      m->r[v] = LOADU(l->radius + i + (N) * (size_t)v);                        \
    }                                                                          \
  }                                                                            \
  TARGET static void OF_SHAPE(const struct dem_shape *sh, M *m) {              \
    for (int v = 0; v < 3; v++) {                                              \
      double c[3][N], r[N];                                                    \
      for (int j = 0; j < (N); j++) {                                          \
        const int member = ((N)*v + j) % 3;                                    \
        for (int a = 0; a < 3; a++)                                            \
          c[a][j] = sh->offset[member][a];                                     \
        r[j] = sh->radius[member];                                             \
      }                                                                        \
      m->x[v] = LOADU(c[0]), m->y[v] = LOADU(c[1]);                            \
      m->z[v] = LOADU(c[2]), m->r[v] = LOADU(r);                               \
    }                                                                          \
  }

DEM_DEFINE_MEMBERS(members_load, members_of_shape, DEM_TARGET_AVX2,
                   struct members4, __m256d, 4, _mm256_loadu_pd, rows_to_xyz)

/* Whether rods k..k+3 are all of one shape of three spheres (*id) at
 * scale 1, so that their members are that shape's. */
DEM_TARGET_AVX2 static inline int one_shape(const struct dem_bodies *b,
                                            size_t k,
                                            const struct dem_place_shapes *t,
                                            int *id) {
  const int s0 = b->shape[k];
  const __m128i ids = _mm_loadu_si128((const __m128i *)(b->shape + k));
  const __m256d unit = _mm256_cmp_pd(_mm256_loadu_pd(b->scale + k),
                                     _mm256_set1_pd(1.0), _CMP_EQ_OQ);
  *id = s0;
  return _mm_movemask_epi8(_mm_cmpeq_epi32(ids, _mm_set1_epi32(s0))) ==
             0xffff &&
         _mm256_movemask_pd(unit) == 0xf && s0 >= 0 && (size_t)s0 < t->n &&
         t->shape[s0].n_spheres == 3;
}

/* The four spheres whose rows start at `row` (3 doubles each), vector v of
 * the members m, of the bodies `pick` selects from the four (a
 * _MM_SHUFFLE of lanes: each lane the body of its sphere). */
#define PLACE_FOUR(p, pick, m, v, l, row, sum)                                 \
  place_four(_mm256_permute4x64_pd((p)->x, pick),                              \
             _mm256_permute4x64_pd((p)->y, pick),                              \
             _mm256_permute4x64_pd((p)->z, pick),                              \
             _mm256_permute4x64_pd((p)->qw, pick),                             \
             _mm256_permute4x64_pd((p)->qx, pick),                             \
             _mm256_permute4x64_pd((p)->qy, pick),                             \
             _mm256_permute4x64_pd((p)->qz, pick), (m)->x[v], (m)->y[v],       \
             (m)->z[v], l, row, (m)->r[v], &(sum)->most, &(sum)->out)

/* Defines NAME: the operations of place_lane on a vector of N lanes (T,
 * __m256d or __m512d: GCC's vector operators do them lane by lane in
 * place_lane's order, with no FMA, so the bits are the same), each lane's
 * body pose already spread to it: the positions stored as rows, the
 * largest displacement since the build kept per lane in *most (MAX, as
 * `d2 > most ? d2 : most`) and the escapes or-ed into *out (ESCAPE: the
 * lanes below lo or above hi, as a vector or a mask of OUT). One body for
 * the AVX2 and the AVX-512 kernels. */
#define DEM_DEFINE_PLACE_LANES(NAME, TARGET, T, OUT, N, LOADU, STOREU,         \
                               TO_ROWS, TO_XYZ, MAX, ESCAPE)                   \
  TARGET static inline __attribute__((always_inline)) void NAME(               \
      T bx, T by, T bz, T qw, T qx, T qy, T qz, T vx, T vy, T vz,              \
      const struct lanes *l, size_t r, T R, T *most, OUT *out) {               \
    T tx = qy * vz - qz * vy, ty = qz * vx - qx * vz, tz = qx * vy - qy * vx;  \
    tx = tx * 2.0, ty = ty * 2.0, tz = tz * 2.0;                               \
    const T cx = qy * tz - qz * ty, cy = qz * tx - qx * tz,                    \
            cz = qx * ty - qy * tx;                                            \
    const T x = bx + (vx + qw * tx + cx), y = by + (vy + qw * ty + cy),        \
            z = bz + (vz + qw * tz + cz);                                      \
    T ra, rb, rc, ux, uy, uz;                                                  \
    TO_ROWS(x, y, z, &ra, &rb, &rc);                                           \
    STOREU(l->x + r, ra);                                                      \
    STOREU(l->x + r + (N), rb);                                                \
    STOREU(l->x + r + 2 * (N), rc);                                            \
    TO_XYZ(LOADU(l->x_build + r), LOADU(l->x_build + r + (N)),                 \
           LOADU(l->x_build + r + 2 * (N)), &ux, &uy, &uz);                    \
    const T mx = x - ux, my = y - uy, mz = z - uz;                             \
    *most = MAX(mx * mx + my * my + mz * mz, *most);                           \
    *out |= ESCAPE(x, l->lo0 - R, l->hi0 + R) |                                \
            ESCAPE(y, l->lo1 - R, l->hi1 + R) |                                \
            ESCAPE(z, l->lo2 - R, l->hi2 + R);                                 \
  }

/* The lanes where a lies below lo or above hi, as a vector (AVX2) or a
 * mask (AVX-512). */
DEM_TARGET_AVX2 static inline __attribute__((always_inline)) lanes4_out
escape4(__m256d a, __m256d lo, __m256d hi) {
  return (lanes4_out)(a < lo) | (lanes4_out)(a > hi);
}

DEM_DEFINE_PLACE_LANES(place_four, DEM_TARGET_AVX2, __m256d, lanes4_out, 4,
                       _mm256_loadu_pd, _mm256_storeu_pd, xyz_to_rows,
                       rows_to_xyz, _mm256_max_pd, escape4)

/* The twelve spheres of four rods, the first being sphere i, at the poses
 * p with the members m: spheres i..i+3 of bodies (0 0 0 1), i+4.. of
 * (1 1 2 2), i+8.. of (2 3 3 3). */
DEM_TARGET_AVX2 static inline __attribute__((always_inline)) void
place_rods4(const struct poses4 *p, const struct members4 *m,
            const struct lanes *l, size_t i, struct sum4 *sum) {
  PLACE_FOUR(p, _MM_SHUFFLE(1, 0, 0, 0), m, 0, l, 3 * i, sum);
  PLACE_FOUR(p, _MM_SHUFFLE(2, 2, 1, 1), m, 1, l, 3 * (i + 4), sum);
  PLACE_FOUR(p, _MM_SHUFFLE(3, 3, 3, 2), m, 2, l, 3 * (i + 8), sum);
}

/* The poses of rods k..k+3 as components over the bodies. */
DEM_TARGET_AVX2 static inline __attribute__((always_inline)) void
poses_load4(const struct dem_bodies *b, size_t k, struct poses4 *p) {
  const double *bx = b->x[k], *bq = b->q[k];
  rows_to_xyz(_mm256_loadu_pd(bx), _mm256_loadu_pd(bx + 4),
              _mm256_loadu_pd(bx + 8), &p->x, &p->y, &p->z);
  const __m256d q0 = _mm256_loadu_pd(bq), q1 = _mm256_loadu_pd(bq + 4),
                q2 = _mm256_loadu_pd(bq + 8), q3 = _mm256_loadu_pd(bq + 12);
  const __m256d l01 = _mm256_unpacklo_pd(q0, q1),
                h01 = _mm256_unpackhi_pd(q0, q1),
                l23 = _mm256_unpacklo_pd(q2, q3),
                h23 = _mm256_unpackhi_pd(q2, q3);
  p->qw = _mm256_permute2f128_pd(l01, l23, 0x20);
  p->qx = _mm256_permute2f128_pd(h01, h23, 0x20);
  p->qy = _mm256_permute2f128_pd(l01, l23, 0x31);
  p->qz = _mm256_permute2f128_pd(h01, h23, 0x31);
}

/* The four lanes' largest displacement and escapes into the caller's. */
DEM_TARGET_AVX2 static inline __attribute__((always_inline)) void
sum_reduce4(const struct sum4 *sum, double *worst, int *escaped) {
  double m[4];
  _mm256_storeu_pd(m, sum->most);
  for (int j = 0; j < 4; j++)
    *worst = m[j] > *worst ? m[j] : *worst;
  *escaped |= _mm256_movemask_pd((__m256d)sum->out) != 0;
}

/* Defines NAME: places the spheres of bodies k0..k1-1 (k1 - k0 >= N),
 * three each, the first being sphere i0: N bodies at a time, the last N
 * ending at k1 (they may overlap the N before, whose spheres are then
 * placed again with the same bits, which changes neither the largest
 * displacement nor the escapes). N rods of one shape at scale 1 (with
 * `shapes`) take their members' offsets and radii from the shape, held in
 * registers, rather than reading 32 bytes a sphere: at 1e6 spheres,
 * where every byte comes from memory, update_spheres took about a fifth
 * less time (docs/performance.md, "Rods' members from their shape").
 * One body for the AVX2 kernel (N = 4) and the AVX-512 one (N = 8). */
#define DEM_DEFINE_PLACE_RODS(NAME, TARGET, N, POSES, MEMBERS, SUM,            \
                              POSES_LOAD, ONE_SHAPE, OF_SHAPE, LOAD, PLACE,    \
                              REDUCE)                                          \
  TARGET static void NAME(                                                     \
      struct dem_spheres *s, const struct dem_bodies *b,                       \
      const struct dem_place_shapes *shapes, size_t k0, size_t k1, size_t i0,  \
      const struct dem_place_walls *w, double *worst, int *escaped) {          \
    const struct lanes l = lanes_of(s, w);                                     \
    SUM sum; /* the largest displacement and the escapes: none yet */          \
    memset(&sum, 0, sizeof sum);                                               \
    /* Set before its first use (shape_held is -1); zeroed only because        \
     * gcc cannot see that and warns. */                                       \
    MEMBERS of_shape;                                                          \
    memset(&of_shape, 0, sizeof of_shape);                                     \
    int shape_held = -1; /* whose members of_shape holds */                    \
    for (size_t kn = k0; kn < k1; kn += (N)) {                                 \
      const size_t k = kn + (N) <= k1 ? kn : k1 - (N);                         \
      POSES p;                                                                 \
      POSES_LOAD(b, k, &p);                                                    \
      const size_t i = i0 + 3 * (k - k0);                                      \
      int id;                                                                  \
      if (shapes && ONE_SHAPE(b, k, shapes, &id)) {                            \
        if (id != shape_held)                                                  \
          OF_SHAPE(&shapes->shape[id], &of_shape), shape_held = id;            \
        PLACE(&p, &of_shape, &l, i, &sum);                                     \
      } else {                                                                 \
        MEMBERS own;                                                           \
        LOAD(&l, i, &own);                                                     \
        PLACE(&p, &own, &l, i, &sum);                                          \
      }                                                                        \
    }                                                                          \
    REDUCE(&sum, worst, escaped);                                              \
  }

DEM_DEFINE_PLACE_RODS(place_rods_avx2, DEM_TARGET_AVX2, 4, struct poses4,
                      struct members4, struct sum4, poses_load4, one_shape,
                      members_of_shape, members_load, place_rods4, sum_reduce4)

/* Rods eight at a time (24 spheres, three vectors of eight) in AVX-512
 * registers: the AVX2 kernel's work, twice as wide and with 32 registers,
 * where the AVX2 kernel spills. The same operations in each lane, so the
 * same bits. At 60,000 spheres on one thread update_spheres took
 * 150-158 ms over 1,000 steps where the AVX2 kernel took 213-218 ms
 * (docs/performance.md, "Rods eight at a time"). */

/* An index vector, lane 0 first. */
#define IDX8(a, b, c, d, e, f, g, h) _mm512_set_epi64(h, g, f, e, d, c, b, a)

/* Lanes ab picks from a (0-7) and b (8-15), then the lanes of mask k
 * taken from c (ic). */
DEM_TARGET_AVX512 static inline __attribute__((always_inline)) __m512d
pick3(__m512d a, __m512i ab, __m512d b, __mmask8 k, __m512i ic, __m512d c) {
  return _mm512_mask_permutexvar_pd(_mm512_permutex2var_pd(a, ab, b), k, ic, c);
}

/* Rows a = (x0 y0 z0 x1 y1 z1 x2 y2), b = (z2 x3 y3 z3 x4 y4 z4 x5),
 * c = (y5 z5 x6 y6 z6 x7 y7 z7) into x = (x0 .. x7), y, z; and back. */
DEM_TARGET_AVX512 static inline __attribute__((always_inline)) void
rows_to_xyz8(__m512d a, __m512d b, __m512d c, __m512d *x, __m512d *y,
             __m512d *z) {
  *x = pick3(a, IDX8(0, 3, 6, 9, 12, 15, 0, 0), b, 0xc0,
             IDX8(0, 0, 0, 0, 0, 0, 2, 5), c);
  *y = pick3(a, IDX8(1, 4, 7, 10, 13, 0, 0, 0), b, 0xe0,
             IDX8(0, 0, 0, 0, 0, 0, 3, 6), c);
  *z = pick3(a, IDX8(2, 5, 8, 11, 14, 0, 0, 0), b, 0xe0,
             IDX8(0, 0, 0, 0, 0, 1, 4, 7), c);
}
DEM_TARGET_AVX512 static inline __attribute__((always_inline)) void
xyz_to_rows8(__m512d x, __m512d y, __m512d z, __m512d *a, __m512d *b,
             __m512d *c) {
  *a = pick3(x, IDX8(0, 8, 0, 1, 9, 0, 2, 10), y, 0x24,
             IDX8(0, 0, 0, 0, 0, 1, 0, 0), z);
  *b = pick3(x, IDX8(0, 3, 11, 0, 4, 12, 0, 5), y, 0x49,
             IDX8(2, 0, 0, 3, 0, 0, 4, 0), z);
  *c = pick3(x, IDX8(13, 0, 6, 14, 0, 7, 15, 0), y, 0x92,
             IDX8(0, 5, 0, 0, 6, 0, 0, 7), z);
}

struct poses8 {
  __m512d x, y, z, qw, qx, qy, qz;
};

/* The 24 spheres of eight rods: spheres 0-7 are members (0 1 2 0 1 2 0 1)
 * of bodies (0 0 0 1 1 1 2 2), 8-15 (2 0 1 2 0 1 2 0) of (2 3 3 3 4 4 4 5),
 * 16-23 (1 2 0 1 2 0 1 2) of (5 5 6 6 6 7 7 7). */
struct members8 {
  __m512d x[3], y[3], z[3], r[3];
};

DEM_DEFINE_MEMBERS(members_load8, members_of_shape8, DEM_TARGET_AVX512,
                   struct members8, __m512d, 8, _mm512_loadu_pd, rows_to_xyz8)

/* Whether rods k..k+7 are all of one shape of three spheres (*id) at
 * scale 1. */
static inline int one_shape8(const struct dem_bodies *b, size_t k,
                             const struct dem_place_shapes *t, int *id) {
  const int s0 = b->shape[k];
  int same = 1;
  for (size_t j = 0; j < 8; j++)
    same &= (b->shape[k + j] == s0) & (b->scale[k + j] == 1.0);
  *id = s0;
  return same && s0 >= 0 && (size_t)s0 < t->n && t->shape[s0].n_spheres == 3;
}

DEM_TARGET_AVX512 static inline __attribute__((always_inline)) __mmask8
escape8(__m512d a, __m512d lo, __m512d hi) {
  return _mm512_cmp_pd_mask(a, lo, _CMP_LT_OQ) |
         _mm512_cmp_pd_mask(a, hi, _CMP_GT_OQ);
}

DEM_DEFINE_PLACE_LANES(place_eight, DEM_TARGET_AVX512, __m512d, __mmask8, 8,
                       _mm512_loadu_pd, _mm512_storeu_pd, xyz_to_rows8,
                       rows_to_xyz8, _mm512_max_pd, escape8)

/* Vector v of the 24 spheres of eight rods, whose rows start at `row`:
 * each lane at the pose of its body (`pick`: the bodies of the lanes). */
DEM_TARGET_AVX512 static inline __attribute__((always_inline)) void
place_eight_of(const struct poses8 *p, __m512i pick, const struct members8 *m,
               int v, const struct lanes *l, size_t row, __m512d *most,
               __mmask8 *out) {
  place_eight(
      _mm512_permutexvar_pd(pick, p->x), _mm512_permutexvar_pd(pick, p->y),
      _mm512_permutexvar_pd(pick, p->z), _mm512_permutexvar_pd(pick, p->qw),
      _mm512_permutexvar_pd(pick, p->qx), _mm512_permutexvar_pd(pick, p->qy),
      _mm512_permutexvar_pd(pick, p->qz), m->x[v], m->y[v], m->z[v], l, row,
      m->r[v], most, out);
}

/* The poses of rods k..k+7 as components over the bodies: q of bodies
 * (0 1), (2 3), (4 5), (6 7) into w and x of 0-3 and of 4-7, y and z the
 * same, then the halves joined. */
DEM_TARGET_AVX512 static inline __attribute__((always_inline)) void
poses_load8(const struct dem_bodies *b, size_t k, struct poses8 *p) {
  const double *bx = b->x[k], *bq = b->q[k];
  rows_to_xyz8(_mm512_loadu_pd(bx), _mm512_loadu_pd(bx + 8),
               _mm512_loadu_pd(bx + 16), &p->x, &p->y, &p->z);
  const __m512d q0 = _mm512_loadu_pd(bq), q1 = _mm512_loadu_pd(bq + 8),
                q2 = _mm512_loadu_pd(bq + 16), q3 = _mm512_loadu_pd(bq + 24);
  const __m512i wx = IDX8(0, 4, 8, 12, 1, 5, 9, 13),
                yz = IDX8(2, 6, 10, 14, 3, 7, 11, 15),
                lo = IDX8(0, 1, 2, 3, 8, 9, 10, 11),
                hi = IDX8(4, 5, 6, 7, 12, 13, 14, 15);
  const __m512d wx03 = _mm512_permutex2var_pd(q0, wx, q1),
                wx47 = _mm512_permutex2var_pd(q2, wx, q3),
                yz03 = _mm512_permutex2var_pd(q0, yz, q1),
                yz47 = _mm512_permutex2var_pd(q2, yz, q3);
  p->qw = _mm512_permutex2var_pd(wx03, lo, wx47);
  p->qx = _mm512_permutex2var_pd(wx03, hi, wx47);
  p->qy = _mm512_permutex2var_pd(yz03, lo, yz47);
  p->qz = _mm512_permutex2var_pd(yz03, hi, yz47);
}

/* What the 24 spheres of eight rods add up to, as struct sum4. */
struct sum8 {
  __m512d most;
  __mmask8 out;
};

/* The 24 spheres of eight rods, the first being sphere i, at the poses p
 * with the members m (struct members8 says which body each lane's is). */
DEM_TARGET_AVX512 static inline __attribute__((always_inline)) void
place_rods8(const struct poses8 *p, const struct members8 *m,
            const struct lanes *l, size_t i, struct sum8 *sum) {
  place_eight_of(p, IDX8(0, 0, 0, 1, 1, 1, 2, 2), m, 0, l, 3 * i, &sum->most,
                 &sum->out);
  place_eight_of(p, IDX8(2, 3, 3, 3, 4, 4, 4, 5), m, 1, l, 3 * (i + 8),
                 &sum->most, &sum->out);
  place_eight_of(p, IDX8(5, 5, 6, 6, 6, 7, 7, 7), m, 2, l, 3 * (i + 16),
                 &sum->most, &sum->out);
}

DEM_TARGET_AVX512 static inline __attribute__((always_inline)) void
sum_reduce8(const struct sum8 *sum, double *worst, int *escaped) {
  double d[8];
  _mm512_storeu_pd(d, sum->most);
  for (int j = 0; j < 8; j++)
    *worst = d[j] > *worst ? d[j] : *worst;
  *escaped |= sum->out != 0;
}

DEM_DEFINE_PLACE_RODS(place_rods_avx512, DEM_TARGET_AVX512, 8, struct poses8,
                      struct members8, struct sum8, poses_load8, one_shape8,
                      members_of_shape8, members_load8, place_rods8,
                      sum_reduce8)

/* Whether bodies k0..k1-1 all have three members (rods); AVX2, as the
 * kernel it chooses, to test four bodies at once. */
DEM_TARGET_AVX2 static int all_rods(const struct dem_bodies *b, size_t k0,
                                    size_t k1) {
  const size_t *first = b->first_member;
  size_t odd = 0;
  for (size_t k = k0; k < k1; k++)
    odd |= (first[k + 1] - first[k]) ^ 3u;
  return odd == 0;
}
#endif

void dem_place_bodies(struct dem_spheres *s, const struct dem_bodies *b,
                      const struct dem_place_shapes *shapes, size_t k0,
                      size_t k1, const struct dem_place_walls *w, double *worst,
                      int *escaped) {
  if (k1 <= k0)
    return;
#if DEM_ISA_VARIANTS
  if (dem_isa_best() >= DEM_ISA_AVX512 && k1 - k0 >= 8 && all_rods(b, k0, k1)) {
    place_rods_avx512(s, b, shapes, k0, k1, b->first_member[k0], w, worst,
                      escaped);
    return;
  }
  if (dem_isa_best() >= DEM_ISA_AVX2 && k1 - k0 >= 4 && all_rods(b, k0, k1)) {
    place_rods_avx2(s, b, shapes, k0, k1, b->first_member[k0], w, worst,
                    escaped);
    return;
  }
#endif
  dem_place_range(s, b, b->first_member[k0], b->first_member[k1], w, worst,
                  escaped);
}

DEM_ISA_DISPATCH(dem_place_range,
                 (struct dem_spheres * s, const struct dem_bodies *b, size_t i0,
                  size_t i1, const struct dem_place_walls *w, double *worst,
                  int *escaped),
                 place_range, (s, b, i0, i1, w, worst, escaped))

DEM_ISA_DISPATCH(dem_place_members,
                 (struct dem_spheres * s, const struct dem_bodies *b, size_t k,
                  const int *idx, size_t i0, size_t n,
                  const struct dem_place_walls *w, double *worst, int *escaped),
                 place_members, (s, b, k, idx, i0, n, w, worst, escaped))

DEM_ISA_DISPATCH(dem_place_list,
                 (struct dem_spheres * s, const struct dem_bodies *b,
                  const int *idx, size_t n, const struct dem_place_walls *w,
                  double *worst, int *escaped),
                 place_list, (s, b, idx, n, w, worst, escaped))
