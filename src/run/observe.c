/* Energies and snapshot views at step boundaries, summed in a fixed order. */
#include "run/observe.h"

#include <math.h>
#include <stdlib.h>

#include "core/vec3.h"
#include "operators/pipeline.h"
#include "sim/forces.h"

dem_status dem_observer_init(struct dem_observer *o,
                             const struct dem_sim *sim) {
  size_t nb = sim->b.n ? sim->b.n : 1, ns = sim->s.n > nb ? sim->s.n : nb;
  o->v = calloc(nb, sizeof *o->v);
  o->w = calloc(nb, sizeof *o->w);
  o->scratch = calloc(ns, sizeof *o->scratch);
  o->sphere_body = calloc(ns, sizeof *o->sphere_body);
  o->sphere_member = calloc(ns, sizeof *o->sphere_member);
  if (!o->v || !o->w || !o->scratch || !o->sphere_body || !o->sphere_member) {
    dem_observer_free(o);
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  }
  return DEM_OK;
}

void dem_observer_free(struct dem_observer *o) {
  free(o->v);
  free(o->w);
  free(o->scratch);
  free(o->sphere_body);
  free(o->sphere_member);
  o->v = o->w = NULL;
  o->scratch = NULL;
  o->sphere_body = o->sphere_member = NULL;
}

void dem_observe_energy(struct dem_observer *o, const struct dem_sim *sim,
                        struct dem_energy_row *row) {
  const struct dem_bodies *b = &sim->b;
  dem_pipeline_sync(sim->pipeline, sim, o->v, o->w);
  double kt = 0, kr = 0, grav = 0;
  for (size_t k = 0; k < b->n; k++) {
    size_t i = b->index_of[k]; /* in id order: any body order sums alike */
    kt += 0.5 * b->mass[i] * v3_dot(o->v[i], o->v[i]);
    kr += 0.5 * (b->inertia[i][0] * o->w[i][0] * o->w[i][0] +
                 b->inertia[i][1] * o->w[i][1] * o->w[i][1] +
                 b->inertia[i][2] * o->w[i][2] * o->w[i][2]);
    grav -= b->mass[i] * v3_dot(sim->gravity, b->x[i]);
  }
  double el = dem_energy_elastic(sim, o->scratch);
  *row = (struct dem_energy_row){.step = sim->step,
                                 .time = sim->t,
                                 .kinetic_translational = kt,
                                 .kinetic_rotational = kr,
                                 .elastic = el,
                                 .gravity = grav,
                                 .total = kt + kr + el + grav};
}

void dem_observe_snapshot(struct dem_observer *o, const struct dem_sim *sim,
                          struct dem_snapshot *s) {
  const struct dem_bodies *b = &sim->b;
  const struct dem_spheres *sp = &sim->s;
  for (size_t i = 0; i < sp->n; i++) {
    o->sphere_body[i] = (int)b->id[sp->body[i]];
    o->sphere_member[i] = (int)sp->member[i];
  }
  *s = (struct dem_snapshot){
      .step = sim->step,
      .time = sim->t,
      .n_bodies = b->n,
      .position = (const double(*)[3])b->x,
      .velocity = (const double(*)[3])o->v,
      .orientation = (const double(*)[4])b->q,
      .angular_velocity = (const double(*)[3])o->w,
      .mass = b->mass,
      .inertia = (const double(*)[3])b->inertia,
      .shape = b->shape,
      .n_spheres = sim->s.n,
      .sphere_position = (const double(*)[3])sim->s.x,
      .sphere_radius = sim->s.radius,
      .sphere_body = o->sphere_body,
      .body_rows = b->index_of,
      .sphere_rows = sp->index_of,
      .state_velocity = (const double(*)[3])b->v,
      .state_angular_velocity = (const double(*)[3])b->w,
      .state_rot_aux = b->rot_aux,
      .aux_width = DEM_ROT_AUX,
      .state_sphere_member = o->sphere_member,
      .state_sphere_x_build = (const double(*)[3])sp->x_build,
      .state_body_x_build = (const double(*)[3])b->x_build,
  };
}
