/* The rules a scheme's operator list must follow, checked before a run so
 * that a scheme that cannot be consistent fails with the operator named. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "operators/pipeline.h"

/* dt_scale sums compare with a tolerance: 0.1 + 0.2 + 0.7 is one step. */
static int same(double a, double b) { return fabs(a - b) <= 1e-9; }

/* Moves bodies: drifts and the first stage of rotation pushes. */
static int op_moves(const struct dem_op *op) {
  return (op->type->flags & DEM_OP_MOVES) && op->stage != DEM_STAGE_AFTER;
}

/* A drift (push_position): moves bodies and is no rotation. */
static int op_drifts(const struct dem_op *op) {
  return (op->type->flags & DEM_OP_MOVES) && !op->rot;
}

/* "0.5 + 0.25 = 0.75" (or "0.5") of the dt_scale of every operator with `flag`
 * (KICK) or every drift (flag 0), for messages. */
static void list_scales(const struct dem_pipeline *p, unsigned flag, char *buf,
                        size_t size) {
  size_t len = 0;
  double total = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < p->n_ops && len < size; i++) {
    const struct dem_op *op = &p->ops[i];
    if (flag ? !(op->type->flags & flag) : !op_drifts(op))
      continue;
    int n =
        snprintf(buf + len, size - len, "%s%g", len ? " + " : "", op->dt_scale);
    total += op->dt_scale;
    if (n < 0)
      break;
    len += (size_t)n;
  }
  if (strchr(buf, '+') && len < size)
    snprintf(buf + len, size - len, " = %g", total);
}

/* Order: forces last, sphere positions current where they are read,
 * forces reset before anything adds to them. */
static dem_status check_order(const struct dem_pipeline *p,
                              const struct dem_node *list, long *last_force) {
  long last_move = -1, first_adder = -1, first_reset = -1;
  *last_force = -1;
  for (size_t i = 0; i < p->n_ops; i++) {
    const struct dem_op *op = &p->ops[i];
    if (op_moves(op))
      last_move = (long)i;
    if (op->type->flags & DEM_OP_FORCES) {
      *last_force = (long)i;
      if (op->type->flags & DEM_OP_RESET) {
        if (first_reset < 0)
          first_reset = (long)i;
      } else if (first_adder < 0)
        first_adder = (long)i;
    }
  }
  for (size_t i = 0; i < p->n_ops; i++) {
    const struct dem_op *op = &p->ops[i];
    if (!(op->type->flags & DEM_OP_CONTACTS))
      continue;
    int updated = 0;
    for (size_t j = (size_t)(last_move + 1); j < i; j++)
      updated |= (p->ops[j].type->flags & DEM_OP_SPHERES) != 0;
    if ((long)i < last_move || !updated)
      return dem_cfg_error(dem_node_at(list, i),
                           "operator '%s' reads sphere positions: it must "
                           "come after the last push that moves bodies and "
                           "after an 'update_spheres' that follows it",
                           op->type->name);
  }
  if (*last_force >= 0 && last_move > *last_force)
    return dem_cfg_error(dem_node_at(list, (size_t)last_move),
                         "operator '%s' moves bodies after the last force "
                         "operator: forces must be computed last so they are "
                         "current at the end of each step",
                         p->ops[last_move].type->name);
  if (first_adder >= 0 && (first_reset < 0 || first_reset > first_adder))
    return dem_cfg_error(dem_node_at(list, (size_t)first_adder),
                         "operator '%s' adds forces that are never reset: "
                         "put 'reset_forces' before it",
                         p->ops[first_adder].type->name);
  return DEM_OK;
}

/* One rotation integrator, with each of its stages once; the integrator
 * advances whole steps (*rot_at: its first push_rotation, or -1). */
static dem_status check_rotation(const struct dem_pipeline *p,
                                 const struct dem_node *list, long *rot_at) {
  const struct dem_rotation_integrator *rot = NULL;
  int before = 0, after = 0;
  *rot_at = -1;
  for (size_t i = 0; i < p->n_ops; i++) {
    const struct dem_op *op = &p->ops[i];
    if (!op->rot)
      continue;
    if (rot && op->rot != rot)
      return dem_cfg_error(dem_node_at(list, i),
                           "a scheme uses one rotation integrator; found "
                           "'%s' and '%s'",
                           rot->name, op->rot->name);
    if (!rot)
      *rot_at = (long)i;
    rot = op->rot;
    before += op->stage == DEM_STAGE_BEFORE;
    after += op->stage == DEM_STAGE_AFTER;
  }
  if (rot && (before != 1 || (rot->after_force ? after != 1 : after != 0)))
    return dem_cfg_error(list,
                         "integrator '%s' needs %s in the scheme (found %d "
                         "before_force and %d after_force stages)",
                         rot->name,
                         rot->after_force
                             ? "one push_rotation with stage: before_force "
                               "and one with stage: after_force after the "
                               "forces"
                             : "exactly one push_rotation",
                         before, after);
  for (size_t i = 0; i < p->n_ops; i++)
    if (p->ops[i].rot && !same(p->ops[i].dt_scale, 1.0))
      return dem_cfg_error(dem_node_at(list, i),
                           "push_rotation has dt_scale %g: a rotation "
                           "integrator advances one whole step each time "
                           "step (a two-stage one splits it itself), so "
                           "dt_scale must be 1",
                           p->ops[i].dt_scale);
  return DEM_OK;
}

