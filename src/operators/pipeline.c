/* Building a scheme's operator list from YAML, checking it, and running it. */
#include "operators/pipeline.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/model.h"
#include "core/names.h"
#include "core/quat.h"
#include "core/shares.h"
#include "core/vec3.h"
#include "operators/rot_bodies.h"
#include "operators/schemes_data.h"
#include "sim/finite.h"

static const char *scheme_name(const void *ctx, size_t i) {
  return dem_embedded_schemes[i].name;
}

static size_t scheme_count(void) {
  size_t n = 0;
  while (dem_embedded_schemes[n].name)
    n++;
  return n;
}

/* Moves bodies: drifts and the first stage of rotation pushes. */
static int op_moves(const struct dem_op *op) {
  return (op->type->flags & DEM_OP_MOVES) && op->stage != DEM_STAGE_AFTER;
}

static dem_status add_operator(struct dem_pipeline *p,
                               const struct dem_node *item,
                               struct dem_sim *sim) {
  const char *name = dem_node_scalar(item);
  const struct dem_node *params = NULL;
  if (!name) {
    if (dem_node_kind(item) != DEM_NODE_MAPPING || dem_node_size(item) != 1)
      return dem_cfg_error(item, "an operator is a name or a mapping "
                                 "{name: {parameters}}");
    name = dem_node_key_at(item, 0);
    params = dem_node_at(item, 0);
    if (dem_node_kind(params) == DEM_NODE_SCALAR &&
        dem_node_scalar(params)[0] == '\0')
      params = NULL; /* "name:" with nothing after it */
  }
  const struct dem_operator_type *type = dem_operator_find(name);
  if (!type) {
    const char **names =
        dem_table_names((const void *const *)dem_operator_types);
    const char *near = names ? dem_closest_word(name, names) : NULL;
    dem_status st = dem_cfg_error(item, "unknown operator '%s'%s%s%s", name,
                                  near ? " (did you mean '" : "",
                                  near ? near : "", near ? "'?)" : "");
    free(names);
    return st;
  }
  dem_status st;
  if (params) {
    static const char *const none[] = {NULL};
    char where[128];
    snprintf(where, sizeof where, "operator %s", name);
    if ((st = dem_cfg_check_keys(params, type->params ? type->params : none,
                                 where)))
      return st;
  }
  struct dem_op *op = &p->ops[p->n_ops++];
  *op = (struct dem_op){.type = type, .dt_scale = 1.0};
  if (type->init && (st = type->init(op, params, sim, p))) {
    dem_error_locate(dem_node_file(item), dem_node_line(item),
                     dem_node_col(item));
    return st;
  }
  return DEM_OK;
}

/* The config's top-level `loads` become prescribed_load operators right
 * after the scheme's last force operator, so any named scheme drives the
 * single-body validation problems. */
static dem_status insert_loads(struct dem_pipeline *p,
                               const struct dem_node *loads,
                               const struct dem_node *list,
                               struct dem_sim *sim) {
  size_t n_loads = dem_node_size(loads), at = 0;
  int found = 0;
  for (size_t i = 0; i < p->n_ops; i++)
    if (p->ops[i].type->flags & DEM_OP_FORCES)
      at = i + 1, found = 1;
  if (!found)
    return dem_cfg_error(list, "the scheme computes no forces, so the "
                               "config's 'loads' have nowhere to go");
  size_t tail = p->n_ops - at;
  struct dem_op *moved = malloc((tail ? tail : 1) * sizeof *moved);
  if (!moved)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  memcpy(moved, p->ops + at, tail * sizeof *moved);
  p->n_ops = at;
  dem_status st = DEM_OK;
  for (size_t i = 0; i < n_loads && !st; i++) {
    const struct dem_node *item = dem_node_at(loads, i);
    static const char *const one[] = {"prescribed_load", NULL};
    if (!(st = dem_cfg_check_keys(item, one, "loads")))
      st = add_operator(p, item, sim);
  }
  memcpy(p->ops + p->n_ops, moved, tail * sizeof *moved);
  p->n_ops += tail;
  free(moved);
  return st;
}

/* Whether the reset at `reset` may write the bodies' weights for the
 * gather after it (dem_bodies.weighed): only operators that neither read
 * a body's force nor add to it come between them (the sphere update, the
 * neighbour lists, the contact forces, which add to spheres). */
static int gather_follows(const struct dem_pipeline *p, size_t reset) {
  for (size_t k = reset + 1; k < p->n_ops; k++) {
    const unsigned f = p->ops[k].type->flags;
    if (f & DEM_OP_GATHER)
      return 1;
    if ((f & DEM_OP_PUSH) || ((f & DEM_OP_FORCES) && !(f & DEM_OP_CONTACTS)))
      return 0;
  }
  return 0;
}

