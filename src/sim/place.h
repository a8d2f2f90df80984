/* Spheres placed at their bodies' poses in vector lanes (internal): the
 * kernels behind update_spheres and the near path. */
#ifndef DEM_SIM_PLACE_H
#define DEM_SIM_PLACE_H

#include "sim/sim.h"

/* What a placement measures on the way: the largest squared displacement
 * of the placed spheres since the last build (NaN never counts, as in
 * `d2 > worst ? d2 : worst`), and whether one lay entirely beyond a wall:
 * x < lo - r or x > hi + r on some axis (lo = -inf, hi = +inf where there
 * is no wall, which never holds). */
struct dem_place_walls {
  double lo[3], hi[3];
};

/* The walls as the escape check sees them: the box, open along periodic
 * axes; all open when the box has no walls. */
void dem_place_walls_of(const struct dem_walls *wl, struct dem_place_walls *w);

/* Places spheres i0..i1-1, each at its own body's pose, with
 * dem_place_sphere's arithmetic (the same bits). */
void dem_place_range(struct dem_spheres *s, const struct dem_bodies *b,
                     size_t i0, size_t i1, const struct dem_place_walls *w,
                     double *worst, int *escaped);

/* The shapes the bodies' `shape` indexes (sim->shapes): a body of scale
 * 1 has its shape's offsets and radii, the same numbers as its spheres'
 * (dem_body_pose). */
struct dem_place_shapes {
  const struct dem_shape *shape;
  size_t n;
};

/* Places the members of bodies k0..k1-1, as dem_place_range does their
 * spheres (the same bits); rods (three members each) eight at a time with
 * AVX-512 or four at a time with AVX2, each pose loaded once for its three
 * spheres, and the members of rods of one shape at scale 1 from `shapes`
 * (NULL: from the spheres' own offsets and radii always). */
void dem_place_bodies(struct dem_spheres *s, const struct dem_bodies *b,
                      const struct dem_place_shapes *shapes, size_t k0,
                      size_t k1, const struct dem_place_walls *w, double *worst,
                      int *escaped);

/* Places the n spheres idx[0..n), each at its own body's pose. */
void dem_place_list(struct dem_spheres *s, const struct dem_bodies *b,
                    const int *idx, size_t n, const struct dem_place_walls *w,
                    double *worst, int *escaped);

/* Places the n spheres idx[0..n) (or, if idx is NULL, spheres i0..i0+n-1),
 * all members of body k. */
void dem_place_members(struct dem_spheres *s, const struct dem_bodies *b,
                       size_t k, const int *idx, size_t i0, size_t n,
                       const struct dem_place_walls *w, double *worst,
                       int *escaped);

#endif
