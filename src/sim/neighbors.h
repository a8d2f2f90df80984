/* Cell-sorted spheres and full Verlet neighbour lists (same-body pairs
 * excluded). */
#ifndef DEM_NEIGHBORS_H
#define DEM_NEIGHBORS_H

#include "sim/sim.h"

/* Bodies with at least this many spheres on average switch the broad
 * phase on when nb.broad_phase is DEM_BROAD_AUTO. */
#define DEM_BROAD_PHASE_MIN_SPHERES 8

/* True when some sphere moved more than skin/2 since the last build. Uses
 * (once) the displacement update_spheres measured, if it has since the
 * last build; otherwise compares every sphere with its build position. */
int dem_neighbors_stale(struct dem_sim *sim);

/* Rebuilds the lists. With the broad phase, bodies' bounding spheres
 * (radius: the shape's bounding radius about the centre of mass) are
 * paired first, and each pair of bodies within reach pairs the spheres of
 * each within reach of the other's bounding sphere; only spheres within
 * reach of another body's bounding sphere or of a wall count as searched.
 * Without it, the sphere phase sorts every sphere by cell (a stable
 * counting sort of a copy of their positions, radii and bodies; the
 * sphere arrays themselves keep their body order) and pairs each with the
 * spheres of other bodies within r_i + r_j + skin. The result (lists, their
 * order, the active set) does not depend on the thread count, and the broad
 * phase never changes which pairs are listed. Scratch grows when needed and is
 * kept for the next build. */
dem_status dem_neighbors_build(struct dem_sim *sim);

/* Frees the lists and the scratch. */
void dem_neighbors_release(struct dem_neighbors *nb);

/* Bytes the lists and scratch hold now. */
size_t dem_neighbors_bytes(const struct dem_neighbors *nb);

#endif
