/* Restart: the state of a run's last snapshot, field by field from the
 * field table, the neighbour lists rebuilt as they were, and each
 * contact's history. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/run.h"
#include "sim/body_order.h"
#include "sim/contacts.h"
#include "sim/fields.h"
#include "sim/insert.h"
#include "sim/near.h"
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

/* A snapshot that holds the state a run stopped on (exit code 3): a
 * restart would stop there again and append the same snapshot, so it is
 * refused. */
static dem_status broken(const struct dem_run *r,
                         const struct dem_h5_snapshot_info *info,
                         const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static dem_status broken(const struct dem_run *r,
                         const struct dem_h5_snapshot_info *info,
                         const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return dem_fail(DEM_ERR_USAGE,
                  "--restart '%s': its last snapshot (%06ld, step %ld) holds "
                  "the state of a run that stopped on numerical trouble (%s): "
                  "nothing to continue; run again from the start with a "
                  "smaller time step",
                  r->output, info->index, info->step, what);
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
  if ((f->flags & DEM_FIELD_SINCE_4) && !dem_h5_snapshot_has(snap, f->path))
    return DEM_OK; /* an older dem's file: zeros, as allocated */
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
    } else if (f->type == DEM_FIELD_F64) {
      for (int k = 0; k < width && !st; k++)
        if (!isfinite(((const double *)row)[k]))
          st = broken(r, info, "%s %zu has a non-finite %s", item_name(f->item),
                      i, f->path);
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
  for (size_t i = 0; !st && i < n * w; i++)
    if (!isfinite(((const double *)states)[i]))
      st = dem_fail(DEM_ERR_USAGE, "%s row %zu is not finite", state->path,
                    i / w);
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
  if (sim->s.mesh_t_build && sim->s.n) /* the meshes as they were then */
    sim->t_eval = sim->s.mesh_t_build[0];
  dem_status st = dem_neighbors_build(sim);
  memcpy(sim->b.x, x, nb * sizeof *x);
  free(x);
  /* The build's positions were the file's, not placed from the bodies'
   * orientations: no far body's bound holds until the next build. */
  dem_near_forget(sim);
  if (!st)
    dem_sim_update_spheres(sim);
  return st;
}

/* A sphere entirely beyond a wall (it tunnelled through it: the run
 * stopped there). */
static dem_status check_walls(const struct dem_run *r,
                              const struct dem_h5_snapshot_info *info) {
  const struct dem_sim *sim = &r->sim;
  const struct dem_spheres *s = &sim->s;
  if (!sim->walls.enabled)
    return DEM_OK;
  for (size_t id = 0; id < s->n; id++) {
    size_t i = s->index_of[id];
    for (int k = 0; k < 3; k++) {
      if (sim->walls.periodic >> k & 1u)
        continue;
      double lo = sim->walls.lo[k] - s->radius[i];
      double hi = sim->walls.hi[k] + s->radius[i];
      if (s->x[i][k] < lo || s->x[i][k] > hi)
        return broken(
            r, info, "a sphere of body %ld is beyond the wall %c = %g",
            (long)sim->b.id[s->body[i]], "xyz"[k],
            s -> x[i][k] < lo ? sim -> walls.lo[k] : sim->walls.hi[k]);
    }
  }
  return DEM_OK;
}

/* The file reads back whole, its snapshots and energy rows go forward in
 * steps and times that are whole steps, and its values are finite: a
 * damaged file is refused before anything is written to it (appending
 * would truncate its energy rows at a damaged step, or build on a file
 * that no longer reads). */
static dem_status check_history(const struct dem_run *r) {
  const char *path = r->output;
  double dt = 0; /* the file's own: the config's is compared later */
  struct dem_h5_file_check c;
  struct dem_energy_series e;
  dem_status st = dem_h5_check_file(path, &c);
  if (!st && (st = dem_h5_read_run_info(path, NULL, NULL, NULL, &dt)))
    dem_h5_file_check_free(&c);
  if (st)
    return dem_refail(DEM_ERR_USAGE, "--restart: the file is damaged: %s",
                      dem_error_current()->message);
  for (size_t i = 0; !st && i < c.n_snapshots; i++)
    if (c.step[i] < 0 || (i > 0 && c.step[i] <= c.step[i - 1]) ||
        c.time[i] != (double)c.step[i] * dt)
      st = dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': the file is damaged: snapshot %06zu is "
                    "at step %ld, t = %.17g s (steps must increase and t be "
                    "step x time step)",
                    path, i, c.step[i], c.time[i]);
  struct dem_h5_snapshot_info last = {-1, -1, 0};
  if (c.n_snapshots)
    last = (struct dem_h5_snapshot_info){(long)c.n_snapshots - 1,
                                         c.step[c.n_snapshots - 1],
                                         c.time[c.n_snapshots - 1]};
  if (st || (st = dem_h5_read_energy(path, &e))) {
    dem_h5_file_check_free(&c);
    return st ? st
              : dem_refail(DEM_ERR_USAGE, "--restart: the file is damaged: %s",
                           dem_error_current()->message);
  }
  for (size_t i = 0; !st && i < e.n; i++) {
    int finite = 1;
#define DEM_CHECK_FINITE(name, unit, since, doc) finite &= isfinite(e.name[i]);
    DEM_ENERGY_COLUMNS(DEM_CHECK_FINITE)
#undef DEM_CHECK_FINITE
    /* A run that stopped on NaN wrote its last row at its last snapshot */
    if (!finite && e.step[i] == last.step && i + 1 == e.n)
      st = broken(r, &last, "its energy at step %ld is not finite", e.step[i]);
    else if (e.step[i] < 0 || (i > 0 && e.step[i] <= e.step[i - 1]) ||
             e.time[i] != (double)e.step[i] * dt || !finite)
      st = dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': the file is damaged: energy row %zu "
                    "(step %ld, t = %.17g s) %s",
                    path, i, e.step[i], e.time[i],
                    finite ? "is out of order (steps must increase and t "
                             "be step x time step)"
                           : "holds a value that is not finite");
  }
  /* Every snapshot was written with the energy row of its step: rows that
   * do not read (the reader takes them for what a killed run left) must
   * not be dropped as such. */
  size_t k = 0;
  for (size_t i = 0; !st && i < c.n_snapshots; i++) {
    while (k < e.n && e.step[k] < c.step[i])
      k++;
    if (k == e.n || e.step[k] != c.step[i])
      st = dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': the file is damaged: the energy series "
                    "(%zu rows) has no row at step %ld, the step of snapshot "
                    "%06zu",
                    path, e.n, c.step[i], i);
  }
  /* The walls' series have the rows the restart keeps, up to the last
   * snapshot's (written with them). */
  if (!st && c.n_snapshots && (st = dem_h5_check_walls(path, k + 1)))
    st = dem_refail(DEM_ERR_USAGE, "--restart: the file is damaged: %s",
                    dem_error_current()->message);
  dem_h5_file_check_free(&c);
  dem_energy_series_free(&e);
  return st;
}

