/* Triangle meshes as walls: vertices welded, flat patches found, placed and
 * moved with a prescribed motion. */
#ifndef DEM_MESH_H
#define DEM_MESH_H

#include <stddef.h>

#include "dem/status.h"

/* A prescribed rigid motion: from time `start` on, the mesh turns with
 * angular velocity w about the point `center` (which moves with velocity
 * v) and translates with velocity v. */
struct dem_motion {
  double velocity[3], angular_velocity[3], center[3], start;
  int moving; /* any velocity nonzero */
};

struct dem_mesh {
  char *name;
  int material;
  size_t n_tri, n_vert;
  int (*tri)[3]; /* vertex indices, in the file's order */
  int *patch;    /* per triangle: its flat patch (see dem_mesh_build) */
  size_t n_patches;
  /* Which patch answers for a point on a triangle's edge (edge k from
   * vertex k to k + 1) or vertex: the lowest patch among the triangles
   * that share it. A sphere whose closest point on two patches is the
   * same edge or vertex touches the mesh once, through that patch. */
  int (*edge_owner)[3], (*vertex_owner)[3];
  /* Whether that edge or vertex is shared with another patch (1) or lies
   * inside its patch or on the mesh's free border (0). */
  unsigned char (*edge_shared)[3], (*vertex_shared)[3];
  double (*rest)[3];   /* vertices as placed at t <= start */
  double (*v)[3];      /* vertices now */
  double (*normal)[3]; /* per triangle now, unit, (b - a) x (c - a) */
  struct dem_motion motion;
  /* Periodic axes (bit k) along which the mesh meets its own image
   * (dem_mesh_join_periodic). */
  unsigned joined;
};

/* The mesh of n triangles tri (3 vertices each, already scaled, rotated
 * and translated): vertices that coincide exactly are welded into one, and
 * triangles that share an edge and lie in one plane (normals parallel to
 * within 1e-9, either orientation) form one flat patch. A triangle with a
 * zero or tiny area (below 1e-12 of its longest edge squared) fails with
 * DEM_ERR_CONFIG naming the triangle (1-based) of `name`. */
dem_status dem_mesh_build(struct dem_mesh *m, const char *name,
                          const double (*tri)[3][3], size_t n);

/* How near, relative to the period, a vertex and the image of another
 * must be to be one vertex of a periodic surface (a binary STL holds
 * coordinates to 6e-8 of their size). */
#define DEM_MESH_PERIODIC_JOIN 1e-6

/* Joins the mesh (as built, at rest) to its images along the periodic
 * axes (period[k] > 0; the box starts at lo): vertices that coincide
 * modulo whole periods, within DEM_MESH_PERIODIC_JOIN of a period, are
 * one vertex of the periodic surface. Triangles that meet across a
 * periodic boundary then share that edge: flat patches join across it
 * (when their plane holds the periods between the two copies) and its
 * edges and vertices get one owner, as inside the mesh. Sets m->joined. */
dem_status dem_mesh_join_periodic(struct dem_mesh *m, const double lo[3],
                                  const double period[3]);

/* The vertices and normals at time t (the rest placement before the
 * motion's start). */
void dem_mesh_place(struct dem_mesh *m, double t);

/* Velocity of the mesh's material at point p at time t (0 before the
 * start). */
void dem_mesh_velocity(const struct dem_mesh *m, double t, const double p[3],
                       double out[3]);

void dem_mesh_release(struct dem_mesh *m);

#endif
