/* The prescribed_load operator: adds a given force and torque to bodies. */
#include <stdlib.h>

#include "core/quat.h"
#include "operators/load.h"
#include "operators/op_common.h"

void dem_load_eval(const struct dem_load *l, double t, const double q[4],
                   double force_lab[3], double torque_lab[3]) {
  double f = 1.0;
  if (l->function == DEM_LOAD_EXP)
    f = exp(l->rate * t);
  else if (l->function == DEM_LOAD_SIN)
    f = sin(l->omega * t + l->phase);
  v3_scale(force_lab, l->force, f);
  v3_scale(torque_lab, l->torque, f);
  if (l->frame == DEM_FRAME_BODY) {
    /* Between normalisations (normalise_every other than 1, or never) q is
     * not unit, and q v q* with |q| != 1 is not a rotation: it changes the
     * vector's length and direction. The orientation is q/|q|. */
    double u[4];
    q_copy(u, q);
    q_normalize(u);
    q_rotate(force_lab, u, force_lab);
    q_rotate(torque_lab, u, torque_lab);
  }
}

int dem_load_applies(const struct dem_load *l, long b) {
  if (!l->bodies)
    return 1;
  for (size_t i = 0; i < l->n_bodies; i++)
    if (l->bodies[i] == b)
      return 1;
  return 0;
}

static const char *const load_params[] = {"force",    "torque", "frame",
                                          "function", "rate",   "omega",
                                          "phase",    "bodies", NULL};

static dem_status init_load(struct dem_op *op, const struct dem_node *params,
                            struct dem_sim *sim, struct dem_pipeline *p) {
  static const char *const frames[] = {"lab", "body", NULL};
  static const char *const functions[] = {"constant", "exp", "sin", NULL};
  static const double zero[3] = {0, 0, 0};
  struct dem_load *l = calloc(1, sizeof *l);
  dem_status st;
  int frame = 0, function = 0;
  if (!l)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  op->state = l;
  if ((st = dem_pipeline_add_load(p, l)) || !params)
    return st;
  if ((st = dem_cfg_vec(params, "force", 0, zero, 3, DEM_ANY, l->force)) ||
      (st = dem_cfg_vec(params, "torque", 0, zero, 3, DEM_ANY, l->torque)) ||
      (st = dem_cfg_choice(params, "frame", 0, 0, frames, &frame)) ||
      (st = dem_cfg_choice(params, "function", 0, 0, functions, &function)) ||
      (st = dem_cfg_double(params, "rate", 0, 0.0, DEM_ANY, &l->rate)) ||
      (st = dem_cfg_double(params, "omega", 0, 0.0, DEM_ANY, &l->omega)) ||
      (st = dem_cfg_double(params, "phase", 0, 0.0, DEM_ANY, &l->phase)))
    return st;
  l->frame = (enum dem_load_frame)frame;
  l->function = (enum dem_load_function)function;
  const struct dem_node *bodies;
  if ((st = dem_cfg_sequence(params, "bodies", 0, &bodies)))
    return st;
  if (bodies) {
    l->n_bodies = dem_node_size(bodies);
    l->bodies = calloc(l->n_bodies ? l->n_bodies : 1, sizeof *l->bodies);
    if (!l->bodies)
      return dem_fail(DEM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < l->n_bodies; i++) {
      const struct dem_node *item = dem_node_at(bodies, i);
      const char *text = dem_node_scalar(item);
      char *end = NULL;
      long v = text ? strtol(text, &end, 10) : -1;
      if (!text || *end || end == text || v < 0 || (size_t)v >= sim->b.n)
        return dem_cfg_error(item,
                             "key 'bodies': expected a body index in [0, %zu), "
                             "found '%s'",
                             sim->b.n, text ? text : "a collection");
      l->bodies[i] = v;
    }
  }
  return DEM_OK;
}

static dem_status run_load(struct dem_op *op, struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  const struct dem_load *l = op->state;
  long n = (long)b->n;
  DEM_PARALLEL_IF(
      n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long i = 0; i < n; i++) {
    if (!dem_load_applies(l, (long)b->id[i]))
      continue;
    double f[3], t[3];
    dem_load_eval(l, sim->t_eval, b->q[i], f, t);
    v3_add(b->force[i], b->force[i], f);
    v3_add(b->torque[i], b->torque[i], t);
      });
  return DEM_OK;
}

static void release_load(struct dem_op *op) {
  struct dem_load *l = op->state;
  if (l)
    free(l->bodies);
  free(l);
  op->state = NULL;
}

const struct dem_operator_type dem_op_prescribed_load = {
    .name = "prescribed_load",
    .doc = "Adds force * f(t) and torque * f(t) to bodies (all, or the "
           "listed input numbers), with f = 1 (function: constant), exp(rate "
           "t) or "
           "sin(omega t + phase); vectors in the lab frame or the body "
           "principal frame (frame: body).",
    .params = load_params,
    .flags = DEM_OP_FORCES,
    .init = init_load,
    .run = run_load,
    .release = release_load,
};
