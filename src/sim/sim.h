/* The simulation state: materials, shapes, bodies, spheres, walls, neighbour
 * lists. */
#ifndef DEM_SIM_H
#define DEM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "dem/status.h"
#include "integrators/rotation.h"
#include "shape/shape.h"

/* Loops over fewer items than this run on one thread: below it, OpenMP's
 * fork and barrier cost more than the work. */
#define DEM_PARALLEL_MIN 2048

struct dem_material {
  char *name;
  double density, young_modulus, poisson_ratio;
};

/* Bodies, structure of arrays (every per-body and per-sphere array, a new
 * one too, is permuted by the spatial sort in sim/body_order.c). Angular
 * velocity in the body principal frame; force and torque accumulators in the
 * lab frame. v and w are what the scheme holds (half step behind at a step
 * boundary for leapfrog). */
struct dem_bodies {
  size_t n;
  double (*x)[3], (*v)[3], (*q)[4], (*w)[3];
  double (*force)[3], (*torque)[3];
  double *mass, (*inertia)[3];
  double *rot_aux; /* n x DEM_ROT_AUX, the rotation scheme's own state */
  int *shape;
  size_t *first_member; /* n + 1: members of body b are member_slot[first..] */
  size_t *member_slot;  /* sphere index of each member, fixed member order */
  double (*x_build)[3]; /* position at the last neighbour build */
  /* Bodies are renumbered in space now and then (sim/body_order.c): id[i]
   * is body i's number in the input and the output, index_of[id] its
   * place in these arrays now. */
  size_t *id, *index_of;
};

/* Spheres, structure of arrays, in body order (each body's members
 * contiguous, in member order); the neighbour search sorts a copy by
 * cell. */
struct dem_spheres {
  size_t n;
  double (*x)[3];       /* lab position */
  double (*x_build)[3]; /* position at the last neighbour build */
  double (*offset)[3];  /* body principal frame */
  double (*force)[3];
  double *radius;
  int *body;
  int *material;
  size_t *member;        /* index of this sphere in its body's member list */
  size_t *id, *index_of; /* as for bodies: output number, and back */
  /* Whether some force may be nonzero: hertz_contacts sets it,
   * gather_forces (which zeroes the forces it moves onto bodies) clears
   * it, and reset_forces skips the spheres while it is clear. */
  int forces_dirty;
  /* Whether some sphere lay entirely beyond a wall when update_spheres
   * last placed them (if escape_known): the run's per-step state check
   * then needs no pass over the spheres of its own. */
  int escaped, escape_known;
};

/* Verlet lists (sim/neighbors.c): full (both directions), in CSR form,
 * each sphere's list in ascending sphere id (so that every force sum has
 * the same order whatever the bodies' current order); same-body pairs never
 * enter. Beside each entry, the pair's r_i + r_j and Hertz stiffness
 * 4/3 E* sqrt(R*), so that the contact loop reads only positions at
 * random. `active` lists, ascending, the spheres that have a neighbour or
 * were within reach of a wall at the build: the only ones the contact
 * loop visits. */
struct dem_nb_active {
  int i;         /* the sphere */
  int n;         /* its list's length */
  size_t first;  /* its list's start */
  double r;      /* its radius */
  double k_wall; /* Hertz stiffness against a wall, 4/3 E* sqrt(r) */
};
enum dem_broad_phase {
  DEM_BROAD_AUTO = 0, /* on when bodies have many spheres (see neighbors.h) */
  DEM_BROAD_ON = 1,
  DEM_BROAD_OFF = 2
};
/* When bodies are put in spatial order (sim/body_order.h). */
enum dem_sort_bodies { DEM_SORT_AUTO = 0, DEM_SORT_ON = 1, DEM_SORT_OFF = 2 };
struct dem_nb_work;
struct dem_order_work;
struct dem_neighbors {
  double skin;
  int broad_phase; /* enum dem_broad_phase: bodies' bounding spheres first */
  int sort_bodies; /* enum dem_sort_bodies */
  long sorted_at;  /* builds at the last spatial sort, -1: never */
  long sorts;      /* spatial sorts so far */
  /* The largest squared sphere displacement since the last build, as
   * update_spheres measured it while placing the spheres (if
   * moved2_known): the neighbour update then needs no pass of its own. */
  double moved2;
  int moved2_known;
  size_t *start; /* n_spheres + 1 */
  int *list;
  double *pair_rsum, *pair_k; /* beside list */
  size_t capacity;            /* of list, pair_rsum, pair_k */
  struct dem_nb_active *active;
  size_t n_active;
  long builds;
  size_t n_pairs;                    /* pairs (each once) at the last build */
  size_t n_candidates;               /* spheres the sphere phase searched */
  struct dem_nb_work *work;          /* cell grids and scratch, private */
  struct dem_order_work *order_work; /* the spatial sort's, private */
};

struct dem_walls {
  int enabled;
  double lo[3], hi[3];
  int material;
};

struct dem_pipeline; /* operators/pipeline.h */

struct dem_sim {
  double dt, t, end_time;
  double t_eval; /* time of the positions while a step runs (for loads) */
  long step, n_steps;
  double t0; /* time at step0; t = t0 + (step - step0) dt, no accumulation */
  long step0;
  uint64_t seed;
  double gravity[3];

  struct dem_material *materials;
  size_t n_materials;
  double *estar; /* n_materials^2 effective moduli, plus walls */

  struct dem_shape *shapes;
  size_t n_shapes;

  struct dem_bodies b;
  struct dem_spheres s;
  struct dem_walls walls;
  struct dem_neighbors nb;
  double max_radius, min_radius;

  struct dem_pipeline *pipeline;
};

/* Allocates the body and sphere arrays (zeroed). */
dem_status dem_sim_alloc_bodies(struct dem_sim *sim, size_t n_bodies,
                                size_t n_spheres);
/* Frees everything the sim owns (not the struct itself). */
void dem_sim_release(struct dem_sim *sim);

/* Effective modulus of two materials: 1/E* = (1-nu1^2)/E1 + (1-nu2^2)/E2. */
double dem_effective_modulus(const struct dem_material *a,
                             const struct dem_material *b);

/* A body's rotational state, gathered for an integrator and put back;
 * only the n_aux scratch values the integrator uses are copied. */
static inline void dem_body_rot_load(const struct dem_bodies *b, size_t i,
                                     struct dem_rot_state *s, int n_aux) {
  for (int k = 0; k < 4; k++)
    s->q[k] = b->q[i][k];
  for (int k = 0; k < 3; k++)
    s->w[k] = b->w[i][k];
  for (int k = 0; k < n_aux; k++)
    s->aux[k] = b->rot_aux[i * DEM_ROT_AUX + k];
}
static inline void dem_body_rot_store(struct dem_bodies *b, size_t i,
                                      const struct dem_rot_state *s,
                                      int n_aux) {
  for (int k = 0; k < 4; k++)
    b->q[i][k] = s->q[k];
  for (int k = 0; k < 3; k++)
    b->w[i][k] = s->w[k];
  for (int k = 0; k < n_aux; k++)
    b->rot_aux[i * DEM_ROT_AUX + k] = s->aux[k];
}

/* Sphere positions from body positions and orientations. */
void dem_sim_update_spheres(struct dem_sim *sim);

#endif
