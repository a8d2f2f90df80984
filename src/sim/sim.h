/* The simulation state, data only: materials, shapes, bodies, spheres,
 * contacts, walls, neighbour lists. */
#ifndef DEM_SIM_H
#define DEM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "dem/status.h"
#include "integrators/rotation.h"
#include "shape/shape.h"
#include "sim/scratch.h"

#include "core/parallel.h"

/* Loops over fewer items than this run on one thread: below it, OpenMP's
 * fork and barrier cost more than the work. */
#define DEM_PARALLEL_MIN 2048

/* The same for loops over bodies, each some tens of doubles of work (the
 * broad phase's, the packing of their motion, the state check). */
#define DEM_PARALLEL_MIN_BODIES (DEM_PARALLEL_MIN / 8)

struct dem_material {
  char *name;
  double density, young_modulus, poisson_ratio;
  /* What dissipative contact laws use (hertz ignores them): coefficient
   * of normal restitution (0, 1], Coulomb friction and rolling friction
   * coefficients (>= 0). */
  double restitution, friction, rolling_friction;
};

/* How contacts dissipate energy, as the energy series reports it. */
enum dem_dissipation {
  DEM_DISSIPATION_DAMPING,  /* viscous damping, normal and tangential */
  DEM_DISSIPATION_FRICTION, /* Coulomb sliding */
  DEM_DISSIPATION_ROLLING,  /* rolling resistance */
  DEM_N_DISSIPATION
};

/* The dissipative properties of a contact between two materials: mixed
 * from theirs, or given for the pair (contact.pairs). */
struct dem_pair_props {
  double restitution, friction, rolling_friction;
  int given; /* 1: from a contact.pairs entry */
};

/* Every per-item array below is listed once in the field table
 * (sim/fields.c), which allocates, frees, permutes, writes and restores
 * them: a new array is a new line there. */

/* Bodies, structure of arrays. Angular velocity in the body principal
 * frame; force and torque accumulators in the lab frame. v and w are what
 * the scheme holds (half a step behind at a step boundary for leapfrog);
 * v_sync and w_sync what the observer reports at a boundary; v_contact and
 * w_contact (lab) what the contact kernels see as the velocities at the
 * force's time, w_move the scheme's w in the lab frame (with v, what moved
 * the bodies over the step). Bodies are renumbered in
 * space now and then (sim/body_order.c): id[i] is body i's number in the
 * input and the output, index_of[id] its place in these arrays now. */
struct dem_bodies {
  size_t n;
  double (*x)[3], (*v)[3], (*q)[4], (*w)[3];
  double (*v_sync)[3], (*w_sync)[3];
  double (*v_contact)[3], (*w_contact)[3], (*w_move)[3];
  double (*force)[3], (*torque)[3];
  double *mass, (*inertia)[3];
  double *scale;   /* size factor on the shape (1; insert: its scale) */
  double *rot_aux; /* n x DEM_ROT_AUX, the rotation scheme's own state */
  int *shape;
  double (*x_build)[3]; /* position at the last neighbour build */
  size_t *first_member; /* n + 1: body b's spheres are first..first[b+1] */
  size_t *id, *index_of;
  /* Periodic runs only (sim/periodic.h): how many times each body was
   * wrapped back along each axis (+1: it left through the high side), and
   * x + image L, filled for snapshots. */
  int (*image)[3];
  double (*x_unwrapped)[3];
  /* Runs with insertion only (sim/insert.h): the energy each body brought
   * in, kinetic + gravitational at its insertion (0 for bodies there from
   * the start); their sum is /energy/inserted. */
  double *energy_in;
  /* Nonzero for a body some of whose spheres may hold a contact force or
   * torque (see dem_spheres.forces_marked): set by the sparse contact
   * gather, cleared by gather_forces. */
  int *forced;
  /* Whether each body's force is its weight as gather_forces gives a body
   * without sphere forces, +0 + (+0 + m g), its torque +0, and nothing
   * was added since: reset_forces writes them so where gather_forces
   * follows with only contact operators between (dem_op.weigh).
   * gather_forces then sets the sums of the bodies with sphere forces
   * (the same bits as adding them to +0: no sum is -0), leaves the others
   * as they are, and clears it. */
  int weighed;
  /* Set by a step whose tiles looked at every body's x, v, w and q after
   * the last operator that changes them (dem_pipeline.check_motion), as
   * they were in cache: whether one was not finite. Cleared as each step
   * starts. */
  int motion_checked, motion_nonfinite;
};

/* Spheres, structure of arrays, in body order (each body's members
 * contiguous, in member order); the neighbour search sorts a copy by
 * cell. */