static dem_status build_from_list(struct dem_pipeline *p,
                                  const struct dem_node *list,
                                  const struct dem_node *loads,
                                  struct dem_sim *sim) {
  if (dem_node_kind(list) != DEM_NODE_SEQUENCE || dem_node_size(list) == 0)
    return dem_cfg_error(list, "a scheme's operators are a non-empty list");
  size_t n = dem_node_size(list), n_loads = dem_node_size(loads);
  p->ops = calloc(n + n_loads, sizeof *p->ops);
  if (!p->ops)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  dem_status st;
  for (size_t i = 0; i < n; i++)
    if ((st = add_operator(p, dem_node_at(list, i), sim)))
      return st;
  if ((st = dem_pipeline_check(p, list)))
    return st;
  if (n_loads && (st = insert_loads(p, loads, list, sim)))
    return st;
  /* Positions in the final list (loads may have shifted operators). */
  p->rotation = NULL;
  p->last_move = p->last_push = 0;
  for (size_t i = 0; i < p->n_ops; i++) {
    if (p->ops[i].rot && !p->rotation)
      p->rotation = &p->ops[i];
    if (op_moves(&p->ops[i]))
      p->last_move = i + 1;
    if (p->ops[i].type->flags & DEM_OP_PUSH)
      p->last_push = i + 1;
    if (p->ops[i].type->flags & DEM_OP_RESET)
      p->ops[i].weigh = gather_follows(p, i);
  }
  return DEM_OK;
}

/* Where the scheme's velocities are when contact forces are evaluated:
 * they start the step at t (or t - dt/2 with half steps) and each kick
 * before the contacts moves them on; the forces are at t + dt. */
static void find_velocity_lag(struct dem_pipeline *p,
                              const struct dem_sim *sim) {
  double level = p->half_step ? -0.5 : 0.0;
  p->velocity_lag = 0;
  p->predict_velocities =
      sim->law.model && (sim->law.model->flags & DEM_MODEL_VELOCITY);
  for (size_t i = 0; i < p->n_ops; i++) {
    const struct dem_op *op = &p->ops[i];
    if (op->type->flags & DEM_OP_CONTACTS && op->type->flags & DEM_OP_FORCES) {
      p->velocity_lag = 1.0 - level;
      return;
    }
    if (op->type->flags & DEM_OP_KICK)
      level += op->dt_scale;
  }
}

static dem_status build_from_mapping(struct dem_pipeline *p,
                                     const struct dem_node *map,
                                     const struct dem_node *loads,
                                     struct dem_sim *sim) {
  static const char *const keys[] = {"doc", "velocities", "operators", NULL};
  static const char *const velocities[] = {"whole_step", "half_step", NULL};
  const struct dem_node *list;
  int half = -1;
  dem_status st;
  if ((st = dem_cfg_check_keys(map, keys, "scheme")) ||
      (st = dem_cfg_sequence(map, "operators", 1, &list)))
    return st;
  if (dem_node_get(map, "velocities") &&
      (st = dem_cfg_choice(map, "velocities", 1, 0, velocities, &half)))
    return st;
  if ((st = build_from_list(p, list, loads, sim)))
    return st;
  /* The checks set half_step from the kicks (and the rotation integrator
   * agrees with them): `velocities` may only say the same. */
  if (half >= 0 && half != p->half_step) {
    const char *where = p->half_step ? "half" : "whole";
    if (p->rotation)
      return dem_cfg_error(dem_node_get(map, "velocities"),
                           "integrator '%s' keeps velocities at %s steps",
                           p->rotation->rot->name, where);
    return dem_cfg_error(dem_node_get(map, "velocities"),
                         "the scheme's kicks keep velocities at %s steps",
                         where);
  }
  return DEM_OK;
}

static dem_status load_named(struct dem_pipeline *p,
                             const struct dem_node *name_node,
                             const struct dem_node *loads, struct dem_sim *sim,
                             struct dem_config **cfg) {
  const char *name = dem_node_scalar(name_node);
  for (size_t i = 0; dem_embedded_schemes[i].name; i++) {
    const struct dem_embedded_scheme *e = &dem_embedded_schemes[i];
    if (strcmp(e->name, name) != 0)
      continue;
    dem_status st = dem_config_load_string(e->path, e->text, cfg);
    if (st)
      return st;
    return build_from_mapping(p, (*cfg)->root, loads, sim);
  }
  const char *near = dem_closest_name(name, scheme_count(), scheme_name, NULL);
  return dem_cfg_error(name_node, "unknown scheme '%s'%s%s%s", name,
                       near ? " (did you mean '" : "", near ? near : "",
                       near ? "'?)" : "");
}

