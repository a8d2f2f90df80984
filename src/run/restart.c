/* Restart: the state of a run's last snapshot, field by field from the
 * field table, the neighbour lists rebuilt as they were, and each
 * contact's history. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "sim/contacts.h"
#include "sim/fields.h"
#include "sim/neighbors.h"

static enum dem_h5_type h5_type(enum dem_field_type t) {
  return t == DEM_FIELD_F64   ? DEM_H5_F64
         : t == DEM_FIELD_I32 ? DEM_H5_I32
                              : DEM_H5_I64;
}

static const char *item_name(enum dem_item item) {
  return item == DEM_ITEM_BODIES ? "body" : "sphere";
}

/* The file's run must be this config's: scheme, time step, counts, and a
 * snapshot that is not the end. */
static dem_status compatible(const struct dem_run *r,
                             const struct dem_h5_snapshot *snap,
                             const struct dem_h5_snapshot_info *info) {
  const struct dem_sim *sim = &r->sim;
  const char *path = r->output;
  char *scheme = NULL;
  double dt = 0;
  dem_status st = dem_h5_read_run_info(path, NULL, &scheme, NULL, &dt);
  if (st)
    return st;
  if (!scheme || strcmp(scheme, r->pipeline->scheme_name) != 0)
    st = dem_fail(DEM_ERR_USAGE,
                  "--restart '%s': the file was run with scheme '%s', the "
                  "config uses '%s'",
                  path, scheme ? scheme : "?", r->pipeline->scheme_name);
  free(scheme);
  if (st)
    return st;
  if (dt != sim->dt)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': the file was run with time step %.17g "
                    "s, the config has %.17g s (a restart keeps the time "
                    "step)",
                    path, dt, sim->dt);
  size_t nb = DEM_H5_ANY, ns = DEM_H5_ANY, zero = 0;
  void *data = NULL;
  if ((st = dem_h5_snapshot_read(snap, "bodies/mass", DEM_H5_F64, &nb, &zero,
                                 &data)))
    return st;
  free(data);
  if ((st = dem_h5_snapshot_read(snap, "spheres/radius", DEM_H5_F64, &ns, &zero,
                                 &data)))
    return st;
  free(data);
  if (nb != sim->b.n || ns != sim->s.n)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': the file holds %zu bodies of %zu "
                    "spheres, the config makes %zu of %zu",
                    path, nb, ns, sim->b.n, sim->s.n);
  if (info->step < 0 || (double)info->step * sim->dt != info->time)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': snapshot %06ld is at step %ld, t = "
                    "%.17g s, which is not step x time step",
                    path, info->index, info->step, info->time);
  if (info->step >= sim->n_steps)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': its last snapshot is at t = %.9g s "
                    "(step %ld), the config ends at t = %g s (step %ld); "
                    "nothing to do (raise simulation.end_time, e.g. --set "
                    "simulation.end_time=%g)",
                    path, info->time, info->step, sim->end_time, sim->n_steps,
                    2 * sim->end_time > info->time ? 2 * sim->end_time
                                                   : 2 * info->time);
  return DEM_OK;
}

/* Field f of bodies or spheres from the snapshot: loaded (restart state)
 * or compared with what the config set up (structure). Rows are in id
 * order, and so are the arrays of a run just set up. */
static dem_status restore_field(struct dem_run *r,
                                const struct dem_h5_snapshot *snap,
                                const struct dem_h5_snapshot_info *info,
                                const struct dem_field *f) {
  struct dem_sim *sim = &r->sim;
  const int width = dem_field_width(sim, f);
  size_t rows = dem_item_count(sim, f->item);
  size_t cols = width == 1 ? 0 : (size_t)width;
  size_t row_bytes = (size_t)width * dem_field_type_size(f->type);
  void *data = NULL;
  if (width == 0) /* a field this run's contact model does not use */
    return DEM_OK;
  if (!dem_h5_snapshot_has(snap, f->path))
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': snapshot %06ld lacks %s (written by an "
                    "older dem, or not by a run?)",
                    r->output, info->index, f->path);
  dem_status st = dem_h5_snapshot_read(snap, f->path, h5_type(f->type), &rows,
                                       &cols, &data);
  if (st)
    return dem_refail(DEM_ERR_USAGE, "--restart: %s",
                      dem_error_current()->message);
  void *mine = *dem_field_slot(sim, f);
  if (f->flags & DEM_FIELD_BODY_INDEX) /* ids in the file */
    for (size_t i = 0; i < rows; i++) {
      int id = ((int *)data)[i];
      ((int *)data)[i] =
          id >= 0 && (size_t)id < sim->b.n ? (int)sim->b.index_of[id] : -1;
    }
  for (size_t i = 0; i < rows && !st; i++) {
    const char *row = (const char *)data + i * row_bytes;
    if (f->flags & DEM_FIELD_CHECK) {
      if (memcmp(row, (char *)mine + i * row_bytes, row_bytes) != 0)
        st = dem_fail(DEM_ERR_USAGE,
                      "--restart '%s': %s %zu has another %s in the file "
                      "than in the config (were the shapes, materials or "
                      "particles changed?)",
                      r->output, item_name(f->item), i, f->path);
    } else if (f->type == DEM_FIELD_F64 && f->item == DEM_ITEM_BODIES) {
      for (int k = 0; k < width; k++)
        if (!isfinite(((const double *)row)[k]))
          st = dem_fail(DEM_ERR_USAGE,
                        "--restart '%s': body %zu of snapshot %06ld is not "
                        "finite (%s; the run failed there): nothing to "
                        "continue",
                        r->output, i, info->index, f->path);
    }
  }
  if (!st && (f->flags & DEM_FIELD_RESTART))
    memcpy(mine, data, rows * row_bytes);
  free(data);
  return st;
}

