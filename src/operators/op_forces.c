/* Operators of the force stage: reset, sphere update, neighbours, contact
 * forces, gather. */
#include <string.h>

#include "contact/contact.h"
#include "contact/model.h"
#include "operators/op_common.h"
#include "sim/body_order.h"
#include "sim/forces.h"
#include "sim/near.h"
#include "sim/neighbors.h"
#include "sim/periodic.h"
#include "sim/place.h"

/* Sphere i's force and torque zeroed. */
static inline void clear_sphere(struct dem_spheres *s, size_t i) {
  s->force[i][0] = s->force[i][1] = s->force[i][2] = 0.0;
  if (s->torque) /* laws that make torques */
    s->torque[i][0] = s->torque[i][1] = s->torque[i][2] = 0.0;
}

/* Sphere forces are zero already when gather_forces moved them onto the
 * bodies (forces_dirty clear): a pass over the spheres saved. Otherwise
 * (a force operator since the last gather) the tile's members are
 * cleared; with the near path only the active ones can hold a force, and
 * clearing the others too changes nothing. Where gather_forces follows
 * with only contact operators between (op->weigh), each body gets the
 * force gather_forces would give it without sphere forces, its weight,
 * while the tile is in cache: the gather then visits only the bodies with
 * a sphere force (dem_bodies.weighed). Not with the near path, whose
 * gather visits every body anyway: the weights would only cost. */
static int weighs(const struct dem_op *op, const struct dem_sim *sim) {
  return op->weigh && !dem_near_on(sim);
}

static void tile_reset(struct dem_op *op, struct dem_sim *sim, size_t b0,
                       size_t b1, struct dem_tile_sums *sums) {
  struct dem_spheres *s = &sim->s;
  struct dem_bodies *b = &sim->b;
  if (s->forces_dirty)
    for (size_t i = b->first_member[b0]; i < b->first_member[b1]; i++)
      clear_sphere(s, i);
  memset(b->torque[b0], 0, (b1 - b0) * sizeof *b->torque);
  if (!weighs(op, sim)) {
    memset(b->force[b0], 0, (b1 - b0) * sizeof *b->force);
    return;
  }
  const double *g = sim->gravity;
  for (size_t i = b0; i < b1; i++)
    for (int c = 0; c < 3; c++)
      b->force[i][c] = 0.0 + b->mass[i] * g[c]; /* +0 + (+0 + m g) */
}

static void reset_done(struct dem_op *op, struct dem_sim *sim,
                       const struct dem_tile_sums *sums) {
  sim->s.forces_dirty = 0;
  sim->b.weighed = weighs(op, sim);
}

const struct dem_operator_type dem_op_reset_forces = {
    .name = "reset_forces",
    .doc = "Zeroes the force and torque of every body and sphere, so the "
           "force operators after it add up this step's forces. Where "
           "gather_forces follows with only contact operators between, a "
           "body's force may start at its weight instead, which gather_forces "
           "then does not add again (the same sums, bit for bit).",
    .flags = DEM_OP_FORCES | DEM_OP_RESET,
    .tile = tile_reset,
    .tiles_done = reset_done,
};

static dem_status run_update_spheres(struct dem_op *op, struct dem_sim *sim) {
  dem_sim_update_spheres(sim);
  return DEM_OK;
}

/* The near path places the active bodies' spheres from its own lists. */
static int update_spheres_tileable(const struct dem_op *op,
                                   const struct dem_sim *sim) {
  return !dem_near_on(sim);
}

static void tile_update_spheres(struct dem_op *op, struct dem_sim *sim,
                                size_t b0, size_t b1,
                                struct dem_tile_sums *sums) {
  struct dem_place_walls w;
  dem_place_walls_of(&sim->walls, &w);
  const struct dem_place_shapes shapes = {sim->shapes, sim->n_shapes};
  dem_place_bodies(&sim->s, &sim->b, &shapes, b0, b1, &w, &sums->moved2,
                   &sums->escaped);
}