/* Kicks and drifts: each adds up to one step; kicks come before the
 * first force operator or after the last (in between they would see
 * forces half computed); the step's first kicks come before the drift
 * (which must move bodies with the mid-step velocity); the kicks after
 * the forces put velocities at whole steps (0.5, velocity Verlet) or half
 * steps (none, leapfrog), and the rotation integrator keeps its angular
 * velocities at the same place. Sets p->half_step. */
static dem_status check_translation(struct dem_pipeline *p,
                                    const struct dem_node *list,
                                    long last_force, long rot_at) {
  double before = 0, after = 0, drift = 0;
  long first_kick = -1, first_after = -1, first_drift = -1, first_force = -1;
  char scales[160];
  if (last_force < 0)
    return dem_cfg_error(list, "the scheme computes no forces: after the "
                               "pushes, update_spheres, reset_forces, "
                               "neighbor_update, contact_forces and "
                               "gather_forces (as `dem schemes "
                               "spiral_leapfrog` shows)");
  for (size_t i = 0; i < p->n_ops; i++)
    if ((p->ops[i].type->flags & DEM_OP_FORCES) && first_force < 0)
      first_force = (long)i;
  for (size_t i = 0; i < p->n_ops; i++) {
    const struct dem_op *op = &p->ops[i];
    if (op_drifts(op)) {
      drift += op->dt_scale;
      if (first_drift < 0)
        first_drift = (long)i;
    }
    if (!(op->type->flags & DEM_OP_KICK))
      continue;
    if (first_kick < 0)
      first_kick = (long)i;
    if ((long)i > last_force) {
      after += op->dt_scale;
      if (first_after < 0)
        first_after = (long)i;
      continue;
    }
    if (first_force >= 0 && (long)i > first_force)
      return dem_cfg_error(dem_node_at(list, i),
                           "operator 'push_velocity' comes between "
                           "'%s' and the last force operator, where the "
                           "forces are not complete: kick before the first "
                           "force operator or after the last",
                           p->ops[first_force].type->name);
    if (first_drift >= 0)
      return dem_cfg_error(dem_node_at(list, i),
                           "operator 'push_velocity' comes after a drift "
                           "(push_position) and before the forces: the "
                           "drift would move bodies with the velocity of "
                           "the step's start, not of its middle (first "
                           "order); kick before the drift");
    before += op->dt_scale;
  }
  if (first_kick < 0)
    return dem_cfg_error(list,
                         "the scheme has no push_velocity: velocities would "
                         "never change and bodies would pass through each "
                         "other and the walls; kick a whole step, "
                         "push_velocity: {dt_scale: 1.0} before the drift "
                         "(leapfrog), or half before the drift and half "
                         "after the forces (velocity Verlet)");
  if (!same(before + after, 1.0)) {
    list_scales(p, DEM_OP_KICK, scales, sizeof scales);
    return dem_cfg_error(dem_node_at(list, (size_t)first_kick),
                         "the kicks (push_velocity) of a step add up to "
                         "dt_scale %s: they must add up to 1, one "
                         "whole step (1.0 before the drift for leapfrog, or "
                         "0.5 before the drift and 0.5 after the forces for "
                         "velocity Verlet)",
                         scales);
  }
  if (first_drift < 0)
    return dem_cfg_error(list, "the scheme has no push_position: bodies "
                               "would never move; drift a whole step, "
                               "push_position: {dt_scale: 1.0}, after the "
                               "first kick");
  if (!same(drift, 1.0)) {
    list_scales(p, 0, scales, sizeof scales);
    return dem_cfg_error(dem_node_at(list, (size_t)first_drift),
                         "the drifts (push_position) of a step add up to "
                         "dt_scale %s: they must add up to 1, one whole "
                         "step",
                         scales);
  }
  if (!same(after, 0.0) && !same(after, 0.5))
    return dem_cfg_error(dem_node_at(list, (size_t)first_after),
                         "the kicks after the forces add up to dt_scale %g: "
                         "velocities would sit at neither whole steps (0.5 "
                         "after the forces, velocity Verlet) nor half steps "
                         "(none after, leapfrog)",
                         after);
  p->half_step = same(after, 0.0);
  if (rot_at < 0)
    return DEM_OK;
  const struct dem_rotation_integrator *rot = p->ops[rot_at].rot;
  if (rot->leapfrog && !p->half_step)
    return dem_cfg_error(
        dem_node_at(list, (size_t)rot_at),
        "integrator '%s' keeps angular velocities half a step behind "
        "(leapfrog), but the kicks keep velocities at whole steps (half of "
        "the kick after the forces, velocity Verlet): kick the whole step "
        "before the drift, or use a whole-step integrator (spiral, "
        "velocity_verlet_spiral, velocity_verlet, ...)",
        rot->name);
  if (!rot->leapfrog && p->half_step)
    return dem_cfg_error(
        dem_node_at(list, (size_t)rot_at),
        "integrator '%s' keeps angular velocities at whole steps, but the "
        "kicks keep velocities half a step behind (the whole kick before "
        "the drift, leapfrog): kick half before the drift and half after "
        "the forces (velocity Verlet), or use a leapfrog integrator "
        "(spiral_leapfrog, omelyan, fincham, pcdm)",
        rot->name);
  return DEM_OK;
}

dem_status dem_pipeline_check(struct dem_pipeline *p,
                              const struct dem_node *list) {
  long last_force, rot_at;
  dem_status st;
  if ((st = check_order(p, list, &last_force)) ||
      (st = check_rotation(p, list, &rot_at)))
    return st;
  return check_translation(p, list, last_force, rot_at);
}
