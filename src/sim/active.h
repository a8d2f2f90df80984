/* The active spheres in id order: sums that must follow sphere ids visit
 * only the spheres with a contact when those are few. */
#ifndef DEM_SIM_ACTIVE_H
#define DEM_SIM_ACTIVE_H

#include <stddef.h>

#include "sim/sim.h"

/* Room a caller gives dem_active_ids on its stack. */
enum { DEM_ACTIVE_IDS_MAX = 256 };

/* The ids of the active spheres (nb.active: every sphere with a pair or a
 * wall contact since the last build) ascending, into ids (room for cap);
 * returns how many. Returns (size_t)-1 when there are no lists, when they
 * do not fit, or when they are not few (8 n_active >= n spheres): the
 * caller then walks every id. */
size_t dem_active_ids(const struct dem_sim *sim, size_t *ids, size_t cap);

#endif