static void update_spheres_done(struct dem_op *op, struct dem_sim *sim,
                                const struct dem_tile_sums *sums) {
  dem_sim_spheres_placed(sim, sums->moved2, sums->escaped);
}

const struct dem_operator_type dem_op_update_spheres = {
    .name = "update_spheres",
    .doc = "Places every sphere from its body's position and orientation: "
           "its centre is the body's centre of mass plus the sphere's place "
           "in the shape (principal frame) turned by the body's orientation. "
           "Needed after the bodies move and before anything reads the "
           "spheres (neighbor_update, contact_forces).",
    .flags = DEM_OP_SPHERES,
    .run = run_update_spheres,
    .tile = tile_update_spheres,
    .tileable = update_spheres_tileable,
    .tiles_done = update_spheres_done,
};

static dem_status run_neighbors(struct dem_op *op, struct dem_sim *sim) {
  dem_status st;
  if (!dem_neighbors_stale(sim))
    return DEM_OK;
  dem_near_place_all(sim); /* the build reads every sphere */
  dem_periodic_wrap(sim);  /* bodies back into the box: only here */
  if ((st = dem_body_order_if_due(sim)))
    return st;
  return dem_neighbors_build(sim);
}

const struct dem_operator_type dem_op_neighbor_update = {
    .name = "neighbor_update",
    .doc = "Rebuilds the cell-sorted Verlet lists when any sphere has moved "
           "more than half the skin (contact.skin) since the last build; "
           "every few builds, first puts the bodies in spatial order "
           "(contact.sort_bodies).",
    .flags = DEM_OP_CONTACTS,
    .run = run_neighbors,
};

/* contact_forces keeps the pipeline, to know whether this is the first
 * evaluation (the contacts' history does not advance then). */
static dem_status init_contacts(struct dem_op *op,
                                const struct dem_node *params,
                                struct dem_sim *sim, struct dem_pipeline *p) {
  op->state = p;
  return DEM_OK;
}

static dem_status run_contacts(struct dem_op *op, struct dem_sim *sim) {
  const struct dem_pipeline *p = op->state;
  dem_contact_forces(sim, p->first_evaluation ? 0.0 : sim->dt);
  return DEM_OK;
}

static void release_contacts(struct dem_op *op) { op->state = NULL; }

const struct dem_operator_type dem_op_contact_forces = {
    .name = "contact_forces",
    .doc = "Evaluates every contact with the contact law (contact.model: "
           "hertz, hertz_mindlin; `dem operators` lists them at the end, "
           "docs/contacts.md explains them), each sphere-sphere pair once, "
           "and adds the forces and torques to the spheres in a fixed order "
           "(the same result for any thread count).",
    .flags = DEM_OP_FORCES | DEM_OP_CONTACTS,
    .init = init_contacts,
    .run = run_contacts,
    .release = release_contacts,
};

const struct dem_operator_type dem_op_hertz_contacts = {
    .name = "hertz_contacts",
    .doc = "The former name of contact_forces, kept so that existing "
           "schemes run unchanged: evaluates the contact law in use "
           "(contact.model), not necessarily Hertz.",
    .flags = DEM_OP_FORCES | DEM_OP_CONTACTS,
    .init = init_contacts,
    .run = run_contacts,
    .release = release_contacts,
};

static dem_status run_gather(struct dem_op *op, struct dem_sim *sim) {
  dem_forces_gather(sim);
  return DEM_OK;
}

const struct dem_operator_type dem_op_gather_forces = {
    .name = "gather_forces",
    .doc = "Sums the forces and torques of each body's spheres onto the body, "
           "with the torques of the forces about its centre of mass, and "
           "adds gravity (simulation.gravity), in a fixed order: the same "
           "result for any thread count.",
    .flags = DEM_OP_FORCES | DEM_OP_GATHER,
    .run = run_gather,
};
