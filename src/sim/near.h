/* Work only where contacts can happen: each step places the spheres that
 * have a contact, and a body's others only when a bound on its motion
 * cannot show that they stayed within skin/2 of the last build. */
#ifndef DEM_SIM_NEAR_H
#define DEM_SIM_NEAR_H

#include "core/quat.h"
#include "sim/place.h"
#include "sim/sim.h"

/* A body's bound costs about as much as placing this many spheres: the
 * near path is taken at a build when placing the active spheres and
 * bounding every body costs at most 3/4 of placing every sphere (so not
 * for the 3-sphere rods box, whose old path runs unchanged). */
#define DEM_NEAR_BODY_COST 3

/* Since the last neighbour build. The active spheres (nb.active: those
 * with a pair or a wall contact, the only ones the contact loops read and
 * the only ones that get forces) are placed every step. Each body keeps
 * an anchor: the pose at which all its spheres were last placed (the
 * build, or a later step when its bound failed) and their largest
 * displacement since the build at that pose. */
struct dem_near {
  size_t n_bodies;               /* bodies covered; 0: the near path is off */
  size_t cap;                    /* bodies the arrays hold */
  size_t *act;                   /* n + 1: body k's active spheres are
                                    nb.active[act[k] .. act[k + 1]) */
  double (*x_at)[3], (*q_at)[4]; /* the anchor pose */
  double *moved;                 /* displacement since the build there */
  double *reach;                 /* max |offset| of the body's spheres */
  double *slack;                 /* rounding allowance of the anchor */
  double *shape_reach;           /* max |offset| of each shape's template */
  size_t shape_cap;              /* shapes shape_reach holds */
  int stale;                     /* some sphere lags its body's pose */
};

/* Sphere i of body bi at its body's pose, one at a time: the reference
 * for the lanes of sim/place.c, which do the same operations (so give the
 * same bits); returns its squared displacement since the last build. */
static inline double dem_place_sphere(struct dem_spheres *s,
                                      const struct dem_bodies *b, size_t i,
                                      size_t bi) {
  double d[3], m[3];
  q_rotate(d, b->q[bi], s->offset[i]);
  v3_add(s->x[i], b->x[bi], d);
  v3_sub(m, s->x[i], s->x_build[i]);
  return v3_dot(m, m);
}

/* The near state while the near path is on, else NULL (every sphere is
 * then placed each step). While it is on, only the active spheres carry
 * forces and torques. */
static inline const struct dem_near *dem_near_on(const struct dem_sim *sim) {
  const struct dem_near *nr = sim->nb.near;
  return nr && nr->n_bodies && nr->n_bodies == sim->b.n ? nr : NULL;
}

/* Called by the neighbour build once the lists, the active spheres and
 * the build positions are set (every sphere placed at its body's pose):
 * anchors every body at the build, or turns the near path off (when it
 * would not save work, or when sphere forces are not yet gathered: a
 * scheme that builds between the contacts and the gather). */
dem_status dem_near_update(struct dem_sim *sim);

/* The near path's update_spheres: places the active spheres, and all of a
 * body's when its bound exceeds skin/2 (moving its anchor there). Sets
 * nb.moved2 (placed spheres, exact), nb.far_bound2 (the largest bound of
 * the bodies with spheres left unplaced) and the escape flag. w: the
 * walls, open along periodic axes. */
void dem_near_update_spheres(struct dem_sim *sim,
                             const struct dem_place_walls *w);

/* Places every sphere and returns their largest squared displacement
 * since the build: the exact answer when nb.far_bound2 alone cannot
 * decide (moving meshes take a share of the skin). */
double dem_near_moved2(struct dem_sim *sim);

/* Every sphere at its body's current pose: places what update_spheres
 * skipped. Call before anything reads all sphere positions (snapshots,
 * builds, insertion, the state check's culprit search). */
void dem_near_place_all(struct dem_sim *sim);

/* Places all spheres and turns the near path off until the next build:
 * for anything that renumbers bodies or builds from positions that did
 * not come from the bodies' poses (a spatial sort, a restart). */
void dem_near_forget(struct dem_sim *sim);

void dem_near_release(struct dem_neighbors *nb);

#endif