dem_status dem_pipeline_build(const struct dem_node *scheme,
                              const struct dem_node *loads, struct dem_sim *sim,
                              struct dem_pipeline **out) {
  struct dem_pipeline *p = calloc(1, sizeof *p);
  struct dem_config *named = NULL, *fallback = NULL;
  dem_status st;
  *out = NULL;
  if (!p)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  if (!scheme) {
    if ((st = dem_config_load_string("default", "scheme: spiral_leapfrog\n",
                                     &fallback))) {
      free(p);
      return st;
    }
    scheme = dem_node_get(fallback->root, "scheme");
  }
  const char *name = dem_node_scalar(scheme);
  if (name) {
    st = load_named(p, scheme, loads, sim, &named);
  } else if (dem_node_kind(scheme) == DEM_NODE_SEQUENCE) {
    name = "inline";
    st = build_from_list(p, scheme, loads, sim);
  } else {
    name = "inline";
    st = build_from_mapping(p, scheme, loads, sim);
  }
  dem_config_free(named);
  if (!st && !(p->scheme_name = strdup(name)))
    st = dem_fail(DEM_ERR_NOMEM, "out of memory");
  dem_config_free(fallback);
  if (!st)
    find_velocity_lag(p, sim);
  if (st) {
    dem_pipeline_free(p);
    return st;
  }
  *out = p;
  return DEM_OK;
}

void dem_pipeline_free(struct dem_pipeline *p) {
  if (!p)
    return;
  for (size_t i = 0; i < p->n_ops; i++)
    if (p->ops[i].type->release)
      p->ops[i].type->release(&p->ops[i]);
  free(p->ops);
  free(p->loads);
  free(p->scheme_name);
  free(p);
}

dem_status dem_pipeline_add_load(struct dem_pipeline *p,
                                 const struct dem_load *load) {
  const struct dem_load **l =
      realloc(p->loads, (p->n_loads + 1) * sizeof *p->loads);
  if (!l)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  p->loads = l;
  p->loads[p->n_loads++] = load;
  return DEM_OK;
}

/* Each body's velocity and angular velocity (lab) at the time forces are
 * evaluated, for contact laws that read them: the scheme's velocities
 * moved on by `lag` steps with the force and torque of the last
 * evaluation (a predictor; for integrators with half-step angular
 * velocities, their own synchronisation); and the scheme's angular
 * velocity in the lab frame, which (with v) moved the bodies over the
 * step. Bodies [i0, i1). */
static void predict_range(const struct dem_pipeline *p, struct dem_sim *sim,
                          double lag, size_t i0, size_t i1) {
  struct dem_bodies *b = &sim->b;
  const struct dem_op *rop = p->rotation;
  const struct dem_rotation_integrator *rot = rop ? rop->rot : NULL;
  const double h = lag * sim->dt, dt = rop ? rop->dt_scale * sim->dt : 0.0;
  const int sync = h > 0 && rot && rot->leapfrog && rot->sync;
  for (size_t i = i0; i < i1; i++) {
    v3_copy(b->v_contact[i], b->v[i]);
    v3_axpy(b->v_contact[i], h / b->mass[i], b->force[i]);
  }
  dem_rot_bodies_lab(rot, sync, b, i0, i1, dt, dem_isa_best());
}

static void predict_velocities(const struct dem_pipeline *p,
                               struct dem_sim *sim, double lag) {
  DEM_ROT_CHUNKS(sim->b.n, i0, i1, { predict_range(p, sim, lag, i0, i1); });
}

/* Whether an operator runs in tiles this step. */
static int op_tiles(const struct dem_op *op, const struct dem_sim *sim) {
  const struct dem_operator_type *t = op->type;
  return t->tile && (!t->tileable || t->tileable(op, sim));
}

/* Bodies per tile: a tile's rows (about 500 bytes a rod of three
 * spheres) stay in cache from one operator to the next. A multiple of
 * the rotation blocks. In the gas at 3e5 and 1e6 spheres on one thread
 * (AMD Zen 3), tiles of 64 bodies were slower than separate passes, and
 * tiles of 256-4096 made the step 6-11 % faster (docs/performance.md,
 * "Body operators in tiles"). */
enum { TILE_BODIES = 1024 };

