/* Building a clump template from its spheres. */
#include "shape/shape.h"

#include <stdlib.h>
#include <string.h>

dem_status dem_shape_build(struct dem_shape *shape,
                           const struct dem_sphere_def *spheres, size_t n,
                           double density, double tolerance, double mass,
                           const double inertia[3]) {
  dem_status st =
      dem_clump_compute(spheres, n, density, tolerance, &shape->props);
  if (st)
    return st;
  if (mass > 0) {
    shape->props.mass = mass;
    memcpy(shape->props.inertia, inertia, sizeof shape->props.inertia);
    shape->props.axes[0] = 1;
    shape->props.axes[1] = shape->props.axes[2] = shape->props.axes[3] = 0;
  }
  shape->n_spheres = n;
  shape->offset = calloc(n ? n : 1, sizeof *shape->offset);
  shape->radius = calloc(n ? n : 1, sizeof *shape->radius);
  if (!shape->offset || !shape->radius)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  dem_clump_body_offsets(spheres, n, &shape->props, shape->offset);
  for (size_t i = 0; i < n; i++)
    shape->radius[i] = spheres[i].radius;
  return DEM_OK;
}

void dem_shape_release(struct dem_shape *shape) {
  free(shape->name);
  free(shape->offset);
  free(shape->radius);
  memset(shape, 0, sizeof *shape);
}
