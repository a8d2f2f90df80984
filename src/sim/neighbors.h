/* Cell-sorted spheres and full Verlet neighbour lists (same-body pairs excluded). */
#ifndef DEM_NEIGHBORS_H
#define DEM_NEIGHBORS_H

#include "sim/sim.h"

/* True when some sphere moved more than skin/2 since the last build. */
int dem_neighbors_stale(const struct dem_sim *sim);

/* Sorts the spheres by cell (stable, so the result does not depend on the
 * thread count), then rebuilds every sphere's list of spheres of other
 * bodies within r_i + r_j + skin, in a fixed order. */
dem_status dem_neighbors_build(struct dem_sim *sim);

#endif
