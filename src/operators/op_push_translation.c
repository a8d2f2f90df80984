/* Translation pushes: velocity kick from force and position drift from
 * velocity. */
#include "core/isa.h"
#include "core/vec3.h"
#include "operators/op_common.h"

static const char *const dt_scale_params[] = {"dt_scale", NULL};

static dem_status init_push(struct dem_op *op, const struct dem_node *params,
                            struct dem_sim *sim, struct dem_pipeline *p) {
  return dem_op_read_dt_scale(op, params);
}

/* Bodies [i0, i1): v += (h / m) F, as v3_axpy does it, on the flat
 * arrays so that the compiler puts bodies in SIMD lanes. */
static DEM_ALWAYS_INLINE void kick_lanes(struct dem_bodies *b, double h,
                                         size_t i0, size_t i1) {
  double *restrict v = b->v[0];
  const double *restrict f = b->force[0], *restrict m = b->mass;
#pragma omp simd
  for (size_t i = i0; i < i1; i++) {
    const double s = h / m[i];
    v[3 * i] += s * f[3 * i];
    v[3 * i + 1] += s * f[3 * i + 1];
    v[3 * i + 2] += s * f[3 * i + 2];
  }
}

DEM_ISA_DISPATCH_STATIC(kick,
                        (struct dem_bodies * b, double h, size_t i0, size_t i1),
                        kick_lanes, (b, h, i0, i1))

/* Bodies [i0, i1): x += h v, as v3_axpy does it, in one flat loop. */
static DEM_ALWAYS_INLINE void drift_lanes(struct dem_bodies *b, double h,
                                          size_t i0, size_t i1) {
  double *restrict x = b->x[0];
  const double *restrict v = b->v[0];
#pragma omp simd
  for (size_t j = 3 * i0; j < 3 * i1; j++)
    x[j] += h * v[j];
}

DEM_ISA_DISPATCH_STATIC(drift,
                        (struct dem_bodies * b, double h, size_t i0, size_t i1),
                        drift_lanes, (b, h, i0, i1))

static void tile_push_velocity(struct dem_op *op, struct dem_sim *sim,
                               size_t b0, size_t b1,
                               struct dem_tile_sums *sums) {
  kick(&sim->b, op->dt_scale * sim->dt, b0, b1);
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
    .tile = tile_push_velocity,
};

static void tile_push_position(struct dem_op *op, struct dem_sim *sim,
                               size_t b0, size_t b1,
                               struct dem_tile_sums *sums) {
  drift(&sim->b, op->dt_scale * sim->dt, b0, b1);
}

const struct dem_operator_type dem_op_push_position = {
    .name = "push_position",
    .doc = "Drift: each body's centre of mass x += dt_scale dt v (exaDEM's "
           "push_v_r), after the step's first kick. The drifts of a step add "
           "up to dt_scale 1.",
    .params = dt_scale_params,
    .flags = DEM_OP_PUSH | DEM_OP_MOVES,
    .init = init_push,
    .tile = tile_push_position,
};
