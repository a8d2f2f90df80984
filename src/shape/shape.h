/* Clump templates: a shape's spheres in its principal frame and its mass
 * properties. */
#ifndef DEM_SHAPE_H
#define DEM_SHAPE_H

#include <stddef.h>

#include "dem/status.h"
#include "shape/clump.h"

/* A clump template. Offsets are in the body principal frame. */
struct dem_shape {
  char *name;
  int material;
  size_t n_spheres;
  double (*offset)[3];
  double *radius;
  struct dem_clump_props props; /* mass, inertia, bounding radius, ... */
};

/* Fills shape's mass properties (dem_clump_compute at `density`, refined
 * to `tolerance`), its sphere offsets in the principal frame and its
 * radii from n sphere definitions in the shape's input frame. When
 * `mass` > 0 the given mass and principal inertia replace the computed
 * ones (a body whose inertia is known), with the input axes as principal
 * axes and the spheres' centre of mass. */
dem_status dem_shape_build(struct dem_shape *shape,
                           const struct dem_sphere_def *spheres, size_t n,
                           double density, double tolerance, double mass,
                           const double inertia[3]);

/* Frees what dem_shape_build and the name allocated. */
void dem_shape_release(struct dem_shape *shape);

#endif
