/* The push_rotation operator: advances orientations and angular velocities with
 * a chosen integrator. */
#include <stdlib.h>

#include "core/names.h"
#include "core/quat.h"
#include "operators/load.h"
#include "operators/op_common.h"
#include "operators/rot_bodies.h"

static const char *const rotation_params[] = {"integrator", "stage", "dt_scale",
                                              "normalise_every", NULL};

/* The operator's own state. */
struct rotation_op {
  long normalise_every;                /* 0: never */
  const struct dem_pipeline *pipeline; /* its loads, for step_fn */
};

static dem_status init_rotation(struct dem_op *op,
                                const struct dem_node *params,
                                struct dem_sim *sim, struct dem_pipeline *p) {
  static const char *const stages[] = {"before_force", "after_force", NULL};
  int which = 0, stage = 0;
  dem_status st;
  if (!params)
    return dem_fail(DEM_ERR_CONFIG,
                    "push_rotation needs parameters: {integrator: NAME}");
  const char **names =
      dem_table_names((const void *const *)dem_rotation_integrators);
  if (!names)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  st = dem_cfg_choice(params, "integrator", 1, 0, names, &which);
  free(names);
  if (st || (st = dem_cfg_choice(params, "stage", 0, 0, stages, &stage)) ||
      (st = dem_op_read_dt_scale(op, params)))
    return st;
  op->rot = dem_rotation_integrators[which];
  op->stage = stage ? DEM_STAGE_AFTER : DEM_STAGE_BEFORE;
  if (op->stage == DEM_STAGE_AFTER && !op->rot->after_force)
    return dem_cfg_error(dem_node_get(params, "stage"),
                         "integrator '%s' has no after_force stage",
                         op->rot->name);
  struct rotation_op *r = calloc(1, sizeof *r);
  if (!r)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  op->state = r;
  r->pipeline = p;
  return dem_cfg_long(params, "normalise_every", 0, op->rot->normalise ? 1 : 0,
                      0, 1L << 40, &r->normalise_every);
}

static void release_rotation(struct dem_op *op) {
  free(op->state);
  op->state = NULL;
}

/* Torque for integrators that evaluate the load inside the step (rk4):
 * the accumulated torque minus the prescribed loads at the step's start,
 * plus the loads at the requested time and orientation. */
struct torque_ctx {
  const struct dem_pipeline *p;
  long body; /* id */
  double held[3];
};

static void add_loads(const struct dem_pipeline *p, long body, double t,
                      const double q[4], double sign, double torque[3]) {
  for (size_t k = 0; k < p->n_loads; k++) {
    const struct dem_load *l = p->loads[k];
    if (!dem_load_applies(l, body))
      continue;
    double f[3], m[3];
    dem_load_eval(l, t, q, f, m);
    v3_axpy(torque, sign, m);
  }
}

static void torque_at(void *ctx, double t, const double q[4], const double w[3],
                      double torque_lab[3]) {
  const struct torque_ctx *c = ctx;
  v3_copy(torque_lab, c->held);
  add_loads(c->p, c->body, t, q, 1.0, torque_lab);
}

/* rk4 with the loads as functions of time: body by body. */
static void run_step_fn(const struct dem_op *op, struct dem_sim *sim, double h,
                        int normalise) {
  struct dem_bodies *b = &sim->b;
  const struct dem_rotation_integrator *rot = op->rot;
  const struct rotation_op *r = op->state;
  long n = (long)b->n;
  DEM_PARALLEL_IF(
      n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long i = 0; i < n; i++) {
    struct dem_rot_state s;
    dem_body_rot_load(b, (size_t)i, &s, rot->aux_size);
    struct torque_ctx c = {r->pipeline, (long)b->id[i], {0, 0, 0}};
    v3_copy(c.held, b->torque[i]);
    add_loads(r->pipeline, c.body, sim->t_eval, b->q[i], -1.0, c.held);
    rot->step_fn(&s, b->inertia[i], sim->t_eval, h, torque_at, &c);
    if (normalise)
      q_normalize(s.q);
    dem_body_rot_store(b, (size_t)i, &s, rot->aux_size);
      });
}

/* Whether this step renormalises (the before-force stage's
 * normalise_every-th step of the run; sim->step steps are done). */
static int normalise_now(const struct dem_op *op, const struct dem_sim *sim) {
  const struct rotation_op *r = op->state;
  return op->stage != DEM_STAGE_AFTER && r->normalise_every > 0 &&
         (sim->step + 1) % r->normalise_every == 0;
}

/* Integrators that evaluate loads inside the step (rk4) go body by body
 * with their step function; the others in tiles. */
static dem_status run_rotation(struct dem_op *op, struct dem_sim *sim) {
  run_step_fn(op, sim, op->dt_scale * sim->dt, normalise_now(op, sim));
  return DEM_OK;
}

static int rotation_tileable(const struct dem_op *op,
                             const struct dem_sim *sim) {
  return op->stage == DEM_STAGE_AFTER || !op->rot->step_fn;
}

static void tile_rotation(struct dem_op *op, struct dem_sim *sim, size_t b0,
                          size_t b1, struct dem_tile_sums *sums) {
  const enum dem_rot_fn fn =
      op->stage == DEM_STAGE_AFTER ? DEM_ROT_AFTER : DEM_ROT_BEFORE;
  dem_rot_bodies_advance(op->rot, fn, &sim->b, b0, b1, op->dt_scale * sim->dt,
                         normalise_now(op, sim), dem_isa_best());
}

const struct dem_operator_type dem_op_push_rotation = {
    .name = "push_rotation",
    .doc = "Advances each body's orientation and angular velocity one step "
           "with a rotation integrator (integrator: spiral_leapfrog, "
           "omelyan, ...; listed below, docs/integrators.md). Two-stage "
           "integrators (velocity_verlet, velocity_verlet_spiral) appear "
           "twice: stage: before_force, and stage: after_force after the "
           "forces. A leapfrog integrator goes with the leapfrog kick, the "
           "others with the velocity Verlet kicks. normalise_every: N "
           "renormalises the orientation quaternion every N steps (default: "
           "every step for the integrators that need it, never for the "
           "others). dt_scale, if given, must be 1.",
    .params = rotation_params,
    .flags = DEM_OP_PUSH | DEM_OP_MOVES,
    .init = init_rotation,
    .run = run_rotation,
    .release = release_rotation,
    .tile = tile_rotation,
    .tileable = rotation_tileable,
};
