/* Translation pushes: velocity kick from force and position drift from
 * velocity. */
#include "core/vec3.h"
#include "operators/op_common.h"

static const char *const dt_scale_params[] = {"dt_scale", NULL};

static dem_status init_push(struct dem_op *op, const struct dem_node *params,
                            struct dem_sim *sim, struct dem_pipeline *p) {
  return dem_op_read_dt_scale(op, params);
}

static dem_status run_push_velocity(struct dem_op *op, struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  const double h = op->dt_scale * sim->dt;
  long n = (long)b->n;
  DEM_PARALLEL_IF(n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
                  for (long i = 0; i < n; i++)
                      v3_axpy(b->v[i], h / b->mass[i], b->force[i]););
  return DEM_OK;
}

const struct dem_operator_type dem_op_push_velocity = {
    .name = "push_velocity",
    .doc = "Kick: each body's velocity v += dt_scale dt F/m (exaDEM's "
           "push_f_v). The kicks of a step add up to dt_scale 1: 1.0 before "
           "the drift (leapfrog), or 0.5 before the drift and 0.5 after the "
           "forces (velocity Verlet).",
    .params = dt_scale_params,
    .flags = DEM_OP_PUSH | DEM_OP_KICK,
    .init = init_push,
    .run = run_push_velocity,
};

static dem_status run_push_position(struct dem_op *op, struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  const double h = op->dt_scale * sim->dt;
  long n = (long)b->n;
  DEM_PARALLEL_IF(n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
                  for (long i = 0; i < n; i++) v3_axpy(b->x[i], h, b->v[i]););
  return DEM_OK;
}

const struct dem_operator_type dem_op_push_position = {
    .name = "push_position",
    .doc = "Drift: each body's centre of mass x += dt_scale dt v (exaDEM's "
           "push_v_r), after the step's first kick. The drifts of a step add "
           "up to dt_scale 1.",
    .params = dt_scale_params,
    .flags = DEM_OP_PUSH | DEM_OP_MOVES,
    .init = init_push,
    .run = run_push_position,
};
