/* Cubic cell grids over a box and a stable counting sort by cell, shared
 * by the neighbour search and the spatial order of bodies (internal). */
#ifndef DEM_SIM_GRID_H
#define DEM_SIM_GRID_H

#include <stddef.h>

#include "dem/status.h"

/* A grid of cubic cells over a box. Items are sorted by cell; items left
 * out of the search sit in a last bucket, cell n_cells. */
struct dem_grid {
  double lo[3], h, inv_h;
  size_t dims[3], n_cells;
  size_t *cell_start; /* n_cells + 2 */
  size_t cells_alloc;
};

/* Bounding box of the points x (those with use[i] set, if use is given). */
void dem_bounding_box(const double (*x)[3], size_t n, const unsigned char *use,
                      double lo[3], double hi[3]);

/* Cells at least h wide over [lo, hi], no more than max_cells of them;
 * grows cell_start to n_cells + 2. */
dem_status dem_grid_size(struct dem_grid *g, const double lo[3],
                         const double hi[3], double h, size_t max_cells);

/* Stable counting sort of n items by key (0..n_keys-1): order[new] = old,
 * start[key] = first new (start holds n_keys + 1); scratch holds n items
 * (used on more than one thread). */
void dem_counting_sort(size_t n, const size_t *key, size_t n_keys,
                       size_t *start, size_t *order, size_t *scratch);

/* cell[k] = the index of x[k]'s cell (dem_grid_coords, clamped), k < n:
 * the key the counting sort orders points by. */
void dem_grid_cells_of(const struct dem_grid *g, const double (*x)[3], size_t n,
                       size_t *cell);

/* Cell coordinates of x, clamped to the grid (clamping keeps points that
 * are within one cell width of each other in neighbouring cells). */
static inline void dem_grid_coords(const struct dem_grid *g, const double x[3],
                                   size_t c[3]) {
  for (int k = 0; k < 3; k++) {
    double u = (x[k] - g->lo[k]) * g->inv_h;
    double top = (double)(g->dims[k] - 1);
    c[k] = u > 0 ? (u < top ? (size_t)u : g->dims[k] - 1) : 0;
  }
}

/* x fastest, z slowest: consecutive cells are rows along x, and a range
 * of cells is a slab in z. */
static inline size_t dem_grid_index(const struct dem_grid *g,
                                    const size_t c[3]) {
  return (c[2] * g->dims[1] + c[1]) * g->dims[0] + c[0];
}

#endif
