/* Mass properties of a clump (a union of possibly overlapping spheres). */
#ifndef DEM_CLUMP_H
#define DEM_CLUMP_H

#include <stddef.h>

#include "dem/status.h"

struct dem_sphere_def {
  double center[3]; /* in the shape's own (input) frame */
  double radius;
};

struct dem_clump_props {
  double volume;          /* of the union: overlaps counted once */
  double mass;            /* density * volume */
  double com[3];          /* centre of mass, input frame */
  double inertia[3];      /* principal moments about the com, ascending */
  double axes[4];         /* unit quaternion: principal frame -> input frame */
  double bounding_radius; /* max |c_i - com| + r_i */
  int exact;              /* 1 if computed in closed form (no overlaps) */
  int resolution;         /* planes z = const on which the union was
                             integrated exactly, in the final (finest)
                             quadrature (0 if exact); see docs/clumps.md */
  double rel_change;      /* max relative change of volume and moments from
                             the next coarser resolution (0 if exact) */
};

/* The most spheres a clump may have: beyond it dem_clump_compute refuses
 * at once (docs/configuration.md, docs/clumps.md). */
#define DEM_CLUMP_MAX_SPHERES 1000000
/* The most circle evaluations (a slice circle against its neighbours) the
 * refinement levels of the overlapping spheres may take together, a minute
 * or a few of one core (30-200 ns each); a clump whose first two levels
 * need more is refused before it starts, and no further level starts that
 * would pass it. */
#define DEM_CLUMP_MAX_WORK 1e9

/* Computes the mass properties of the union of n spheres at `density`.
 * Spheres that do not overlap are summed in closed form (sphere inertia and
 * parallel axes). Overlapping ones are integrated numerically, refining
 * until volume and principal moments change by less than `tolerance`
 * (relative) between resolutions, or failing with DEM_ERR_SETUP when it
 * cannot reach it. Spheres that overlap no other are summed in closed form
 * too; each connected group of overlapping ones is sliced on its own.
 * More than DEM_CLUMP_MAX_SPHERES spheres, piles where spheres overlap
 * dozens of others, or slicing beyond DEM_CLUMP_MAX_WORK fail with
 * DEM_ERR_SETUP. Degenerate principal moments give a deterministic frame.
 */
dem_status dem_clump_compute(const struct dem_sphere_def *spheres, size_t n,
                             double density, double tolerance,
                             struct dem_clump_props *out);

/* Sphere centres in the principal frame: out_i = axes* (c_i - com) axes. */
void dem_clump_body_offsets(const struct dem_sphere_def *spheres, size_t n,
                            const struct dem_clump_props *p,
                            double (*offsets)[3]);

#endif
