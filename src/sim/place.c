/* Spheres placed at their bodies' poses: x = x_body + q_rotate(q, offset),
 * in vector lanes, with the displacement since the build and the escape
 * check on the way. */
#include "sim/place.h"

#include <math.h>

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
