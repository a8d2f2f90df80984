/* Energies and snapshots at step boundaries, summed in a fixed order and
 * written from the field table. */
#include "run/observe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/wall_loads.h"
#include "core/quat.h"
#include "core/vec3.h"
#include "sim/contacts.h"
#include "sim/fields.h"
#include "sim/mesh_walls.h"
#include "sim/near.h"
#include "sim/periodic.h"

static enum dem_h5_type h5_type(enum dem_field_type t) {
  return t == DEM_FIELD_F64   ? DEM_H5_F64
         : t == DEM_FIELD_I32 ? DEM_H5_I32
                              : DEM_H5_I64;
}

/* A mesh's vertex rows at the snapshot's time, for its column. */
struct dem_observed_mesh {
  const struct dem_sim *sim;
  const struct dem_mesh *mesh;
  char *path; /* meshes/NAME */
};

static void mesh_vertex(const void *ctx, size_t k, void *out) {
  const struct dem_observed_mesh *m = ctx;
  dem_mesh_vertex_at(m->mesh, k, m->sim->t, out);
}

/* A column of body indices written as the bodies' ids, a row at a time
 * as the snapshot is written. */
struct dem_observed_ids {
  const struct dem_sim *sim;
  const int *index;
};

static void body_id_row(const void *ctx, size_t i, void *out) {
  const struct dem_observed_ids *c = ctx;
  *(int *)out = (int)c->sim->b.id[c->index[i]];
}

/* The mesh walls for /meshes and the sidecar, and their columns. */
static dem_status observe_meshes(struct dem_observer *o,
                                 const struct dem_sim *sim) {
  size_t n = sim->mw ? sim->mw->n : 0;
  o->meshes = calloc(n ? n : 1, sizeof *o->meshes);
  o->mesh_rows = calloc(n ? n : 1, sizeof *o->mesh_rows);
  if (!o->meshes || !o->mesh_rows)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  o->n_meshes = n;
  for (size_t k = 0; k < n; k++) {
    const struct dem_mesh *m = &sim->mw->mesh[k];
    o->meshes[k] = (struct dem_h5_mesh){.name = m->name,
                                        .n_vert = m->n_vert,
                                        .n_tri = m->n_tri,
                                        .vertices = (const double(*)[3])m->rest,
                                        .triangles = (const int(*)[3])m->tri,
                                        .moving = m->motion.moving};
    size_t len = strlen(m->name) + sizeof "meshes/";
    o->mesh_rows[k] = (struct dem_observed_mesh){sim, m, malloc(len)};
    if (!o->mesh_rows[k].path)
      return dem_fail(DEM_ERR_NOMEM, "out of memory");
    snprintf(o->mesh_rows[k].path, len, "meshes/%s", m->name);
  }
  return DEM_OK;
}

