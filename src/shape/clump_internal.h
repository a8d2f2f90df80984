/* Internals shared by the clump files: slicing work space and plan. */
#ifndef DEM_CLUMP_INTERNAL_H
#define DEM_CLUMP_INTERNAL_H

#include <stddef.h>

#include "dem/status.h"
#include "shape/clump.h"
#include "shape/sphere_pairs.h"

/* The z extent is first cut into BASE_PANELS panels (and at every
 * breakpoint); refinement level L halves every panel L times. Level
 * MAX_LEVEL is the last one tried. */
enum { BASE_PANELS = 8, MAX_LEVEL = 10 };

/* Gauss-Legendre points per panel (the nodes and weights are in clump.c). */
#define GL_POINTS 2

#define DEM_PI 3.14159265358979323846

/* A covered angular interval of a circle. */
struct interval {
  double lo, hi;
};

/* Work space of the slice integration. Disks are the cuts of the spheres
 * by one plane z = const, in increasing sphere order; slot[i] is the disk
 * of sphere i in that plane (-1: none). */
struct slice_work {
  const struct dem_sphere_def *sp;
  const double *ref;
  const struct dem_sphere_adjacency *adj;
  double *a, *b, *rho;   /* the disks (n entries) */
  size_t *disk_sphere;   /* sphere of each disk (n) */
  long *slot;            /* disk of each sphere (n), -1 outside the plane */
  size_t *active, *next; /* spheres the plane may cut, in index order (n) */
  size_t *incoming;      /* spheres the sweep reaches at this plane (n) */
  struct interval *arcs; /* covered angular intervals of one circle */
  /* Per neighbour entry e of sphere i (adj->nbr[e] = j): the direction
   * atan2(dy, dx) from disk i's centre to disk j's, the same in every
   * plane, so computed once (dem_disk_union_prepare). */
  double *theta;
  /* The antiderivatives at 0 and 2 pi, where every circle's arcs start and
   * end (dem_disk_union_prepare). */
  double f_zero[11], f_two_pi[11];
};

/* Height of sphere i's centre above ref. */
static inline double dem_slice_centre_z(const struct slice_work *w, size_t i) {
  return w->sp[i].center[2] - w->ref[2];
}

/* One connected group of overlapping spheres: its members in index order,
 * the same sorted by their lowest point (the sweep's order), and the
 * heights where its slice moments are not smooth. */
struct component {
  const size_t *members, *by_bottom;
  size_t m;
  const double *bp;
  size_t nbp;
};

/* Everything the slicing of the overlapping spheres needs, allocated
 * once: the work space, the components and their breakpoints. */
struct slicing {
  struct slice_work w;
  struct component *comps;
  size_t nc;    /* components of more than one sphere */
  int overlaps; /* 0: no two spheres overlap (closed form) */
  size_t *start, *members, *by_bottom, *isolated;
  size_t *sweep; /* owns w.active, w.next and w.incoming (they swap) */
  size_t n_isolated;
  double *bp;
  size_t *bp_start;
  double work; /* circle evaluations of level 0 */
};

/* Fills w->theta (adj->start[n] entries) and w->f_zero, w->f_two_pi
 * (disk_union.c). */
void dem_disk_union_prepare(struct slice_work *w, size_t n);

/* Exact area moments m[6] = {A, int x, int y, int x^2, int y^2, int xy} of
 * the union of the k disks of w in one plane (disk_union.c). */
void dem_disk_union_moments(size_t k, struct slice_work *w, double m[6]);

/* Finds the connected groups of overlapping spheres and, if there are any,
 * prepares their slicing (clump_slicing.c); DEM_ERR_NOMEM without a message
 * when memory runs out. Free with dem_clump_slicing_free, also on failure. */
dem_status dem_clump_slicing_init(struct slicing *s,
                                  const struct dem_sphere_def *sp, size_t n,
                                  const double ref[3],
                                  const struct dem_sphere_adjacency *adj);
void dem_clump_slicing_free(struct slicing *s);

#endif
