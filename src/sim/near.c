/* Work only where contacts can happen: the active spheres placed each
 * step, the rest of a body when the bound on its motion fails. */
#include "sim/near.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/isa.h"

/* Allowance for rounding, relative to the sizes involved: the placements
 * and this bound round at about 1e-16 of them. */
#define ROUNDING 1e-12

/* Bodies whose bounds are computed together (on the stack). */
enum { NEAR_BLOCK = 256 };

static double norm2_q(const double q[4]) {
  return q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
}

/* Body k's anchor at its pose now, where its spheres have moved by at
 * most sqrt(moved2) since the build. */
static void anchor(struct dem_near *nr, const struct dem_bodies *b, size_t k,
                   double moved2) {
  const double *x = b->x[k], *q = b->q[k];
  v3_copy(nr->x_at[k], x);
  q_copy(nr->q_at[k], q);
  nr->moved[k] = sqrt(moved2);
  nr->slack[k] = ROUNDING * (fabs(x[0]) + fabs(x[1]) + fabs(x[2]) +
                             nr->reach[k] * norm2_q(q));
}

/* An upper bound on the squared displacement of body k's spheres since
 * the build. q_rotate is r = M(q) v with
 *   M(q) = (1 - 2|u|^2) I + 2 u u^T + 2 w [u]x = s^2 R + (1 - s^2) I
 * for any q = s q^ (|q^| = 1, R its rotation; SPIRAL does not normalise,
 * so s drifts from 1). A sphere at p (|p| <= reach) was at x_a + M(q_a) p
 * at the anchor, within `moved` of where the build saw it, and is now at
 * x + M(q) p: it has moved by at most
 *   moved + |x - x_a| + ||M(q) - M(q_a)|| reach.
 * M(q) - M(q_a) = s^2 (R - R_a) + (s^2 - s_a^2)(R_a - I), and R - R_a
 * turns by the angle t of d = q_a* q, so ||R - R_a|| = 2 sin(t/2) =
 * 2 |d_v| / |d| with |d| = s s_a (d's vector part: no cancellation as in
 * 1 - cos): ||M(q) - M(q_a)|| <= 2 (s / s_a) |d_v| + 2 |s^2 - s_a^2|. For
 * a unit quaternion and a sphere at `reach` normal to the axis this is
 * exact, so a body is rarely placed whole before the build it triggers;
 * plus rounding. The squared bounds of bodies k0..k1-1 into b2[0..), in
 * vector lanes: d = q_a* q's vector part, the norms and the sums spelled
 * out on scalars for `omp simd`. */
static DEM_ALWAYS_INLINE void bounds_lanes(const struct dem_near *nr,
                                           const struct dem_bodies *b,
                                           size_t k0, size_t k1,
                                           double *restrict b2) {
  const double *restrict x = &b->x[0][0], *restrict q = &b->q[0][0];
  const double *restrict xa = &nr->x_at[0][0], *restrict qa = &nr->q_at[0][0];
  const double *restrict moved = nr->moved, *restrict reach = nr->reach,
                         *restrict slack = nr->slack;
#pragma omp simd
  for (size_t k = k0; k < k1; k++) {
    const double q0 = q[4 * k], q1 = q[4 * k + 1], q2 = q[4 * k + 2],
                 q3 = q[4 * k + 3];
    const double a0 = qa[4 * k], a1 = qa[4 * k + 1], a2 = qa[4 * k + 2],
                 a3 = qa[4 * k + 3];
    const double c0 = a0, c1 = -a1, c2 = -a2, c3 = -a3;
    const double d1 = c0 * q1 + c1 * q0 + c2 * q3 - c3 * q2;
    const double d2 = c0 * q2 - c1 * q3 + c2 * q0 + c3 * q1;
    const double d3 = c0 * q3 + c1 * q2 - c2 * q1 + c3 * q0;
    const double s2 = q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3;
    const double sa2 = a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3;
    const double R = reach[k];
    const double dv = sqrt(d1 * d1 + d2 * d2 + d3 * d3);
    const double turn = 2 * sqrt(s2 / sa2) * dv + 2 * fabs(s2 - sa2);
    const double x0 = x[3 * k], x1 = x[3 * k + 1], x2 = x[3 * k + 2];
    const double dx0 = x0 - xa[3 * k], dx1 = x1 - xa[3 * k + 1],
                 dx2 = x2 - xa[3 * k + 2];
    const double round =
        slack[k] + ROUNDING * (fabs(x0) + fabs(x1) + fabs(x2) + R * s2);
    const double bound = (moved[k] + sqrt(dx0 * dx0 + dx1 * dx1 + dx2 * dx2) +
                          turn * R + round) *
                         (1 + ROUNDING);
    b2[k - k0] = bound * bound;
  }
}