struct dem_spheres {
  size_t n;
  double (*x)[3];                   /* lab position */
  double (*x_build)[3];             /* position at the last neighbour build */
  double (*offset)[3];              /* body principal frame */
  double (*force)[3], (*torque)[3]; /* contact sums (torque about x) */
  /* Work dissipated by the contacts each sphere owns, since the start, by
   * mechanism (n x DEM_N_DISSIPATION; dissipative laws only). */
  double *dissipated;
  /* With mesh walls (sim/mesh_walls.h): the work the moving walls did on
   * the contacts this sphere owns, counted to half a step past the last
   * force evaluation; that half step's share (wall_work - wall_ahead is
   * the work up to the evaluation); the meshes' time at the last
   * neighbour build (the same for every sphere, kept for restarts). */
  double *wall_work, *wall_ahead, *mesh_t_build;
  double *radius;
  int *body;
  int *material;
  size_t *member;        /* index of this sphere in its body's member list */
  size_t *id, *index_of; /* as for bodies: output number, and back */
  /* Whether some force or torque may be nonzero: the contact forces set
   * it, gather_forces (which zeroes what it moves onto bodies) clears it,
   * and reset_forces skips the spheres while it is clear. */
  int forces_dirty;
  /* Whether every sphere whose force or torque may be nonzero belongs to a
   * body with `forced` set: then gather_forces reads the spheres of those
   * bodies only. The sparse contact gather marks the bodies of the
   * spheres it adds to (and keeps it set); a gather that adds to spheres
   * without marking (the dense one) clears it, as anything else that adds
   * to sphere forces must, or mark; gather_forces, after which no sphere
   * holds a force, sets it. A body marked with no force left costs time,
   * never bits. */
  int forces_marked;
  /* Whether some sphere lay entirely beyond a wall when update_spheres
   * last placed them (if escape_known): the run's per-step state check
   * then needs no pass over the spheres of its own. */
  int escaped, escape_known;
};

/* Contacts with identity: sphere-sphere pairs within reach at the last
 * neighbour build, and sphere-wall contacts, each with the contact
 * model's history. Contacts are grouped by their owner sphere (of a pair,
 * the one with the lower id), owners in the spheres' current order,
 * and within an owner by the key of the partner (a sphere id, or a wall
 * number); the state of a contact follows its key (owner id, partner key)
 * across every rebuild and every spatial re-sort (sim/contacts.c). */
struct dem_contact_list {
  size_t n, cap;
  size_t *start;      /* n_spheres + 1: sphere i owns start[i]..[i+1] */
  uint64_t (*key)[2]; /* owner's id, partner's id or wall number */
  int (*ij)[2];       /* owner's index now, partner's index or wall */
  double *rsum;       /* r_i + r_j (pairs), r_i (walls) */
  /* Pairs only, set at each build (they depend on the pair alone): the
   * effective radius r_i r_j / rsum, the bodies' effective mass
   * m_i m_j / (m_i + m_j) and the pair's rolling inertia
   * (dem_rolling_inertia), so that the law divides for none of them. */
  double *rstar, *mstar, *inertia;
  double *state;       /* n x state_width, the model's history */
  double (*force)[3];  /* on the owner, lab frame, at the last evaluation */
  double (*torque)[6]; /* on the owner and on the partner sphere, about
                          their centres (models with torques only) */
  int *touched;        /* 0: it did not touch at the last evaluation, and its
                          force, torques and history are zero */
  /* The places of the contacts that touched at the last evaluation, as
   * the contact loop listed them: each chunk of the loop's
   * (dem_owner_chunk) from its first place, ended by SIZE_MAX where the
   * chunk has room (contact/loop.h). */
  size_t *touched_at;
  size_t chunk; /* the contacts a chunk of the last evaluation held, at most */
  /* Wall contacts with a mesh patch: their candidate triangles
   * (sim/mesh_walls.h; NULL when there are no meshes). */
  size_t *tri_first, *tri_count;
  /* While a lane kernel's loop over the pairs (or the flat walls after
   * them) runs: the bodies' motion packed for it (contact/lanes.h,
   * DEM_KIN); NULL otherwise. */
  const double *kin;
  int state_width, has_torque, dissipative, velocities;
  /* The previous build's keys, states and owner ranges, the source of
   * the merge that carries states over (sim/contacts.c). */
  size_t n_old;
  size_t *old_start;
  uint64_t (*old_key)[2];
  double *old_state;
};

/* Verlet lists (sim/neighbors.c): each sphere's list of its pairs in
 * ascending partner id (so that every force sum has the same order
 * whatever the bodies' current order), as codes into the pair contacts:
 * c for a pair it owns, ~c for one its partner owns; same-body pairs
 * never enter. `active` lists, ascending, the spheres with a pair or a
 * wall contact: the only ones the gather visits. */
