/* Mesh walls in the state: placing the meshes, how far they moved, and
 * the triangle grid that finds the triangles near a sphere. */
#include "sim/mesh_walls.h"

#include <stdlib.h>
#include <string.h>

void dem_mesh_walls_place(struct dem_sim *sim, double t) {
  struct dem_mesh_walls *mw = sim->mw;
  if (!mw || !mw->moving || t == mw->t_placed)
    return;
  for (size_t m = 0; m < mw->n; m++)
    if (mw->mesh[m].motion.moving)
      dem_mesh_place(&mw->mesh[m], t);
  mw->t_placed = t;
}

void dem_mesh_vertex_at(const struct dem_mesh *m, size_t k, double t,
                        double out[3]) {
  const struct dem_motion *mo = &m->motion;
  double tau = t - mo->start;
  if (tau <= 0) {
    v3_copy(out, m->rest[k]);
    return;
  }
  double w = v3_norm(mo->angular_velocity), r[3];
  v3_sub(r, m->rest[k], mo->center);
  if (w > 0) {
    /* Rodrigues: r cos + (a x r) sin + a (a.r)(1 - cos), a the unit axis. */
    double a[3], axr[3], th = w * tau, c = cos(th), s = sin(th);
    v3_scale(a, mo->angular_velocity, 1.0 / w);
    v3_cross(axr, a, r);
    double ar = v3_dot(a, r);
    for (int j = 0; j < 3; j++)
      r[j] = r[j] * c + axr[j] * s + a[j] * ar * (1 - c);
  }
  v3_add(out, mo->center, r);
  v3_axpy(out, tau, mo->velocity);
}

double dem_mesh_walls_moved2(struct dem_sim *sim, double t) {
  const struct dem_mesh_walls *mw = sim->mw;
  double worst = 0;
  if (!mw || !mw->moving)
    return 0;
  for (size_t m = 0; m < mw->n; m++) {
    const struct dem_mesh *me = &mw->mesh[m];
    if (!me->motion.moving)
      continue;
    for (size_t k = 0; k < me->n_vert; k++) {
      double a[3], b[3], d[3];
      dem_mesh_vertex_at(me, k, t, a);
      dem_mesh_vertex_at(me, k, mw->t_build, b);
      v3_sub(d, a, b);
      double d2 = v3_dot(d, d);
      worst = d2 > worst ? d2 : worst;
    }
  }
  return worst;
}

/* The box of triangle t of mesh m, widened by `by`. */
static void tri_box(const struct dem_mesh *m, size_t t, double by, double lo[3],
                    double hi[3]) {
  for (int j = 0; j < 3; j++) {
    lo[j] = HUGE_VAL;
    hi[j] = -HUGE_VAL;
  }
  for (int v = 0; v < 3; v++)
    for (int j = 0; j < 3; j++) {
      double x = m->v[m->tri[t][v]][j];
      lo[j] = x < lo[j] ? x : lo[j];
      hi[j] = x > hi[j] ? x : hi[j];
    }
  for (int j = 0; j < 3; j++)
    lo[j] -= by, hi[j] += by;
}

/* The cells [c0, c1] a box covers (clamped to the grid). */
static void cell_range(const struct dem_mesh_walls *mw, const double lo[3],
                       const double hi[3], size_t c0[3], size_t c1[3]) {
  for (int j = 0; j < 3; j++) {
    double a = (lo[j] - mw->lo[j]) / mw->h, b = (hi[j] - mw->lo[j]) / mw->h;
    double top = (double)(mw->dims[j] - 1);
    c0[j] = a > 0 ? (a < top ? (size_t)a : mw->dims[j] - 1) : 0;
    c1[j] = b > 0 ? (b < top ? (size_t)b : mw->dims[j] - 1) : 0;
  }
}

/* Most cells along an axis, and in all. */
#define GRID_MAX_DIM 256
#define GRID_MAX_CELLS (1u << 21)

