/* Periodic boundaries: bodies wrapped back into the box, with their image
 * counts, and the unwrapped positions for the output. */
#include "sim/periodic.h"

#include "core/quat.h"
#include "core/vec3.h"
#include "sim/grid.h"

void dem_periodic_wrap(struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  const struct dem_walls *wl = &sim->walls;
  long n = (long)b->n;
  if (!wl->periodic)
    return;
  DEM_PARALLEL_IF(
      n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long i = 0; i < n; i++) {
    int moved = 0;
    for (int k = 0; k < 3; k++) {
      double *x = &b->x[i][k];
      if (!(wl->periodic >> k & 1u) || !isfinite(*x))
        continue;
      if (*x >= wl->lo[k] && *x < wl->hi[k])
        continue;
      double turns = floor((*x - wl->lo[k]) * wl->inv_period[k]);
      if (!(fabs(turns) < 1e9)) /* left far behind: the state check stops */
        continue;
      *x -= turns * wl->period[k];
      b->image[i][k] += (int)turns;
      if (*x >= wl->hi[k]) { /* rounding at the edge */
        *x -= wl->period[k];
        b->image[i][k]++;
      } else if (*x < wl->lo[k]) {
        *x += wl->period[k];
        b->image[i][k]--;
      }
      moved = 1;
    }
    if (!moved)
      continue;
    /* As dem_sim_update_spheres places them. */
    for (size_t m = b->first_member[i]; m < b->first_member[i + 1]; m++) {
      double d[3];
      q_rotate(d, b->q[i], s->offset[m]);
      v3_add(s->x[m], b->x[i], d);
    }
      });
}

void dem_periodic_unwrap(struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  const struct dem_walls *wl = &sim->walls;
  if (!wl->periodic)
    return;
  for (size_t i = 0; i < b->n; i++)
    for (int k = 0; k < 3; k++)
      b->x_unwrapped[i][k] = b->x[i][k] + b->image[i][k] * wl->period[k];
}

/* The grid spans the whole period along the periodic axes (cells at
 * least g->h wide there too) and the searched spheres' bounding box along
 * the others. */
void dem_periodic_grid(const struct dem_walls *wl, struct dem_grid *g) {
  g->n_cells = 1;
  for (int k = 0; k < 3; k++) {
    if (wl->periodic >> k & 1u) {
      double cells = floor(wl->period[k] / g->h);
      g->dims[k] = cells > 1 ? (size_t)cells : 1;
    }
    g->n_cells *= g->dims[k];
  }
}

size_t dem_periodic_cell_of(const struct dem_walls *wl,
                            const struct dem_grid *g, const double x[3]) {
  size_t c[3];
  dem_grid_coords(g, x, c);
  for (int k = 0; k < 3; k++)
    if (wl->periodic >> k & 1u)
      c[k] = dem_periodic_cell(wl, k, x[k], g->dims[k]);
  return dem_grid_index(g, c);
}

/* The distinct cells around cell (cx, cy, cz), wrapped along periodic
 * axes (with fewer than three cells there, -1 and +1 are one cell, or
 * the cell itself: each is listed once), ascending. */
int dem_periodic_stencil(const struct dem_walls *wl, const struct dem_grid *g,
                         const size_t c[3], size_t out[27]) {
  int n = 0;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        const int off[3] = {dx, dy, dz};
        size_t e[3];
        int inside = 1;
        for (int k = 0; k < 3; k++) {
          long v = (long)c[k] + off[k], d = (long)g->dims[k];
          if (wl->periodic >> k & 1u)
            v = (v % d + d) % d;
          inside &= v >= 0 && v < d;
          e[k] = (size_t)v;
        }
        if (!inside)
          continue;
        size_t idx = dem_grid_index(g, e);
        int seen = 0;
        for (int m = 0; m < n; m++)
          seen |= out[m] == idx;
        if (seen)
          continue;
        int m = n++;
        for (; m > 0 && out[m - 1] > idx; m--)
          out[m] = out[m - 1];
        out[m] = idx;
      }
  return n;
}
