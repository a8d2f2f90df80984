/* Which spheres of a clump overlap which: a grid search instead of all pairs.
 */
#ifndef DEM_SPHERE_PAIRS_H
#define DEM_SPHERE_PAIRS_H

#include <stddef.h>

#include "dem/status.h"
#include "shape/clump.h"

/* For each sphere i, the spheres j != i whose centres are closer than
 * (r_i + r_j)(1 + slack), in increasing order of j: nbr[start[i] ..
 * start[i + 1]). Nested and identical spheres are neighbours. */
struct dem_sphere_adjacency {
  size_t n;
  size_t *start; /* n + 1 entries */
  size_t *nbr;   /* start[n] entries */
  size_t max_degree;
};

/* Builds the adjacency of n spheres (centres and radii finite, radii > 0)
 * in about O(n log n) for spheres of similar size. Fails with
 * DEM_ERR_SETUP when the spheres pile up so that there are more than
 * max_pairs neighbour pairs (a clump of that many overlaps is not a
 * shape anyone means), DEM_ERR_NOMEM when memory runs out. */
dem_status dem_sphere_adjacency_build(const struct dem_sphere_def *sp, size_t n,
                                      double slack, size_t max_pairs,
                                      struct dem_sphere_adjacency *out);

void dem_sphere_adjacency_free(struct dem_sphere_adjacency *a);

#endif