dem_status dem_mesh_walls_grid(struct dem_sim *sim) {
  struct dem_mesh_walls *mw = sim->mw;
  const double reach = sim->max_radius + sim->nb.skin;
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL};
  double hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (size_t m = 0; m < mw->n; m++)
    for (size_t t = 0; t < mw->mesh[m].n_tri; t++) {
      double a[3], b[3];
      tri_box(&mw->mesh[m], t, reach, a, b);
      for (int j = 0; j < 3; j++) {
        lo[j] = a[j] < lo[j] ? a[j] : lo[j];
        hi[j] = b[j] > hi[j] ? b[j] : hi[j];
      }
    }
  /* Cells about two reaches wide, no more than the limits allow. */
  double h = 2 * reach, ext = 0;
  for (int j = 0; j < 3; j++)
    ext = hi[j] - lo[j] > ext ? hi[j] - lo[j] : ext;
  if (ext / h > GRID_MAX_DIM)
    h = ext / GRID_MAX_DIM;
  for (;;) {
    size_t cells = 1;
    for (int j = 0; j < 3; j++) {
      double d = floor((hi[j] - lo[j]) / h) + 1;
      mw->dims[j] = (size_t)d;
      cells *= mw->dims[j];
    }
    if (cells <= GRID_MAX_CELLS)
      break;
    h *= 1.25;
  }
  memcpy(mw->lo, lo, sizeof lo);
  mw->h = h;
  size_t nc = mw->dims[0] * mw->dims[1] * mw->dims[2];
  if (nc != mw->n_cells || !mw->start) {
    free(mw->start);
    mw->start = calloc(nc + 1, sizeof *mw->start);
    if (!mw->start)
      return dem_fail(DEM_ERR_NOMEM, "out of memory for the mesh grid");
    mw->n_cells = nc;
  }
  memset(mw->start, 0, (nc + 1) * sizeof *mw->start);
  /* Count, then place: each triangle in every cell its widened box
   * covers, in (mesh, triangle) order. */
  for (int pass = 0; pass < 2; pass++) {
    size_t total = 0;
    for (size_t m = 0; m < mw->n; m++)
      for (size_t t = 0; t < mw->mesh[m].n_tri; t++) {
        double a[3], b[3];
        size_t c0[3], c1[3];
        tri_box(&mw->mesh[m], t, reach, a, b);
        cell_range(mw, a, b, c0, c1);
        for (size_t z = c0[2]; z <= c1[2]; z++)
          for (size_t y = c0[1]; y <= c1[1]; y++)
            for (size_t x = c0[0]; x <= c1[0]; x++) {
              size_t c = (z * mw->dims[1] + y) * mw->dims[0] + x;
              if (pass == 0) {
                mw->start[c + 1]++;
              } else {
                size_t at = mw->count[c]++;
                mw->item[at][0] = (int)m;
                mw->item[at][1] = (int)t;
              }
              total++;
            }
      }
    if (pass == 0) {
      for (size_t c = 0; c < nc; c++)
        mw->start[c + 1] += mw->start[c];
      if (total > mw->cap_items) {
        free(mw->item);
        mw->item = malloc(total * sizeof *mw->item);
        if (!mw->item)
          return dem_fail(DEM_ERR_NOMEM, "out of memory for the mesh grid");
        mw->cap_items = total;
      }
      mw->n_items = total;
      /* count[] as the fill pointers (it holds at least n_cells + 1). */
      free(mw->count);
      mw->count = malloc((nc + 1) * sizeof *mw->count);
      if (!mw->count)
        return dem_fail(DEM_ERR_NOMEM, "out of memory for the mesh grid");
      memcpy(mw->count, mw->start, nc * sizeof *mw->count);
    }
  }
  mw->t_build = mw->t_placed;
  return DEM_OK;
}

/* Appends to out (from place n; up to cap) the triangles within reach of
 * x, tagged with `shift`: the query x is the sphere's centre less shift,
 * so the triangle it finds is, moved by shift, the copy near the sphere.
 * Returns the new count. */
static size_t near_copy(const struct dem_sim *sim, const double x[3],
                        const double shift[3], double reach,
                        struct dem_mesh_hit *out, size_t cap, size_t n) {
  const struct dem_mesh_walls *mw = sim->mw;
  size_t c[3];
  for (int j = 0; j < 3; j++) {
    double u = (x[j] - mw->lo[j]) / mw->h;
    if (!(u >= 0) || u >= (double)mw->dims[j])
      return n; /* beyond every widened triangle */
    c[j] = (size_t)u;
  }
  size_t cell = (c[2] * mw->dims[1] + c[1]) * mw->dims[0] + c[0];
  for (size_t q = mw->start[cell]; q < mw->start[cell + 1]; q++) {
    const int m = mw->item[q][0], t = mw->item[q][1];
    const struct dem_mesh *me = &mw->mesh[m];
    double p[3], d[3];
    dem_triangle_closest(x, me->v[me->tri[t][0]], me->v[me->tri[t][1]],
                         me->v[me->tri[t][2]], p);
    v3_sub(d, x, p);
    if (!(v3_dot(d, d) < reach * reach))
      continue;
    if (n < cap) {
      out[n].patch = mw->patch_base[m] + me->patch[t];
      out[n].tri = t;
      v3_copy(out[n].shift, shift);
    }
    n++;
  }
  return n;
}

