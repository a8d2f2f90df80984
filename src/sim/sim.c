/* Allocation and release of the simulation state, and derived sphere positions.
 */
#include "sim/sim.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "core/huge.h"
#include "core/quat.h"
#include "sim/body_order.h"
#include "sim/fields.h"
#include "sim/insert.h"
#include "sim/mesh_walls.h"
#include "sim/near.h"
#include "sim/neighbors.h"
#include "sim/place.h"

/* The per-sphere owner ranges of a contact list (the rest of its
 * arrays grows with the contacts, sim/contacts.c). */
static dem_status alloc_ranges(struct dem_contact_list *c, size_t n_spheres) {
  c->start = dem_huge_calloc(n_spheres + 1, sizeof *c->start);
  c->old_start = dem_huge_calloc(n_spheres + 1, sizeof *c->old_start);
  if (!c->start || !c->old_start)
    return dem_fail(DEM_ERR_NOMEM, "out of memory for contacts of %zu spheres",
                    n_spheres);
  return DEM_OK;
}

dem_status dem_sim_alloc_bodies(struct dem_sim *sim, size_t n_bodies,
                                size_t n_spheres) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  dem_status st;
  b->n = n_bodies;
  s->n = n_spheres;
  if ((st = dem_fields_alloc(sim, DEM_ITEM_BODIES, n_bodies, 0)) ||
      (st = dem_fields_alloc(sim, DEM_ITEM_SPHERES, n_spheres, 0)) ||
      (st = alloc_ranges(&sim->pairs, n_spheres)) ||
      (st = alloc_ranges(&sim->wall_contacts, n_spheres)))
    return st;
  for (size_t i = 0; i < n_bodies; i++)
    b->id[i] = b->index_of[i] = i;
  for (size_t i = 0; i < n_spheres; i++)
    s->id[i] = s->index_of[i] = i;
  sim->nb.sorted_at = -1;
  return DEM_OK;
}

static void release_list(struct dem_sim *sim, struct dem_contact_list *c,
                         enum dem_item item) {
  dem_fields_release(sim, item);
  free(c->start), free(c->old_start), free(c->old_key), free(c->old_state);
  *c = (struct dem_contact_list){0};
}

void dem_sim_release(struct dem_sim *sim) {
  struct dem_neighbors *nb = &sim->nb;
  dem_fields_release(sim, DEM_ITEM_BODIES);
  dem_fields_release(sim, DEM_ITEM_SPHERES);
  release_list(sim, &sim->pairs, DEM_ITEM_PAIRS);
  release_list(sim, &sim->wall_contacts, DEM_ITEM_WALL_CONTACTS);
  dem_neighbors_release(nb);
  dem_body_order_release(nb);
  dem_inserter_free(sim->insert);
  sim->insert = NULL;
  if (sim->mw) {
    dem_mesh_walls_release(sim->mw);
    free(sim->mw);
    sim->mw = NULL;
  }
  for (size_t i = 0; i < sim->n_materials; i++)
    free(sim->materials[i].name);
  free(sim->materials);
  free(sim->law.params);
  free(sim->law.props);
  for (size_t i = 0; i < sim->n_shapes; i++)
    dem_shape_release(&sim->shapes[i]);
  free(sim->shapes);
  sim->b = (struct dem_bodies){0};
  sim->s = (struct dem_spheres){0};
  *nb = (struct dem_neighbors){0};
  sim->law = (struct dem_contact_law){0};
  sim->materials = NULL;
  sim->shapes = NULL;
  sim->n_materials = sim->n_shapes = 0;
}

double dem_effective_modulus(const struct dem_material *a,
                             const struct dem_material *b) {
  double inv = (1.0 - a->poisson_ratio * a->poisson_ratio) / a->young_modulus +
               (1.0 - b->poisson_ratio * b->poisson_ratio) / b->young_modulus;
  return 1.0 / inv;
}

void dem_sim_update_spheres(struct dem_sim *sim) {
  struct dem_spheres *s = &sim->s;
  const struct dem_bodies *b = &sim->b;
  const size_t n = s->n;
  double worst = 0.0;
  int escaped = 0;
  /* No walls, so no escape, along periodic axes. */
  struct dem_place_walls w;
  dem_place_walls_of(&sim->walls, &w);
  if (dem_near_on(sim)) {
    dem_near_update_spheres(sim, &w);
    return;
  }
  const struct dem_place_shapes shapes = {sim->shapes, sim->n_shapes};
  /* Each thread places the spheres of its static slice of the bodies in
   * vector lanes (sim/place.c). */
  const size_t nb = b->n;
  DEM_PARALLEL_IF(n > DEM_PARALLEL_MIN,
                  omp parallel reduction(max
                                         : worst) reduction(|
                                                            : escaped),
                  {
                    size_t i0, i1;
                    dem_thread_slice(nb, &i0, &i1);
                    dem_place_bodies(s, b, &shapes, i0, i1, &w, &worst,
                                     &escaped);
                  });
  dem_sim_spheres_placed(sim, worst, escaped);
}

void dem_sim_spheres_placed(struct dem_sim *sim, double moved2, int escaped) {
  sim->nb.moved2 = moved2;
  sim->nb.far_bound2 = 0.0;
  sim->nb.moved2_known = 1;
  sim->s.escaped = escaped;
  sim->s.escape_known = 1;
}