/* Where tile t of `tiles` over n bodies starts: on a multiple of the
 * rotation blocks, but the end. */
static size_t tile_start(size_t n, long t, long tiles) {
  if (t == tiles)
    return n;
  return n * (size_t)t / (size_t)tiles / DEM_ROT_LANES * DEM_ROT_LANES;
}

/* Tiles [t0, t1) of `tiles` through the operators [i, j) (see
 * run_tiles), their sums added to *sums; with `clock`, the time in each
 * operator added to its seconds; with `check`, each tile's bodies then
 * looked at for a motion that is not finite. */
static void run_tile_range(struct dem_pipeline *p, struct dem_sim *sim,
                           size_t i, size_t j, size_t predict_at, long tiles,
                           size_t t0, size_t t1, int clock, int check,
                           struct dem_tile_sums *sums) {
  const size_t n = sim->b.n;
  for (size_t t = t0; t < t1; t++) {
    const size_t b0 = tile_start(n, (long)t, tiles),
                 b1 = tile_start(n, (long)t + 1, tiles);
    for (size_t k = i; k < j; k++) {
      struct dem_op *op = &p->ops[k];
      const double start = clock ? omp_get_wtime() : 0.0;
      if (k == predict_at)
        predict_range(p, sim, p->velocity_lag, b0, b1);
      op->type->tile(op, sim, b0, b1, sums);
      if (clock)
        op->seconds += omp_get_wtime() - start;
    }
    if (check)
      sums->nonfinite |= dem_bodies_motion_suspect(&sim->b, b0, b1);
  }
}

/* The operators [i, j), each of which runs in tiles, a tile of bodies
 * at a time through all of them, in one parallel region: a body's rows
 * are read from memory once a step rather than once an operator, and
 * since each operator touches only its tile's bodies, the results are
 * those of running them one after another. The velocities are predicted
 * in each tile just before operator `predict_at` (j: not). In parallel
 * when the bodies (and the spheres, if the operators place them) are
 * many; with timing, thread 0's time in each operator is counted as the
 * operator's. Where the last PUSH operator is among them and the run asks
 * (check_motion), each tile's bodies are looked at after them, if they
 * are more than one tile holds (fewer stay in cache until the run's own
 * check, which then costs less than a look in each tile: 5 % of the
 * chess box's 32 bodies' run). */
static void run_tiles(struct dem_pipeline *p, struct dem_sim *sim, size_t i,
                      size_t j, size_t predict_at) {
  const size_t n = sim->b.n;
  const int check = p->check_motion && n > TILE_BODIES && p->last_push > i &&
                    p->last_push <= j;
  size_t work = n;
  for (size_t k = i; k < j; k++)
    if (p->ops[k].type->flags & DEM_OP_SPHERES)
      work += sim->s.n;
  long tiles = (long)((n + TILE_BODIES - 1) / TILE_BODIES);
  struct dem_tile_sums all = {0.0, 0, 0};
  if (work <= DEM_PARALLEL_MIN || omp_get_max_threads() == 1) {
    run_tile_range(p, sim, i, j, predict_at, tiles, 0, (size_t)tiles, p->timing,
                   check, &all);
  } else {
    const long threads = omp_get_max_threads();
    tiles = (tiles + threads - 1) / threads * threads; /* as many on each */
    struct dem_shares shares;
    dem_shares_init(&shares, (size_t)tiles, (int)threads);
    /* Each thread's sums in a slot of its own, taken together after the
     * region: reduction clauses on more than one variable made GCC take
     * libgomp's one lock (GOMP_atomic_start) in each thread at the end
     * of the region, every step. */
    struct dem_tile_sums part[threads]; /* zero: a team may be smaller */
    for (long t = 0; t < threads; t++)
      part[t] = (struct dem_tile_sums){0.0, 0, 0};
#pragma omp parallel
    {
      struct dem_tile_sums sums = {0.0, 0, 0};
      const int me = omp_get_thread_num();
      for (long t; (t = dem_shares_next(&shares, me)) >= 0;)
        run_tile_range(p, sim, i, j, predict_at, tiles, (size_t)t,
                       (size_t)t + 1, p->timing && me == 0, check, &sums);
      part[me] = sums;
    }
    for (long t = 0; t < threads; t++) {
      const struct dem_tile_sums *u = &part[t];
      all.moved2 = u->moved2 > all.moved2 ? u->moved2 : all.moved2;
      all.escaped |= u->escaped;
      all.nonfinite |= u->nonfinite;
    }
  }
  if (check) {
    sim->b.motion_checked = 1;
    sim->b.motion_nonfinite = all.nonfinite;
  }
  for (size_t k = i; k < j; k++) {
    struct dem_op *op = &p->ops[k];
    op->calls++;
    if (op->type->tiles_done)
      op->type->tiles_done(op, sim, &all);
  }
}