enum dem_broad_phase {
  DEM_BROAD_AUTO = 0, /* on when bodies have many spheres (see neighbors.h) */
  DEM_BROAD_ON = 1,
  DEM_BROAD_OFF = 2
};
/* When bodies are put in spatial order (sim/body_order.h). */
enum dem_sort_bodies { DEM_SORT_AUTO = 0, DEM_SORT_ON = 1, DEM_SORT_OFF = 2 };
struct dem_nb_work;
struct dem_order_work;
struct dem_near;
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
  /* With the near path (sim/near.h), the spheres of far bodies that
   * update_spheres did not place are not in moved2: this bounds their
   * squared displacement instead (0: none was skipped). */
  double far_bound2;
  struct dem_near *near; /* which bodies are near, private (sim/near.c) */
  size_t *start;         /* n_spheres + 1 */
  int *list;             /* pair codes (see above) */
  size_t capacity;
  int *active;
  size_t n_active;
  /* The contact gather's: the spheres with a contact that touched at the
   * evaluation, and a mark per sphere (0 outside it), n_spheres each. */
  int *touching;
  unsigned char *touching_mark;
  /* Whether the last gather found at most a quarter of the listed
   * contacts touching (it then takes the touching spheres' path again,
   * counting them as it lists them: speed only, the bits are the same). */
  int gather_sparse;
  long builds;
  size_t n_candidates;      /* spheres the sphere phase searched */
  struct dem_nb_work *work; /* cell grids and scratch, private */
  /* Scratch the build, the spatial sort and the observer's sums borrow
   * in turn (sim/scratch.h). */
  struct dem_scratch scratch;
  struct dem_order_work *order_work; /* the spatial sort's, private */
};

/* The box: six flat walls, numbered 2 axis + side (0: x min, 1: x max,
 * 2: y min, ...). */
struct dem_walls {
  int enabled;
  double lo[3], hi[3];
  int material;
  /* Periodic axes (bit k: axis k) have no walls; period[k] = hi - lo
   * there, 0 on the others, inv_period its inverse or 0. */
  unsigned periodic;
  double period[3], inv_period[3];
};
enum { DEM_N_WALLS = 6 };

struct dem_contact_model;
struct dem_inserter; /* insertion over time (sim/insert.h), or NULL */
struct dem_mesh_walls;

/* The contact law in use: its model (contact/model.h) and the parameters
 * it mixed for every pair of materials, params + (a * n + b) * size. */
struct dem_contact_law {
  const struct dem_contact_model *model;
  void *params;
  size_t n_materials, params_size;
  struct dem_pair_props *props; /* n x n, what the parameters came from */
};

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

  struct dem_shape *shapes;
  size_t n_shapes;

  struct dem_bodies b;
  struct dem_spheres s;
  struct dem_contact_list pairs, wall_contacts;
  struct dem_contact_law law;
  struct dem_walls walls;
  struct dem_mesh_walls *mw; /* triangle-mesh walls (sim/mesh_walls.h) */
  struct dem_neighbors nb;
  double max_radius, min_radius;
  struct dem_inserter *insert;
};

/* Allocates the body and sphere arrays (zeroed) and the contact lists'
 * per-sphere ranges. */
dem_status dem_sim_alloc_bodies(struct dem_sim *sim, size_t n_bodies,
                                size_t n_spheres);
/* Frees everything the sim owns (not the struct itself). */
void dem_sim_release(struct dem_sim *sim);

/* Effective modulus of two materials: 1/E* = (1-nu1^2)/E1 + (1-nu2^2)/E2. */
double dem_effective_modulus(const struct dem_material *a,
                             const struct dem_material *b);

/* The contact law's parameters for materials a and b. */
static inline const void *dem_law_params(const struct dem_contact_law *law,
                                         int a, int b) {
  return (const char *)law->params +
         ((size_t)a * law->n_materials + (size_t)b) * law->params_size;
}

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

/* Sphere positions from body positions and orientations: every sphere,
 * or with the near path (sim/near.h) those of the bodies that have a
 * contact, and of the others only when a bound cannot show that they
 * stayed within skin/2 of where the last build saw them. Whoever reads
 * every sphere's position calls dem_near_place_all first. */
void dem_sim_update_spheres(struct dem_sim *sim);
/* Every sphere placed: records the largest squared displacement since the
 * last build and whether a sphere left the box, which the neighbour
 * check and the runner read while the positions are still in cache (see
 * dem_neighbors_stale). */
void dem_sim_spheres_placed(struct dem_sim *sim, double moved2, int escaped);

#endif
