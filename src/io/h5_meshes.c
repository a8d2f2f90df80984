/* /meshes: each mesh wall's triangles and resting vertices, written once
 * with the header, for the XDMF sidecar to draw the walls. */
#include <stdint.h>
#include <stdlib.h>

#include "io/h5_writer.h"

static herr_t write_mesh(hid_t meshes, const struct dem_h5_mesh *m) {
  hid_t g = dem_h5u_compact_group(NULL, meshes, m->name);
  int64_t *tri = malloc((m->n_tri ? m->n_tri : 1) * 3 * sizeof *tri);
  herr_t rc = -1;
  int moving = m->moving != 0;
  if (g >= 0 && tri) {
    for (size_t t = 0; t < 3 * m->n_tri; t++)
      tri[t] = m->triangles[t / 3][t % 3];
    rc = dem_h5u_write_array(NULL, g, "vertices", H5T_IEEE_F64LE,
                             H5T_NATIVE_DOUBLE, m->n_vert, 3, m->vertices, "m",
                             "vertices (welded) as placed before any motion; a "
                             "moving mesh's at a snapshot's time are "
                             "/snapshots/NNNNNN/meshes/NAME");
    if (rc >= 0)
      rc = dem_h5u_write_array(
          NULL, g, "triangles", H5T_STD_I64LE, H5T_NATIVE_INT64, m->n_tri, 3,
          tri, "1", "each triangle's three vertices: rows of vertices");
    if (rc >= 0)
      rc = dem_h5u_attr(g, "moving", H5T_STD_I32LE, H5T_NATIVE_INT, &moving);
  }
  free(tri);
  if (g >= 0)
    H5Gclose(g);
  return rc;
}

herr_t dem_h5w_write_meshes(hid_t file, const struct dem_h5_mesh *meshes,
                            size_t n) {
  if (!meshes || n == 0 || H5Lexists(file, "meshes", H5P_DEFAULT) > 0)
    return 0;
  hid_t g = dem_h5u_compact_group(NULL, file, "meshes");
  herr_t rc = g < 0 ? -1 : 0;
  for (size_t k = 0; k < n && rc >= 0; k++)
    rc = write_mesh(g, &meshes[k]);
  if (g >= 0)
    H5Gclose(g);
  return rc;
}