/* The contacts' keys and histories of one list, carried into the lists as
 * rebuilt. */
static dem_status restore_contacts(struct dem_run *r,
                                   const struct dem_h5_snapshot *snap,
                                   enum dem_item item) {
  struct dem_sim *sim = &r->sim;
  const struct dem_field *key = NULL, *state = NULL;
  for (const struct dem_field *f = dem_fields; f->name; f++)
    if (f->item == item && (f->flags & DEM_FIELD_RESTART)) {
      if (f->type == DEM_FIELD_I64)
        key = f;
      else
        state = f;
    }
  size_t n = DEM_H5_ANY, two = 2, w = (size_t)dem_field_width(sim, state);
  void *keys = NULL, *states = NULL;
  dem_status st =
      dem_h5_snapshot_read(snap, key->path, DEM_H5_I64, &n, &two, &keys);
  if (!st && w)
    st = dem_h5_snapshot_read(snap, state->path, DEM_H5_F64, &n, &w, &states);
  if (!st)
    st = dem_contacts_adopt(sim, item, keys, states, n);
  free(keys), free(states);
  if (st)
    return dem_refail(DEM_ERR_USAGE, "--restart '%s': %s", r->output,
                      dem_error_current()->message);
  return DEM_OK;
}

/* The lists of the run that wrote the file: built from the positions of
 * its last build (each list in sphere id order, whatever order its bodies
 * had), then the positions of the snapshot. */
static dem_status rebuild_lists(struct dem_sim *sim) {
  size_t nb = sim->b.n;
  double(*x)[3] = malloc((nb ? nb : 1) * sizeof *x);
  if (!x)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  memcpy(x, sim->b.x, nb * sizeof *x);
  memcpy(sim->b.x, sim->b.x_build, nb * sizeof *x);
  memcpy(sim->s.x, sim->s.x_build, sim->s.n * sizeof *sim->s.x);
  dem_status st = dem_neighbors_build(sim);
  memcpy(sim->b.x, x, nb * sizeof *x);
  free(x);
  if (!st)
    dem_sim_update_spheres(sim);
  return st;
}

dem_status dem_run_restart(struct dem_run *r) {
  struct dem_sim *sim = &r->sim;
  struct dem_h5_snapshot *snap;
  struct dem_h5_snapshot_info info;
  dem_status st = dem_h5_snapshot_open(r->output, -1, &snap, &info);
  if (st)
    return dem_refail(DEM_ERR_USAGE, "--restart: %s", dem_last_error());
  st = compatible(r, snap, &info);
  for (const struct dem_field *f = dem_fields; f->name && !st; f++)
    if ((f->item == DEM_ITEM_BODIES || f->item == DEM_ITEM_SPHERES) &&
        (f->flags & (DEM_FIELD_RESTART | DEM_FIELD_CHECK)))
      st = restore_field(r, snap, &info, f);
  if (!st)
    st = rebuild_lists(sim);
  if (!st)
    st = restore_contacts(r, snap, DEM_ITEM_PAIRS);
  if (!st)
    st = restore_contacts(r, snap, DEM_ITEM_WALL_CONTACTS);
  dem_h5_snapshot_close(snap);
  if (st)
    return st;
  /* The forces of the last step came with the state: the scheme goes on
   * from the snapshot's half steps, without a start of its own. */
  sim->t0 = 0;
  sim->step0 = 0;
  sim->step = info.step;
  sim->t = (double)info.step * sim->dt;
  return DEM_OK;
}