/* HDF5 1.10 can crash on a damaged file (a global heap object longer
 * than its collection: SIGSEGV in H5HG_read). check_history runs in a
 * child process, which reports its status and message through a pipe, so
 * that such a file is refused rather than taking the run down; what the
 * run reads afterwards, the child has read. */
static dem_status check_history_apart(const struct dem_run *r) {
  int fd[2];
  fflush(NULL);
  if (pipe(fd) != 0)
    return check_history(r);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return check_history(r);
  }
  if (pid == 0) { /* the child: check, report, end without exit handlers */
    close(fd[0]);
    dem_status st = check_history(r);
    const char *msg = st ? dem_error_current()->message : "";
    if (write(fd[1], &st, sizeof st) == (ssize_t)sizeof st)
      while (*msg) {
        ssize_t n = write(fd[1], msg, strlen(msg));
        if (n <= 0)
          break;
        msg += n;
      }
    _exit(0);
  }
  close(fd[1]);
  char buf[sizeof(dem_status) + 2048];
  size_t got = 0;
  ssize_t n;
  while (got < sizeof buf - 1 &&
         (n = read(fd[0], buf + got, sizeof buf - 1 - got)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    got += (size_t)n;
  }
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  dem_status st;
  if (got < sizeof st || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': the file is damaged: reading it "
                    "crashed the HDF5 library%s",
                    r->output,
                    WIFSIGNALED(status) ? " (it died of a signal)" : "");
  memcpy(&st, buf, sizeof st);
  buf[got] = '\0';
  return st ? dem_fail(st, "%s", buf + sizeof st) : DEM_OK;
}

/* The config must describe the run in the file: only what changes no
 * number of the dynamics may differ. */