DEM_ISA_DISPATCH_STATIC(near_bounds,
                        (const struct dem_near *nr, const struct dem_bodies *b,
                         size_t k0, size_t k1, double *b2),
                        bounds_lanes, (nr, b, k0, k1, b2))

static dem_status reserve(struct dem_near **p, size_t n) {
  if (!*p && !(*p = calloc(1, sizeof **p)))
    return dem_fail(DEM_ERR_NOMEM, "out of memory for near bodies");
  struct dem_near *nr = *p;
  if (nr->cap >= n)
    return DEM_OK;
  free(nr->act), free(nr->x_at), free(nr->q_at), free(nr->moved);
  free(nr->reach), free(nr->slack);
  nr->act = malloc((n + 1) * sizeof *nr->act);
  nr->x_at = malloc(n * sizeof *nr->x_at);
  nr->q_at = malloc(n * sizeof *nr->q_at);
  nr->moved = malloc(n * sizeof *nr->moved);
  nr->reach = malloc(n * sizeof *nr->reach);
  nr->slack = malloc(n * sizeof *nr->slack);
  nr->cap = n;
  if (!nr->act || !nr->x_at || !nr->q_at || !nr->moved || !nr->reach ||
      !nr->slack) {
    nr->cap = 0;
    return dem_fail(DEM_ERR_NOMEM, "out of memory for %zu near bodies", n);
  }
  return DEM_OK;
}

/* max |offset| of each shape's template spheres, into nr->shape_reach. */
static dem_status shape_reaches(struct dem_near *nr,
                                const struct dem_sim *sim) {
  if (nr->shape_cap < sim->n_shapes) {
    free(nr->shape_reach);
    nr->shape_reach = malloc(sim->n_shapes * sizeof *nr->shape_reach);
    nr->shape_cap = nr->shape_reach ? sim->n_shapes : 0;
    if (!nr->shape_reach)
      return dem_fail(DEM_ERR_NOMEM, "out of memory for near bodies");
  }
  for (size_t k = 0; k < sim->n_shapes; k++) {
    const struct dem_shape *sh = &sim->shapes[k];
    double r = 0;
    for (size_t i = 0; i < sh->n_spheres; i++) {
      double o = v3_norm(sh->offset[i]);
      r = o > r ? o : r;
    }
    nr->shape_reach[k] = r;
  }
  return DEM_OK;
}

/* max |offset| of body k's spheres, from its shape's template: offsets
 * are the template's times the scale, rounded. */
static double reach_of(const struct dem_near *nr, const struct dem_sim *sim,
                       size_t k) {
  return nr->shape_reach[sim->b.shape[k]] * sim->b.scale[k] * (1 + ROUNDING);
}

dem_status dem_near_update(struct dem_sim *sim) {
  const struct dem_bodies *b = &sim->b;
  const struct dem_spheres *s = &sim->s;
  struct dem_neighbors *nb = &sim->nb;
  const size_t n = b->n;
  if (nb->near)
    nb->near->n_bodies = 0, nb->near->stale = 0;
  if (n == 0 || s->forces_dirty ||
      4 * (nb->n_active + DEM_NEAR_BODY_COST * n) > 3 * s->n)
    return DEM_OK;
  dem_status st = reserve(&nb->near, n);
  if (st)
    return st;
  struct dem_near *nr = nb->near;
  if ((st = shape_reaches(nr, sim)))
    return st;
  /* The active list ascends and each body's spheres are contiguous:
   * body k's active spheres start at the first active index not below
   * its first member. */
  const long nl = (long)n;
  DEM_PARALLEL_IF(
      nl > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long k = 0; k < nl; k++) {
    size_t lo = 0, hi = nb->n_active;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if ((size_t)nb->active[mid] < b->first_member[k])
        lo = mid + 1;
      else
        hi = mid;
    }
    nr->act[k] = lo;
    nr->reach[k] = reach_of(nr, sim, (size_t)k);
    anchor(nr, b, (size_t)k, 0.0);
      });
  nr->act[n] = nb->n_active;
  nr->n_bodies = n;
  return DEM_OK;
}

