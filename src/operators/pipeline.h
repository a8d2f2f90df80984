/* The time step as a list of operators, looked up by name in one const table.
 */
#ifndef DEM_PIPELINE_H
#define DEM_PIPELINE_H

#include <stddef.h>

#include "config/config.h"
#include "integrators/rotation.h"
#include "sim/sim.h"

/* What an operator does to the state, so the pipeline can check a scheme. */
enum dem_op_flags {
  DEM_OP_FORCES = 1u << 0,   /* adds to or resets forces/torques */
  DEM_OP_MOVES = 1u << 1,    /* changes body positions or orientations */
  DEM_OP_SPHERES = 1u << 2,  /* derives sphere positions from bodies */
  DEM_OP_CONTACTS = 1u << 3, /* reads sphere positions for contacts */
  DEM_OP_PUSH = 1u << 4,     /* integrates velocities or positions */
  DEM_OP_RESET = 1u << 5,    /* zeroes the force accumulators */
  DEM_OP_KICK = 1u << 6,     /* advances velocities (push_velocity) */
  DEM_OP_GATHER = 1u << 7    /* sphere forces onto bodies (gather_forces) */
};

enum dem_rot_stage { DEM_STAGE_FULL, DEM_STAGE_BEFORE, DEM_STAGE_AFTER };

struct dem_op;
struct dem_pipeline;

/* What the tiles of a tiled run measure, per thread, and reduce at its
 * end: update_spheres' largest squared displacement since the build
 * (max) and whether a sphere left the box (or). */
struct dem_tile_sums {
  double moved2;
  int escaped;
  int nonfinite; /* with dem_pipeline.check_motion: see there */
};

/* One entry of the operator table. */
struct dem_operator_type {
  const char *name;
  const char *doc;
  const char *const *params; /* allowed parameter keys, NULL-terminated */
  unsigned flags;
  /* Reads and checks the parameter block (params may be NULL) into the
   * operator's own state (op->state, which release frees). */
  dem_status (*init)(struct dem_op *op, const struct dem_node *params,
                     struct dem_sim *sim, struct dem_pipeline *p);
  /* The whole step's work; may be NULL where tile always serves. */
  dem_status (*run)(struct dem_op *op, struct dem_sim *sim);
  void (*release)(struct dem_op *op);
  /* Body-local operators (NULL: not one): the work on the bodies
   * [b0, b1) and their spheres alone, reading nothing of other bodies
   * and not sim->t_eval. The pipeline runs consecutive such operators
   * together, a tile of bodies at a time, each tile through all of them
   * while it is in cache (operators/pipeline.c). tileable (NULL: always)
   * says whether tile serves this step, else run does; tiles_done (NULL:
   * nothing) takes the reduced sums after the last tile. */
  void (*tile)(struct dem_op *op, struct dem_sim *sim, size_t b0, size_t b1,
               struct dem_tile_sums *sums);
  int (*tileable)(const struct dem_op *op, const struct dem_sim *sim);
  void (*tiles_done)(struct dem_op *op, struct dem_sim *sim,
                     const struct dem_tile_sums *sums);
};

/* A load added to bodies: see operators/load.h. */
struct dem_load;

/* An operator in a scheme: what the pipeline needs to know of it to check
 * and drive the scheme, and its own state. */
struct dem_op {
  const struct dem_operator_type *type;
  double dt_scale;                           /* pushes */
  const struct dem_rotation_integrator *rot; /* push_rotation */
  enum dem_rot_stage stage;                  /* push_rotation */
  int weigh;      /* reset_forces: writes the weights (dem_bodies.weighed) */
  void *state;    /* the operator's own, from init (NULL: none) */
  double seconds; /* wall time spent in run(), if the pipeline's timing */
  long calls;     /* for profiling only */
};

struct dem_pipeline {
  char *scheme_name;
  struct dem_op *ops;
  size_t n_ops;
  int half_step;    /* v (and w) lag dt/2 at step boundaries */
  size_t last_move; /* index of the last MOVES operator + 1 (0: none) */
  size_t last_push; /* index of the last PUSH operator + 1 (0: none) */
  /* Whether the tiles of the last PUSH operator (the last to change the
   * bodies' x, v, w or q in a step) look at those fields after it, while
   * they are in cache, for dem run's check after each step
   * (dem_bodies.motion_checked). */
  int check_motion;
  const struct dem_op *rotation; /* the push_rotation used for sync */
  /* The loads that prescribed_load operators registered (push_rotation
   * evaluates them inside the step for integrators like rk4). */
  const struct dem_load **loads;
  size_t n_loads;
  /* Whether the contact law reads velocities, and how far behind the
   * force evaluation the scheme's velocities are there (in steps). */
  int predict_velocities;
  double velocity_lag;
  int first_evaluation; /* forces are being computed for the first time */
  /* Time each operator (dem_op.seconds; the benchmark's): off by default,
   * since each reading of the clock costs about 65 ns on the development
   * VM, two per operator a fifth of a 5 us chess step. */
  int timing;
};

extern const struct dem_operator_type *const dem_operator_types[];
const struct dem_operator_type *dem_operator_find(const char *name);

/* Builds the pipeline from the config's `scheme` node: a scheme name (one
 * of configs/schemes, compiled in), an inline list of operators, or a
 * mapping {velocities: half_step|whole_step, operators: [...]}; NULL:
 * the default scheme, spiral_leapfrog. `loads` (a list of
 * {prescribed_load: {...}}, or NULL) are inserted after the scheme's last
 * force operator. */
dem_status dem_pipeline_build(const struct dem_node *scheme,
                              const struct dem_node *loads, struct dem_sim *sim,
                              struct dem_pipeline **out);
void dem_pipeline_free(struct dem_pipeline *p);

/* The scheme's rules (operators/pipeline_check.c), for the list `list`
 * the operators p->ops came from: forces computed last and reset first,
 * sphere positions current where read, one rotation integrator with each
 * of its stages once; the kicks and the drifts of a step each add up to
 * one step, and the translation and the rotation agree on where
 * velocities live. Sets p->half_step from the kicks. A broken rule fails
 * with DEM_ERR_CONFIG at the offending item's file:line:col. */
dem_status dem_pipeline_check(struct dem_pipeline *p,
                              const struct dem_node *list);

/* Registers a load for push_rotation's in-step evaluations. */
dem_status dem_pipeline_add_load(struct dem_pipeline *p,
                                 const struct dem_load *load);

/* Runs only the operators that compute forces (once, before step 1). */
dem_status dem_pipeline_initial_forces(struct dem_pipeline *p,
                                       struct dem_sim *sim);
/* Puts velocities at the scheme's starting half steps (after initial
 * forces): v -= a dt/2 for half-step schemes, and the rotation scheme's
 * start. */
void dem_pipeline_start(struct dem_pipeline *p, struct dem_sim *sim);
/* One time step: every operator in order, then t += dt. */
dem_status dem_pipeline_step(struct dem_pipeline *p, struct dem_sim *sim);
/* Velocities at the step boundary's time (for energy and snapshots). */
void dem_pipeline_sync(const struct dem_pipeline *p, const struct dem_sim *sim,
                       double (*v)[3], double (*w)[3]);

#endif
