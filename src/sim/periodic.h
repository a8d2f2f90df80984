/* Periodic boundaries: the minimum image of a pair vector and the wrap of
 * bodies back into the box (internal). */
#ifndef DEM_SIM_PERIODIC_H
#define DEM_SIM_PERIODIC_H

#include <math.h>

#include "sim/sim.h"

/* d (x_i - x_j) to its nearest image along the periodic axes: shift[k],
 * a whole number of periods, is taken off d[k] (0 on other axes). Unique
 * while |d| < L/2 along each periodic axis, which the box size check
 * (setup) guarantees for every pair within reach. */
static inline void dem_min_image(const struct dem_walls *wl, double d[3],
                                 double shift[3]) {
  for (int k = 0; k < 3; k++) {
    shift[k] = wl->period[k] * nearbyint(d[k] * wl->inv_period[k]);
    d[k] -= shift[k];
  }
}

/* Cell coordinate of x along periodic axis k of a grid of `cells` cells
 * over the whole period (x anywhere: taken modulo the period). */
static inline size_t dem_periodic_cell(const struct dem_walls *wl, int k,
                                       double x, size_t cells) {
  double u = (x - wl->lo[k]) * wl->inv_period[k];
  u -= floor(u);
  size_t c = (size_t)(u * (double)cells);
  return c < cells ? c : cells - 1;
}

/* Wraps every body whose centre left the box along a periodic axis back
 * by whole periods (counting them in b.image) and places its spheres
 * anew from it. Run just before a neighbour build only, so that between
 * builds positions move continuously (the displacement check and the
 * restart's rebuild from build positions rely on it). */
void dem_periodic_wrap(struct dem_sim *sim);

struct dem_grid;

/* Sets the dims of a sphere grid (sized over the period along periodic
 * axes) so that its cells tile each period whole, at least g->h wide. */
void dem_periodic_grid(const struct dem_walls *wl, struct dem_grid *g);
/* The cell of x, taken modulo the period along periodic axes. */
size_t dem_periodic_cell_of(const struct dem_walls *wl,
                            const struct dem_grid *g, const double x[3]);
/* The distinct cells around cell c (-1..1 along each axis, wrapped along
 * periodic axes, within the grid along the others), ascending; how many
 * (with fewer than three cells along a periodic axis, -1, 0 and +1 are
 * not all distinct: each cell is listed once). */
int dem_periodic_stencil(const struct dem_walls *wl, const struct dem_grid *g,
                         const size_t c[3], size_t out[27]);

/* b.x_unwrapped = x + image period, for a snapshot. */
void dem_periodic_unwrap(struct dem_sim *sim);

#endif
