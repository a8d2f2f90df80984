/* Triangle-mesh walls in the state: the meshes, their patches numbered
 * across meshes, the triangles near each sphere, and the geometry of a
 * sphere-patch contact (static inline, for the contact loops). */
#ifndef DEM_MESH_WALLS_H
#define DEM_MESH_WALLS_H

#include <math.h>

#include "geometry/mesh.h"
#include "geometry/triangle.h"
#include "sim/sim.h"

/* A mesh contact's wall number is DEM_N_WALLS + its global patch: mesh m's
 * patches are patch_base[m] .. patch_base[m + 1]. */
struct dem_mesh_walls {
  struct dem_mesh *mesh;
  size_t n;
  int *patch_base; /* n + 1 */
  int *patch_mesh; /* per global patch: its mesh */
  size_t n_patches;
  int moving;      /* some mesh has a motion */
  double t_build;  /* time the meshes had at the last neighbour build */
  double t_placed; /* time they are placed at now */
  /* Each wall contact's candidate triangles (local numbers in its mesh,
   * ascending): cand[tri_first[k] .. tri_first[k] + tri_count[k]). */
  int *cand;
  /* With periodic axes, the periods each candidate's copy is moved by to
   * be near its sphere, parallel to cand (NULL without periodic axes). */
  double (*cand_shift)[3];
  size_t n_cand, cap_cand;
  /* A uniform grid over every triangle's box widened by the largest reach
   * (rebuilt with the neighbour lists): cell c holds the (mesh, triangle)
   * codes item[start[c] .. start[c + 1]). */
  double lo[3], h;
  size_t dims[3], n_cells;
  size_t *start;
  int (*item)[2];
  size_t n_items, cap_items;
  size_t *count; /* scratch: per sphere, candidate triangles (n_spheres + 1) */
};

/* Where vertex k of mesh m is at time t (as dem_mesh_place puts it; the
 * rest placement before the motion's start). */
void dem_mesh_vertex_at(const struct dem_mesh *m, size_t k, double t,
                        double out[3]);

/* Places every mesh at time t (a no-op when none moves or t is the time
 * they are placed at). */
void dem_mesh_walls_place(struct dem_sim *sim, double t);

/* The largest squared displacement of a mesh vertex between the last
 * neighbour build and time t (0 when none moves). */
double dem_mesh_walls_moved2(struct dem_sim *sim, double t);

/* Rebuilds the triangle grid for the meshes as placed now. */
dem_status dem_mesh_walls_grid(struct dem_sim *sim);

/* A triangle near a sphere: its patch (global), its number in its mesh,
 * and the whole periods its copy near the sphere is moved by (0 but
 * along periodic axes). */
struct dem_mesh_hit {
  int patch, tri;
  double shift[3];
};

/* The patches (global, ascending) and their candidate triangles that a
 * sphere at x has within `reach` (its radius + skin), with periodic axes
 * every copy of them moved by whole periods that is: writes up to `cap`
 * in out (ascending patch, then triangle, then copies in the order of
 * their periods z, y, x) and returns how many there are (call again with
 * more room when it is more than cap). */
size_t dem_mesh_walls_near(const struct dem_sim *sim, const double x[3],
                           double reach, struct dem_mesh_hit *out, size_t cap);

/* Whether a sphere at x of radius r overlaps a mesh triangle as placed
 * now, or a copy of one moved by whole periods (every triangle: for an
 * insertion, rare next to a step). */
int dem_mesh_walls_overlap(const struct dem_sim *sim, const double x[3],
                           double r);

void dem_mesh_walls_release(struct dem_mesh_walls *mw);

/* The material of wall `wall` (a box wall or a mesh patch). */
static inline int dem_wall_material(const struct dem_sim *sim, int wall) {
  if (wall < DEM_N_WALLS)
    return sim->walls.material;
  const struct dem_mesh_walls *mw = sim->mw;
  return mw->mesh[mw->patch_mesh[wall - DEM_N_WALLS]].material;
}

/* The point of wall contact k's patch closest to its sphere: over the
 * candidate triangles (and, with periodic axes, their copies moved by
 * whole periods), the nearest (the first in candidate order on a tie).
 * Returns its squared distance; *feature is its feature, *tri its
 * triangle, shift the periods its copy is moved by (0 without periodic
 * axes): the point on the mesh itself is cp - shift. */