dem_status dem_observer_init(struct dem_observer *o,
                             const struct dem_sim *sim) {
  size_t n_fields = 0, n_ids = 0;
  memset(o, 0, sizeof *o);
  for (const struct dem_field *f = dem_fields; f->name; f++) {
    n_fields++;
    if (f->flags & DEM_FIELD_BODY_INDEX) /* one id column each */
      n_ids++;
    if (f->flags & DEM_FIELD_XDMF) {
      o->n_xdmf++;
    }
  }
  o->id_rows = calloc(n_ids ? n_ids : 1, sizeof *o->id_rows);
  o->columns =
      calloc(n_fields + (sim->mw ? sim->mw->n : 0), sizeof *o->columns);
  o->xdmf = calloc(o->n_xdmf ? o->n_xdmf : 1, sizeof *o->xdmf);
  o->n_shapes = sim->n_shapes;
  o->shapes = calloc(o->n_shapes ? o->n_shapes : 1, sizeof *o->shapes);
  size_t nw = dem_wall_load_count(sim);
  o->n_walls = nw;
  o->walls_step = -1;
  o->walls = calloc(nw ? nw : 1, sizeof *o->walls);
  o->wall_load = calloc(nw ? nw : 1, sizeof *o->wall_load);
  o->wall_point = calloc(nw ? nw : 1, sizeof *o->wall_point);
  if (!o->id_rows || !o->columns || !o->xdmf || !o->shapes || !o->walls ||
      !o->wall_load || !o->wall_point) {
    dem_observer_free(o);
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  }
  dem_status st = observe_meshes(o, sim);
  if (st) {
    dem_observer_free(o);
    return st;
  }
  size_t k = 0;
  for (const struct dem_field *f = dem_fields; f->name; f++)
    if (f->flags & DEM_FIELD_XDMF) {
      const char *slash = strrchr(f->path, '/');
      o->xdmf[k++] = (struct dem_xdmf_attribute){
          slash ? slash + 1 : f->path, f->path, h5_type(f->type), f->width,
          f->item == DEM_ITEM_BODIES};
    }
  for (size_t i = 0; i < sim->n_shapes; i++) {
    const struct dem_shape *sh = &sim->shapes[i];
    const struct dem_clump_props *p = &sh->props;
    struct dem_h5_shape *h = &o->shapes[i];
    *h = (struct dem_h5_shape){.name = sh->name,
                               .material = sim->materials[sh->material].name,
                               .n_spheres = sh->n_spheres,
                               .mass = p->mass,
                               .volume = p->volume,
                               .bounding_radius = p->bounding_radius,
                               .offset = (const double(*)[3])sh->offset,
                               .radius = sh->radius};
    for (int c = 0; c < 3; c++) {
      h->inertia[c] = p->inertia[c];
      h->centre_of_mass[c] = p->com[c];
    }
    for (int c = 0; c < 4; c++)
      h->principal_axes[c] = p->axes[c];
  }
  const size_t n_box = nw - (sim->mw ? sim->mw->n : 0);
  for (size_t k = 0; k < nw; k++) {
    struct dem_h5_wall *w = &o->walls[k];
    w->name = dem_wall_load_name(sim, k);
    dem_wall_load_point(sim, k, -HUGE_VAL, w->point); /* at rest */
    w->about = k < n_box
                   ? "the centre of the wall's face"
                   : "the mesh's motion centre (motion.center, the origin "
                     "when not given), moved with its velocity after the "
                     "motion's start";
  }
  return DEM_OK;
}

dem_status dem_observer_fit(struct dem_observer *o, const struct dem_sim *sim) {
  (void)o, (void)sim; /* nothing sized by the items now */
  return DEM_OK;
}

void dem_observer_free(struct dem_observer *o) {
  for (size_t k = 0; o->mesh_rows && k < o->n_meshes; k++)
    free(o->mesh_rows[k].path);
  free(o->mesh_rows);
  free(o->meshes);
  free(o->id_rows);
  free(o->pair_rows);
  free(o->wall_rows);
  free(o->columns);
  free(o->xdmf);
  free(o->shapes);
  free(o->walls);
  free(o->wall_load);
  free(o->wall_point);
  memset(o, 0, sizeof *o);
}

dem_status dem_observe_energy(struct dem_observer *o, struct dem_sim *sim,
                              const struct dem_pipeline *p,
                              struct dem_energy_row *row) {
  struct dem_bodies *b = &sim->b;
  (void)o;
  /* The per-sphere sums in the neighbour build's scratch, free between
   * builds (sim/scratch.h). */
  dem_status st = dem_scratch_reserve(
      &sim->nb.scratch, (sim->s.n ? sim->s.n : 1) * sizeof(double));
  if (st)
    return st;
  dem_pipeline_sync(p, sim, b->v_sync, b->w_sync);
  double kt = 0, kr = 0, grav = 0;
  for (size_t k = 0; k < b->n; k++) {
    size_t i = b->index_of[k]; /* in id order: any body order sums alike */
    const double *v = b->v_sync[i], *w = b->w_sync[i];
    kt += 0.5 * b->mass[i] * v3_dot(v, v);
    kr +=
        0.5 * (b->inertia[i][0] * w[0] * w[0] + b->inertia[i][1] * w[1] * w[1] +
               b->inertia[i][2] * w[2] * w[2]);
    grav -= b->mass[i] * v3_dot(sim->gravity, b->x[i]);
    if (sim->walls.periodic) /* the height the wraps took off */
      for (int k = 0; k < 3; k++)
        grav -= b->mass[i] * sim->gravity[k] * b->image[i][k] *
                sim->walls.period[k];
  }
  double in = 0;
  for (size_t k = 0; b->energy_in && k < b->n; k++)
    in += b->energy_in[b->index_of[k]]; /* id order: insertion order */
  double el = dem_contact_elastic_energy(sim, sim->nb.scratch.p);
  double w[DEM_N_DISSIPATION];
  dem_contact_dissipated(sim, w);
  *row = (struct dem_energy_row){
      .step = sim->step,
      .time = sim->t,
      .kinetic_translational = kt,
      .kinetic_rotational = kr,
      .elastic = el,
      .gravity = grav,
      .total = kt + kr + el + grav,
      .dissipated_damping = w[DEM_DISSIPATION_DAMPING],
      .dissipated_friction = w[DEM_DISSIPATION_FRICTION],
      .dissipated_rolling = w[DEM_DISSIPATION_ROLLING],
      .dissipated = w[DEM_DISSIPATION_DAMPING] + w[DEM_DISSIPATION_FRICTION] +
                    w[DEM_DISSIPATION_ROLLING],
      .wall_work = dem_contact_wall_work(sim),
      .inserted = in};
  return DEM_OK;
}