/* The whole periods n[k] (along periodic axes k; 0 along the others) by
 * which the box [lo, hi] moved may hold x: from first[k] to last[k]. */
static void copies_of(const struct dem_walls *wl, const double x[3],
                      const double lo[3], const double hi[3], long first[3],
                      long last[3]) {
  for (int k = 0; k < 3; k++) {
    first[k] = last[k] = 0;
    if (!(wl->periodic >> k & 1u))
      continue;
    double a = ceil((x[k] - hi[k]) * wl->inv_period[k]),
           b = floor((x[k] - lo[k]) * wl->inv_period[k]);
    if (!(a >= -1e9 && b <= 1e9)) /* far off, or not finite: none */
      a = 1, b = 0;
    first[k] = (long)a;
    last[k] = (long)b;
  }
}

size_t dem_mesh_walls_near(const struct dem_sim *sim, const double x[3],
                           double reach, struct dem_mesh_hit *out, size_t cap) {
  static const double none[3] = {0, 0, 0};
  const struct dem_mesh_walls *mw = sim->mw;
  const struct dem_walls *wl = &sim->walls;
  size_t n = 0;
  if (!wl->periodic) {
    n = near_copy(sim, x, none, reach, out, cap, 0);
  } else {
    /* The copies of the meshes moved by whole periods whose grid holds
     * the sphere: the grid is searched at x less the shift. */
    long first[3], last[3], i[3];
    double hi[3];
    for (int k = 0; k < 3; k++)
      hi[k] = mw->lo[k] + (double)mw->dims[k] * mw->h;
    copies_of(wl, x, mw->lo, hi, first, last);
    for (i[2] = first[2]; i[2] <= last[2]; i[2]++)
      for (i[1] = first[1]; i[1] <= last[1]; i[1]++)
        for (i[0] = first[0]; i[0] <= last[0]; i[0]++) {
          double shift[3], xs[3];
          for (int k = 0; k < 3; k++)
            shift[k] = (double)i[k] * wl->period[k];
          v3_sub(xs, x, shift);
          n = near_copy(sim, xs, shift, reach, out, cap, n);
        }
  }
  if (n > cap)
    return n;
  /* Ascending (patch, triangle), copies in the order found: insertion
   * sort, lists are short. */
  for (size_t a = 1; a < n; a++) {
    struct dem_mesh_hit h = out[a];
    size_t b = a;
    while (b > 0 && (out[b - 1].patch > h.patch ||
                     (out[b - 1].patch == h.patch && out[b - 1].tri > h.tri))) {
      out[b] = out[b - 1];
      b--;
    }
    out[b] = h;
  }
  return n;
}

int dem_mesh_walls_overlap(const struct dem_sim *sim, const double x[3],
                           double r) {
  const struct dem_mesh_walls *mw = sim->mw;
  const struct dem_walls *wl = &sim->walls;
  for (size_t m = 0; mw && m < mw->n; m++) {
    const struct dem_mesh *me = &mw->mesh[m];
    for (size_t t = 0; t < me->n_tri; t++) {
      const double *a = me->v[me->tri[t][0]], *b = me->v[me->tri[t][1]],
                   *c = me->v[me->tri[t][2]];
      long first[3] = {0, 0, 0}, last[3] = {0, 0, 0}, i[3];
      if (wl->periodic) {
        double lo[3], hi[3];
        tri_box(me, t, r, lo, hi);
        copies_of(wl, x, lo, hi, first, last);
      }
      for (i[2] = first[2]; i[2] <= last[2]; i[2]++)
        for (i[1] = first[1]; i[1] <= last[1]; i[1]++)
          for (i[0] = first[0]; i[0] <= last[0]; i[0]++) {
            double xs[3], p[3], d[3];
            for (int k = 0; k < 3; k++)
              xs[k] = x[k] - (double)i[k] * wl->period[k];
            dem_triangle_closest(xs, a, b, c, p);
            v3_sub(d, xs, p);
            if (v3_dot(d, d) < r * r)
              return 1;
          }
    }
  }
  return 0;
}

void dem_mesh_walls_release(struct dem_mesh_walls *mw) {
  for (size_t m = 0; m < mw->n; m++)
    dem_mesh_release(&mw->mesh[m]);
  free(mw->mesh);
  free(mw->patch_base);
  free(mw->patch_mesh);
  free(mw->cand);
  free(mw->cand_shift);
  free(mw->start);
  free(mw->item);
  free(mw->count);
  memset(mw, 0, sizeof *mw);
}