static dem_status run_op(const struct dem_pipeline *p, struct dem_op *op,
                         struct dem_sim *sim) {
  op->calls++;
  if (!p->timing)
    return op->type->run(op, sim);
  double t0 = omp_get_wtime();
  dem_status st = op->type->run(op, sim);
  op->seconds += omp_get_wtime() - t0;
  return st;
}

/* Operator i, and the ones after it that run in tiles with it; returns
 * where the next run starts in *next. Positions are at t + dt from the
 * operator after the last that moves bodies (those in tiles do not read
 * t_eval, so it may change before them). Predicts the velocities before
 * the first reset if *predicted is 0. */
static dem_status run_from(struct dem_pipeline *p, struct dem_sim *sim,
                           size_t i, size_t *next, int *predicted) {
  struct dem_op *op = &p->ops[i];
  const int tiles = op_tiles(op, sim);
  size_t j = i + 1;
  while (tiles && j < p->n_ops && op_tiles(&p->ops[j], sim))
    j++;
  *next = j;
  if (p->last_move >= i && p->last_move < j)
    sim->t_eval = sim->t + sim->dt;
  if (!tiles) {
    if (!*predicted && (op->type->flags & DEM_OP_RESET)) {
      predict_velocities(p, sim, p->velocity_lag);
      *predicted = 1;
    }
    return run_op(p, op, sim);
  }
  size_t predict_at = j;
  for (size_t k = i; k < j && !*predicted; k++)
    if (p->ops[k].type->flags & DEM_OP_RESET)
      predict_at = k, *predicted = 1;
  run_tiles(p, sim, i, j, predict_at);
  return DEM_OK;
}

dem_status dem_pipeline_initial_forces(struct dem_pipeline *p,
                                       struct dem_sim *sim) {
  dem_status st = DEM_OK;
  sim->t_eval = sim->t;
  dem_sim_update_spheres(sim);
  if (p->predict_velocities)
    predict_velocities(p, sim, 0.0); /* velocities are at t */
  p->first_evaluation = 1;
  for (size_t i = 0; i < p->n_ops && !st; i++) {
    struct dem_op *op = &p->ops[i];
    if (op->type->flags & DEM_OP_PUSH)
      continue;
    if (op_tiles(op, sim))
      run_tiles(p, sim, i, i + 1, i + 1);
    else
      st = op->type->run(op, sim);
  }
  p->first_evaluation = 0;
  return st;
}

void dem_pipeline_start(struct dem_pipeline *p, struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  const struct dem_op *rop = p->rotation;
  if (p->half_step)
    for (size_t i = 0; i < b->n; i++)
      v3_axpy(b->v[i], -0.5 * sim->dt / b->mass[i], b->force[i]);
  if (!rop || !rop->rot->start)
    return;
  double h = rop->dt_scale * sim->dt;
  dem_rot_bodies_advance(rop->rot, DEM_ROT_START, b, 0, b->n, h, 0,
                         dem_isa_best());
}

dem_status dem_pipeline_step(struct dem_pipeline *p, struct dem_sim *sim) {
  dem_status st;
  sim->t_eval = sim->t;
  sim->b.motion_checked = 0;
  int predicted = !p->predict_velocities;
  for (size_t i = 0, next; i < p->n_ops; i = next)
    if ((st = run_from(p, sim, i, &next, &predicted)))
      return st;
  sim->step++;
  sim->t = sim->t0 + (double)(sim->step - sim->step0) * sim->dt;
  return DEM_OK;
}

void dem_pipeline_sync(const struct dem_pipeline *p, const struct dem_sim *sim,
                       double (*v)[3], double (*w)[3]) {
  const struct dem_bodies *b = &sim->b;
  const struct dem_op *rop = p->rotation;
  const struct dem_rotation_integrator *rot = rop ? rop->rot : NULL;
  const double dt = rop ? rop->dt_scale * sim->dt : 0.0;
  const enum dem_isa isa = dem_isa_best();
  DEM_ROT_CHUNKS(b->n, i0, i1, {
    for (size_t i = i0; i < i1; i++) {
      v3_copy(v[i], b->v[i]);
      if (p->half_step)
        v3_axpy(v[i], 0.5 * sim->dt / b->mass[i], b->force[i]);
    }
    dem_rot_bodies_sync(rot, b, i0, i1, dt, w, isa);
  });
}