static dem_status same_physics(const struct dem_run *r) {
  static const char *const may_change[] = {"simulation.end_time", "output",
                                           "contact.sort_bodies",
                                           "contact.broad_phase", NULL};
  char *text = NULL, where[1024];
  struct dem_config *old = NULL;
  const struct dem_node *mine, *theirs;
  dem_status st = dem_h5_read_run_info(r->output, &text, NULL, NULL, NULL);
  if (!st)
    st = dem_config_load_string("/config", text, &old);
  free(text);
  if (st) {
    dem_config_free(old);
    return dem_refail(DEM_ERR_USAGE,
                      "--restart '%s': cannot read the config of the run "
                      "it holds (%s)",
                      r->output, dem_error_current()->message);
  }
  if (dem_node_differ(r->cfg->root, old->root, may_change, where, sizeof where,
                      &mine, &theirs)) {
    char *a = mine ? dem_node_emit(mine) : NULL;
    char *b = theirs ? dem_node_emit(theirs) : NULL;
    if (a)
      a[strcspn(a, "\n")] = '\0';
    if (b)
      b[strcspn(b, "\n")] = '\0';
    char msg[2048];
    snprintf(msg, sizeof msg,
             "--restart '%s': %s is %s%s%s here but %s%s%s in the run the "
             "file holds; a restart must keep what the dynamics depend on "
             "(only simulation.end_time, output, contact.sort_bodies and "
             "contact.broad_phase may change)",
             r->output, where, a ? "'" : "", a ? a : "not set", a ? "'" : "",
             b ? "'" : "", b ? b : "not set", b ? "'" : "");
    free(a);
    free(b);
    st = mine && dem_node_line(mine)
             ? dem_fail_at(DEM_ERR_USAGE, dem_node_file(mine),
                           dem_node_line(mine), dem_node_col(mine), "%s", msg)
             : dem_fail(DEM_ERR_USAGE, "%s", msg);
  }
  dem_config_free(old);
  return st;
}

/* The bodies inserted before the snapshot (ids past those the config
 * sets up), appended with the file's shapes and scales; the fields then
 * load or check them as any other. */
static dem_status restore_inserted(struct dem_run *r,
                                   const struct dem_h5_snapshot *snap) {
  struct dem_sim *sim = &r->sim;
  size_t n = DEM_H5_ANY, m = DEM_H5_ANY, zero = 0;
  int *shape = NULL;
  double *scale = NULL;
  dem_status st = dem_h5_snapshot_read(snap, "bodies/shape", DEM_H5_I32, &n,
                                       &zero, (void **)&shape);
  if (!st)
    st = dem_h5_snapshot_read(snap, "bodies/scale", DEM_H5_F64, &m, &zero,
                              (void **)&scale);
  if (!st && m != n)
    st = dem_fail(DEM_ERR_USAGE, "bodies/scale has %zu rows, bodies/shape %zu",
                  m, n);
  for (size_t i = sim->b.n; !st && i < n; i++)
    if (shape[i] < 0 || (size_t)shape[i] >= sim->n_shapes || !(scale[i] > 0) ||
        !isfinite(scale[i]))
      st = dem_fail(DEM_ERR_USAGE, "body %zu has shape %d, scale %g", i,
                    shape[i], scale[i]);
  if (!st && n > sim->b.n)
    st = dem_insert_append(sim, n - sim->b.n, shape + sim->b.n,
                           scale + sim->b.n);
  free(shape);
  free(scale);
  if (st)
    return dem_refail(DEM_ERR_USAGE, "--restart '%s': %s", r->output,
                      dem_error_current()->message);
  return DEM_OK;
}

dem_status dem_run_restart(struct dem_run *r) {
  struct dem_sim *sim = &r->sim;
  struct dem_h5_snapshot *snap;
  struct dem_h5_snapshot_info info;
  dem_status st = check_history_apart(r);
  if (st)
    return st;
  if ((st = dem_h5_snapshot_open(r->output, -1, &snap, &info)))
    return dem_refail(DEM_ERR_USAGE, "--restart: %s", dem_last_error());
  st = sim->insert ? restore_inserted(r, snap) : DEM_OK;
  if (!st)
    st = compatible(r, snap, &info);
  if (!st)
    st = same_physics(r);
  for (const struct dem_field *f = dem_fields; f->name && !st; f++)
    if ((f->item == DEM_ITEM_BODIES || f->item == DEM_ITEM_SPHERES) &&
        (f->flags & (DEM_FIELD_RESTART | DEM_FIELD_CHECK)) &&
        dem_field_width(sim, f) > 0) /* this run's law may not use it */
      st = restore_field(r, snap, &info, f);
  /* Bodies in spatial order before the lists: they come in id order (the
   * order random_fill made them in, spread over the whole packing), and a
   * packing at rest may build no lists again for the whole run (the
   * settled pile of bench/dense.py: one build in 2,000 steps, each thread
   * reading the other's contacts all the while). No number depends on
   * the order. */
  if (!st)
    st = dem_body_order_if_due(sim);
  if (!st)
    st = rebuild_lists(sim);
  if (!st)
    st = check_walls(r, &info);
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
  dem_insert_resume(sim); /* the bodies due by now are in the snapshot */
  return DEM_OK;
}