static inline double dem_mesh_patch_closest(const struct dem_sim *sim, size_t k,
                                            double cp[3], int *feature,
                                            int *tri, double shift[3]) {
  const struct dem_contact_list *c = &sim->wall_contacts;
  const struct dem_mesh_walls *mw = sim->mw;
  const int patch = c->ij[k][1] - DEM_N_WALLS;
  const struct dem_mesh *m = &mw->mesh[mw->patch_mesh[patch]];
  const double *x = sim->s.x[c->ij[k][0]];
  const double(*copy)[3] = (const double(*)[3])mw->cand_shift;
  double best = HUGE_VAL;
  *tri = -1;
  *feature = 0;
  cp[0] = cp[1] = cp[2] = 0.0;
  shift[0] = shift[1] = shift[2] = 0.0;
  const size_t q0 = c->tri_first[k], q1 = q0 + c->tri_count[k];
  for (size_t q = q0; q < q1; q++) {
    const int t = mw->cand[q];
    double p[3], d[3];
    int f;
    if (!copy) {
      f = (int)dem_triangle_closest(x, m->v[m->tri[t][0]], m->v[m->tri[t][1]],
                                    m->v[m->tri[t][2]], p);
    } else { /* the copy's point: the mesh's nearest to x less the shift */
      double xs[3];
      v3_sub(xs, x, copy[q]);
      f = (int)dem_triangle_closest(xs, m->v[m->tri[t][0]], m->v[m->tri[t][1]],
                                    m->v[m->tri[t][2]], p);
      v3_add(p, p, copy[q]);
    }
    v3_sub(d, x, p);
    double d2 = v3_dot(d, d);
    if (d2 < best) {
      best = d2;
      v3_copy(cp, p);
      *feature = f;
      *tri = t;
      if (copy)
        v3_copy(shift, copy[q]);
    }
  }
  return best;
}

/* Relative tolerance within which two patches' closest points are the
 * same edge or vertex (computed from different triangles). */
#define DEM_MESH_SAME_POINT 1e-12

/* Whether wall contact k (a mesh patch) is the one that answers for its
 * closest point: a point of a face, of an edge or vertex inside the patch
 * or on the mesh's free border, always; a point of an edge or vertex the
 * patch shares with others only when no other patch of the mesh in the
 * sphere's contacts is nearer (then the sphere is over that patch's face:
 * a convex edge seen from one side) and the patch owns the edge or vertex
 * (so a sphere touching a convex edge or corner has one contact). A
 * sphere in a concave corner touches each patch's face: one contact
 * each. */
static inline int dem_mesh_patch_answers(const struct dem_sim *sim, size_t k,
                                         double d2, int feature, int tri) {
  if (feature == DEM_TRI_FACE)
    return 1;
  const struct dem_contact_list *c = &sim->wall_contacts;
  const struct dem_mesh_walls *mw = sim->mw;
  const int patch = c->ij[k][1] - DEM_N_WALLS, mi = mw->patch_mesh[patch];
  const struct dem_mesh *m = &mw->mesh[mi];
  const int local = patch - mw->patch_base[mi];
  const int edge = feature <= DEM_TRI_EDGE_CA;
  const int at = edge ? feature - DEM_TRI_EDGE_AB : feature - DEM_TRI_VERTEX_A;
  if (!(edge ? m->edge_shared[tri][at] : m->vertex_shared[tri][at]))
    return 1; /* inside the patch, or on the mesh's free border */
  const int owner = edge ? m->edge_owner[tri][at] : m->vertex_owner[tri][at];
  const int i = c->ij[k][0];
  const double near =
      d2 * (1 - DEM_MESH_SAME_POINT) * (1 - DEM_MESH_SAME_POINT);
  for (size_t o = c->start[i]; o < c->start[i + 1]; o++) {
    const int wall = c->ij[o][1];
    if (o == k || wall < DEM_N_WALLS ||
        mw->patch_mesh[wall - DEM_N_WALLS] != mi)
      continue;
    double p[3], shift[3];
    int f, t;
    if (dem_mesh_patch_closest(sim, o, p, &f, &t, shift) < near)
      return 0;
  }
  return owner == local;
}

#endif