/* Spheres left unplaced cannot lie beyond a wall: at the build each was
 * more than r + skin inside every wall (else it would have a wall contact
 * and be active), and it has moved less than skin/2 since. */
void dem_near_update_spheres(struct dem_sim *sim,
                             const struct dem_place_walls *w) {
  struct dem_spheres *s = &sim->s;
  const struct dem_bodies *b = &sim->b;
  struct dem_near *nr = sim->nb.near;
  const size_t *act = nr->act, *first = b->first_member;
  const int *active = sim->nb.active;
  const double limit = 0.25 * sim->nb.skin * sim->nb.skin;
  const long n_blocks = (long)((b->n + NEAR_BLOCK - 1) / NEAR_BLOCK);
  double worst = 0.0, bound = 0.0;
  int escaped = 0, skipped = 0;
  /* Blocks of bodies: their bounds in vector lanes, then the active
   * spheres of the bodies within the limit, a run of the active list at
   * a time (in lanes, sim/place.c), and whole the bodies beyond it. */
  DEM_PARALLEL_IF(
      sim->nb.n_active + DEM_NEAR_BODY_COST * b->n > DEM_PARALLEL_MIN,
      omp parallel for schedule(static) reduction(max : worst, bound)
          reduction(| : escaped, skipped),
      for (long blk = 0; blk < n_blocks; blk++) {
    const size_t k0 = (size_t)blk * NEAR_BLOCK,
                 k1 = k0 + NEAR_BLOCK < b->n ? k0 + NEAR_BLOCK : b->n;
    double b2[NEAR_BLOCK];
    near_bounds(nr, b, k0, k1, b2);
    size_t run = act[k0]; /* active spheres not yet placed, from here */
    for (size_t k = k0; k < k1; k++) {
      const double bk = b2[k - k0];
      if (bk <= limit) {
        if (act[k + 1] - act[k] < first[k + 1] - first[k]) {
          bound = bk > bound ? bk : bound;
          skipped = 1;
        }
        continue;
      }
      dem_place_list(s, b, active + run, act[k] - run, w, &worst, &escaped);
      run = act[k + 1];
      double most = 0.0;
      dem_place_members(s, b, k, NULL, first[k], first[k + 1] - first[k], w,
                        &most, &escaped);
      anchor(nr, b, k, most);
      worst = most > worst ? most : worst;
    }
    dem_place_list(s, b, active + run, act[k1] - run, w, &worst, &escaped);
      });
  sim->nb.moved2 = worst;
  sim->nb.far_bound2 = bound;
  sim->nb.moved2_known = 1;
  s->escaped = escaped;
  s->escape_known = 1;
  nr->stale = skipped;
}

/* Places every sphere, anchors every body at its pose now; the largest
 * squared displacement. */
static double place_all(struct dem_sim *sim) {
  struct dem_spheres *s = &sim->s;
  const struct dem_bodies *b = &sim->b;
  struct dem_near *nr = sim->nb.near;
  const struct dem_place_walls open = {{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL},
                                       {HUGE_VAL, HUGE_VAL, HUGE_VAL}};
  long n = (long)b->n;
  double worst = 0.0;
  DEM_PARALLEL_IF(
      s->n > DEM_PARALLEL_MIN,
      omp parallel for schedule(static) reduction(max : worst),
      for (long k = 0; k < n; k++) {
    const size_t m0 = b->first_member[k], m1 = b->first_member[k + 1];
    double most = 0.0;
    int out = 0;
    dem_place_members(s, b, (size_t)k, NULL, m0, m1 - m0, &open, &most, &out);
    anchor(nr, b, (size_t)k, most);
    worst = most > worst ? most : worst;
      });
  nr->stale = 0;
  return worst;
}

double dem_near_moved2(struct dem_sim *sim) {
  return dem_near_on(sim) ? place_all(sim) : 0.0;
}

void dem_near_place_all(struct dem_sim *sim) {
  if (dem_near_on(sim) && sim->nb.near->stale)
    place_all(sim);
}

void dem_near_forget(struct dem_sim *sim) {
  dem_near_place_all(sim);
  if (sim->nb.near)
    sim->nb.near->n_bodies = 0;
}

void dem_near_release(struct dem_neighbors *nb) {
  struct dem_near *nr = nb->near;
  if (!nr)
    return;
  free(nr->act), free(nr->x_at), free(nr->q_at), free(nr->moved);
  free(nr->reach), free(nr->slack), free(nr->shape_reach);
  free(nr);
  nb->near = NULL;
}
