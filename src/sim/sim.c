/* Allocation and release of the simulation state, and derived sphere positions.
 */
#include "sim/sim.h"

#include <stdlib.h>

#include "core/quat.h"
#include "operators/pipeline.h"
#include "sim/body_order.h"
#include "sim/neighbors.h"

#define ALLOC(ptr, count)                                                      \
  do {                                                                         \
    (ptr) = calloc((count) > 0 ? (count) : 1, sizeof *(ptr));                  \
    if (!(ptr))                                                                \
      return dem_fail(DEM_ERR_NOMEM, "out of memory allocating %zu bodies",    \
                      n_bodies);                                               \
  } while (0)

dem_status dem_sim_alloc_bodies(struct dem_sim *sim, size_t n_bodies,
                                size_t n_spheres) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  b->n = n_bodies;
  ALLOC(b->x, n_bodies);
  ALLOC(b->v, n_bodies);
  ALLOC(b->q, n_bodies);
  ALLOC(b->w, n_bodies);
  ALLOC(b->force, n_bodies);
  ALLOC(b->torque, n_bodies);
  ALLOC(b->mass, n_bodies);
  ALLOC(b->inertia, n_bodies);
  ALLOC(b->rot_aux, n_bodies * DEM_ROT_AUX);
  ALLOC(b->shape, n_bodies);
  ALLOC(b->first_member, n_bodies + 1);
  ALLOC(b->member_slot, n_spheres);
  ALLOC(b->x_build, n_bodies);
  ALLOC(b->id, n_bodies);
  ALLOC(b->index_of, n_bodies);
  s->n = n_spheres;
  ALLOC(s->x, n_spheres);
  ALLOC(s->x_build, n_spheres);
  ALLOC(s->offset, n_spheres);
  ALLOC(s->force, n_spheres);
  ALLOC(s->radius, n_spheres);
  ALLOC(s->body, n_spheres);
  ALLOC(s->material, n_spheres);
  ALLOC(s->member, n_spheres);
  ALLOC(s->id, n_spheres);
  ALLOC(s->index_of, n_spheres);
  for (size_t i = 0; i < n_bodies; i++)
    b->id[i] = b->index_of[i] = i;
  for (size_t i = 0; i < n_spheres; i++)
    s->id[i] = s->index_of[i] = i;
  sim->nb.sorted_at = -1;
  return DEM_OK;
}

void dem_sim_release(struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  struct dem_neighbors *nb = &sim->nb;
  dem_pipeline_free(sim->pipeline);
  sim->pipeline = NULL;
  free(b->x), free(b->v), free(b->q), free(b->w), free(b->force);
  free(b->torque), free(b->mass), free(b->inertia), free(b->rot_aux);
  free(b->shape), free(b->first_member), free(b->member_slot);
  free(b->x_build), free(b->id), free(b->index_of);
  free(s->id), free(s->index_of);
  free(s->x), free(s->x_build), free(s->offset), free(s->force);
  free(s->radius), free(s->body), free(s->material), free(s->member);
  dem_neighbors_release(nb);
  dem_body_order_release(nb);
  for (size_t i = 0; i < sim->n_materials; i++)
    free(sim->materials[i].name);
  free(sim->materials);
  free(sim->estar);
  for (size_t i = 0; i < sim->n_shapes; i++)
    dem_shape_release(&sim->shapes[i]);
  free(sim->shapes);
  *b = (struct dem_bodies){0};
  *s = (struct dem_spheres){0};
  *nb = (struct dem_neighbors){0};
  sim->materials = NULL;
  sim->shapes = NULL;
  sim->estar = NULL;
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
  const struct dem_walls *wl = &sim->walls;
  long n = (long)s->n;
  double worst = 0.0;
  int escaped = 0;
#pragma omp parallel for schedule(static) reduction(max                        \
                                                    : worst)                   \
    reduction(|                                                                \
              : escaped) if (n > DEM_PARALLEL_MIN)
  for (long i = 0; i < n; i++) {
    int bi = s->body[i];
    double d[3], m[3];
    q_rotate(d, b->q[bi], s->offset[i]);
    v3_add(s->x[i], b->x[bi], d);
    v3_sub(m, s->x[i], s->x_build[i]);
    double d2 = v3_dot(m, m);
    worst = d2 > worst ? d2 : worst;
    if (wl->enabled)
      for (int k = 0; k < 3; k++)
        escaped |= s->x[i][k] < wl->lo[k] - s->radius[i] ||
                   s->x[i][k] > wl->hi[k] + s->radius[i];
  }
  /* The displacement since the last build and the wall check, while the
   * positions are in cache (see dem_neighbors_stale and the runner). */
  sim->nb.moved2 = worst;
  sim->nb.moved2_known = 1;
  s->escaped = escaped;
  s->escape_known = 1;
}