const double *dem_observe_walls(struct dem_observer *o, struct dem_sim *sim) {
  if (o->n_walls && o->walls_step != sim->step) {
    dem_contact_wall_loads(sim, o->wall_point, o->wall_load);
    o->walls_step = sim->step;
  }
  return o->wall_load[0];
}

/* Room for the output rows of the contact lists. */
static dem_status reserve_rows(struct dem_observer *o,
                               const struct dem_sim *sim) {
  size_t need =
      sim->pairs.n > sim->wall_contacts.n ? sim->pairs.n : sim->wall_contacts.n;
  if (need <= o->rows_cap && o->pair_rows)
    return DEM_OK;
  size_t cap = need + need / 4 + 64;
  free(o->pair_rows), free(o->wall_rows);
  o->pair_rows = malloc(cap * sizeof *o->pair_rows);
  o->wall_rows = malloc(cap * sizeof *o->wall_rows);
  o->rows_cap = o->pair_rows && o->wall_rows ? cap : 0;
  if (!o->rows_cap)
    return dem_fail(DEM_ERR_NOMEM, "out of memory for %zu contacts", need);
  return DEM_OK;
}

dem_status dem_observe_snapshot(struct dem_observer *o, struct dem_sim *sim,
                                struct dem_snapshot *s) {
  dem_status st = reserve_rows(o, sim);
  if (st)
    return st;
  dem_near_place_all(sim); /* far bodies' spheres too (sim/near.h) */
  dem_periodic_unwrap(sim);
  dem_contacts_rows(sim, DEM_ITEM_PAIRS, o->pair_rows);
  dem_contacts_rows(sim, DEM_ITEM_WALL_CONTACTS, o->wall_rows);
  const size_t *rows[DEM_N_ITEMS] = {sim->b.index_of, sim->s.index_of,
                                     o->pair_rows, o->wall_rows};
  size_t n = 0;
  struct dem_observed_ids *ids = o->id_rows;
  for (const struct dem_field *f = dem_fields; f->name; f++) {
    int width = dem_field_width(sim, f);
    if (!(f->flags & DEM_FIELD_WRITTEN) || width == 0)
      continue;
    const void *data = dem_field_stored(f) ? dem_field_data(sim, f) : NULL;
    dem_field_row_fn row = dem_field_compute(f);
    const void *ctx = sim;
    if (f->flags & DEM_FIELD_BODY_INDEX) { /* indices now -> body ids */
      *ids = (struct dem_observed_ids){sim, data};
      row = body_id_row;
      ctx = ids++;
    }
    o->columns[n++] =
        (struct dem_h5_column){.path = f->path,
                               .type = h5_type(f->type),
                               .rows = dem_item_count(sim, f->item),
                               .cols = width == 1 ? 0 : (size_t)width,
                               .data = data,
                               .order = rows[f->item],
                               .row = row,
                               .ctx = ctx,
                               .unit = f->unit,
                               .description = f->description};
  }
  for (size_t k = 0; k < o->n_meshes; k++) /* moving meshes' vertices */
    if (o->meshes[k].moving)
      o->columns[n++] = (struct dem_h5_column){
          .path = o->mesh_rows[k].path,
          .type = DEM_H5_F64,
          .rows = o->meshes[k].n_vert,
          .cols = 3,
          .row = mesh_vertex,
          .ctx = &o->mesh_rows[k],
          .unit = "m",
          .description = "the mesh's vertices at the snapshot's time (its "
                         "triangles: /meshes/NAME/triangles)"};
  *s = (struct dem_snapshot){.step = sim->step,
                             .time = sim->t,
                             .n_spheres = sim->s.n,
                             .n_bodies = sim->b.n,
                             .columns = o->columns,
                             .n_columns = n};
  return DEM_OK;
}
