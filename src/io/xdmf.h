/* Internal: the XDMF sidecar that lets ParaView open the spheres and the
 * bodies of a run. */
#ifndef DEM_XDMF_H
#define DEM_XDMF_H

#include <stddef.h>

#include "dem/status.h"
#include "io/h5io.h"

/* One snapshot as the sidecar lists it: /snapshots/NNNNNN, NNNNNN = index. */
struct dem_xdmf_frame {
  size_t index;
  double time;
  size_t n_spheres;
  size_t n_bodies; /* 0: no bodies' grid in this frame */
  /* Per mesh: whether a moving mesh's vertices are in this snapshot
   * (NULL: all; a file of an older dem has none) */
  const unsigned char *mesh_here;
};

/* The sidecar's path: PATH with a final ".h5" replaced by ".xmf", else
 * PATH + ".xmf". Caller frees; NULL when out of memory. */
char *dem_xdmf_path(const char *h5_path);

/* Growing text. */
struct dem_xdmf_buf {
  char *buf;
  size_t len, cap;
};

/* A mesh wall as the sidecar draws it: triangles /meshes/NAME/triangles
 * over the vertices /meshes/NAME/vertices (still) or, moving,
 * /snapshots/NNNNNN/meshes/NAME. */
struct dem_xdmf_mesh {
  char *name;
  size_t n_vert, n_tri;
  int moving;
  struct dem_xdmf_buf grids; /* its temporal collection's grids so far */
};

/* The grids written so far, as XML text kept between rewrites: those of
 * the spheres', the bodies' and each mesh's temporal collections. */
struct dem_xdmf_text {
  struct dem_xdmf_buf spheres, bodies;
  struct dem_xdmf_mesh *meshes;
  size_t n_meshes;
};

/* The meshes the sidecar draws (names copied), before any frame. */
dem_status dem_xdmf_set_meshes(struct dem_xdmf_text *t,
                               const struct dem_h5_mesh *meshes, size_t n);

/* Appends the grids of one frame (referencing h5_name, the basename of
 * the HDF5 file, so the pair can be moved together): the spheres' grid and
 * (when the frame has bodies) the bodies' grid, with the node attributes
 * `attrs` (each on one of them). */
dem_status dem_xdmf_append(struct dem_xdmf_text *t, const char *h5_name,
                           const struct dem_xdmf_frame *frame,
                           const struct dem_xdmf_attribute *attrs,
                           size_t n_attrs);

/* Writes the sidecar at xmf_path through a temporary file and rename (so
 * readers never see half a file): a temporal collection "spheres" of the
 * spheres' grids in t, one polyvertex per sphere (connectivity
 * /xdmf/polyvertex_M, M = number of spheres, which the writer keeps) with
 * geometry from spheres/position, and a temporal collection "bodies" of
 * the bodies' grids, one polyvertex per body centre (the first N entries
 * of the same connectivity) with geometry from bodies/position; each grid
 * with the node attributes given to dem_xdmf_append; and for each mesh a
 * temporal collection "mesh_NAME" of its triangles. */
dem_status dem_xdmf_write(const char *xmf_path, const struct dem_xdmf_text *t);

void dem_xdmf_text_free(struct dem_xdmf_text *t);

#endif
