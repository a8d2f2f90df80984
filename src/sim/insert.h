/* Insertion of bodies over time: the entries' specifications, per-body
 * sizes, and the step that puts the bodies due into the arrays. */
#ifndef DEM_INSERT_H
#define DEM_INSERT_H

#include "core/rng.h"
#include "sim/sim.h"

/* A size factor's distribution (docs/configuration.md, "scale"). */
enum dem_size_kind {
  DEM_SIZE_FIXED, /* no distribution: a = the factor */
  DEM_SIZE_UNIFORM,
  DEM_SIZE_NORMAL,    /* a = mean, b = std, truncated to [min, max] */
  DEM_SIZE_LOGNORMAL, /* a = median, b = sigma of ln s, truncated */
  DEM_SIZE_TABLE      /* sizes[k] with fractions by number */
};
struct dem_size_dist {
  int kind;
  double a, b, min, max;
  size_t n;
  double *sizes, *cum; /* table: sizes and cumulative fractions */
};

enum dem_region_kind { DEM_REGION_BOX, DEM_REGION_CYLINDER };

struct dem_insert_spec {
  int region;
  double lo[3], hi[3];                       /* box (and cylinder's bounds) */
  double center[3], axis[3], radius, height; /* cylinder, axis unit */
  size_t n_shapes;
  int *shape;
  double *cum; /* cumulative fractions, last 1 */
  double rate; /* bodies per second; 0: count */
  long count;  /* bodies in all (rate: in the window) */
  double v[3];
  struct dem_size_dist size;
  double start, end;
  long max_attempts;
  double reach; /* largest bounding radius a body of it can have */
  long done;    /* bodies due so far (tried) */
  long skipped; /* of them not placed */
};

struct dem_inserter {
  size_t n;
  struct dem_insert_spec *spec;
  size_t body_cap, sphere_cap; /* the arrays' room */
  long inserted, skipped;      /* by this process */
  int warned;
};

/* A size factor drawn from d. */
double dem_size_draw(const struct dem_size_dist *d, struct dem_rng *rng);

/* Puts body b of `shape`, scaled by `scale`, at x with orientation
 * q_input (shape input frame -> lab): its spheres are first_member[b]...
 * Mass times scale^3, inertia times scale^5, radii and offsets times
 * scale. */
void dem_body_pose(struct dem_sim *sim, size_t b, int shape, double scale,
                   const double x[3], const double q_input[4]);

/* Appends n bodies of the given shapes and scales (ids following the
 * last), their structure set (shape, scale, mass, inertia, spheres'
 * radius, offset, material, member), the rest zero. */
dem_status dem_insert_append(struct dem_sim *sim, size_t n, const int *shape,
                             const double *scale);

/* Inserts the bodies due at the current time sim->t; half_step: the
 * scheme holds v half a step behind (leapfrog). *added: bodies put in
 * (the neighbour lists are rebuilt when > 0). */
dem_status dem_insert_due(struct dem_sim *sim, int half_step, size_t *added);

/* Whether some bodies are due at the current time (dem_insert_due would
 * try to put them in). */
int dem_insert_pending(const struct dem_sim *sim);

/* After a restart at time t: the bodies due by t count as done. */
void dem_insert_resume(struct dem_sim *sim);

/* Bodies entry s has due by time t. */
long dem_insert_count_due(const struct dem_insert_spec *s, double t);

/* For each shape k: how many bodies of it the run has or may insert
 * (count[k], at least 2 for a shape an insert entry draws, so it may meet
 * itself), and the smallest size factor among them (smin[k]; HUGE_VAL
 * when none): what the time-step advice needs before anything is
 * inserted. */
void dem_shape_scales(const struct dem_sim *sim, long *count, double *smin);

void dem_inserter_free(struct dem_inserter *ins);

#endif
