/* The step loop of a run: the pipeline, the per-step state check, energy
 * rows, snapshots and the progress line. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contact/model.h"
#include "run/run.h"
#include "sim/agree.h"
#include "sim/finite.h"
#include "sim/insert.h"
#include "sim/mesh_walls.h"
#include "sim/near.h"

volatile sig_atomic_t dem_run_stop_signal;

/* A duration for people: "42 s", "12 min 05 s", "3 h 25 min". */
static void format_duration(char *buf, size_t size, double sec) {
  long t = sec > 0 && sec < 1e12 ? (long)(sec + 0.5) : 0;
  if (t < 100)
    snprintf(buf, size, "%ld s", t);
  else if (t < 3600)
    snprintf(buf, size, "%ld min %02ld s", t / 60, t % 60);
  else
    snprintf(buf, size, "%ld h %02ld min", t / 3600, t / 60 % 60);
}

/* The progress line: where the run is, how fast it goes, and the energy
 * drift so far (the latest energy row against the first; with a
 * dissipative contact law, the balance E + W against E0, which only the
 * time step's error moves). In a log (stderr not a terminal) it is one
 * line per interval, like LAMMPS's thermo output; on a terminal a
 * shorter line (it must not wrap) rewritten in place. */
static void progress(const struct dem_run *r, double started, int tty,
                     int final) {
  const struct dem_sim *sim = &r->sim;
  double elapsed = omp_get_wtime() - started;
  long done = sim->step - r->first_step;
  long total = sim->n_steps - r->first_step;
  double rate = elapsed > 0 ? done / elapsed : 0;
  char energy[128] = "", when[32];
  format_duration(when, sizeof when,
                  final      ? elapsed
                  : rate > 0 ? (total - done) / rate
                             : 0);
  const struct dem_energy_row *a = &r->first_row, *b = &r->last_row;
  double scale = r->have_rows ? dem_energy_scale(a, b) : 0;
  if (scale != 0) {
    int balance =
        (sim->law.model && (sim->law.model->flags & DEM_MODEL_DISSIPATIVE)) ||
        (sim->mw && sim->mw->moving) || sim->insert;
    double e = balance ? dem_energy_balance(a, b) : b->total - a->total;
    if (tty)
      snprintf(energy, sizeof energy, "  %s %+.2e",
               balance ? "(E+W-E0)/E0" : "(E-E0)/E0", e / scale);
    else
      snprintf(energy, sizeof energy, "  %s %+.3e at t = %.6g s",
               balance ? "balance (E+W-E0)/|E0|" : "drift (E-E0)/|E0|",
               e / scale, b->time);
  }
  if (tty && !final) {
    fprintf(stderr,
            "\rstep %ld / %ld (%.0f %%)  t = %.4g s  %.*f steps/s  "
            "ETA %s%s   ",
            sim->step, sim->n_steps,
            sim->n_steps > 0 ? 100.0 * sim->step / sim->n_steps : 100.0, sim->t,
            rate >= 100 ? 0 : 2, rate, when, energy);
    fflush(stderr);
    return;
  }
  fprintf(stderr,
          "%sstep %ld / %ld (%.0f %%)  t = %.6g / %.6g s  %.*f steps/s  "
          "%.3g sphere-steps/s  %s %s%s%s",
          tty ? "\r" : "", sim->step, sim->n_steps,
          sim->n_steps > 0 ? 100.0 * sim->step / sim->n_steps : 100.0, sim->t,
          sim->end_time, rate >= 100 ? 0 : 2, rate, rate * (double)sim->s.n,
          final ? "done in" : "ETA", when, energy,
          (final || !tty) ? "\n" : "   ");
  fflush(stderr);
}

/* Seconds between progress lines in a log: DEM_PROGRESS_INTERVAL, else
 * 10 (a terminal's line is rewritten every second). */
static double progress_interval(int tty) {
  const char *text = getenv("DEM_PROGRESS_INTERVAL");
  char *end = NULL;
  double v = text ? strtod(text, &end) : 0;
  if (tty)
    return 1.0;
  if (!text || !*text)
    return 10.0;
  if (*end || !(v > 0) || !isfinite(v)) {
    fprintf(stderr,
            "  warning: DEM_PROGRESS_INTERVAL='%s' is not a positive number "
            "of seconds; progress every 10 s\n",
            text);
    return 10.0;
  }
  return v;
}

/* Observations are due every `every` steps (0: never) and at the end. */
static long steps_between(double interval, double dt) {
  if (interval <= 0)
    return 0;
  double n = interval / dt + 0.5;
  if (n >= 1e15)
    return 0; /* longer than any run: first and last only */
  return n < 1 ? 1 : (long)n;
}

dem_status dem_run_flush_rows(struct dem_run *r) {
  /* The walls' rows first: the energy's append flushes both. */
  dem_status st = dem_h5_walls_append(r->h5, r->wall_rows, r->n_rows);
  if (!st)
    st = dem_h5_energy_append(r->h5, r->rows, r->n_rows);
  r->n_rows = 0;
  return st;
}

/* Records energy (once per step) and a snapshot if asked at the current
 * boundary. */
static dem_status observe(struct dem_run *r, int snapshot) {
  struct dem_energy_row row;
  dem_status st = dem_observe_energy(&r->obs, &r->sim, r->pipeline, &row);
  if (st)
    return st;
  if (!r->have_rows)
    r->first_row = row;
  r->last_row = row;
  r->have_rows = 1;
  if (r->last_row_step != r->sim.step) {
    const size_t nw = r->obs.n_walls;
    if (nw)
      memcpy(r->wall_rows + r->n_rows * nw * 6,
             dem_observe_walls(&r->obs, &r->sim), nw * 6 * sizeof(double));
    r->rows[r->n_rows++] = row;
    r->last_row_step = r->sim.step;
  }
  if (r->n_rows == sizeof r->rows / sizeof r->rows[0] || snapshot)
    st = dem_run_flush_rows(r);
  if (!st && snapshot) {
    struct dem_snapshot s;
    if (!(st = dem_observe_snapshot(&r->obs, &r->sim, &s)))
      st = dem_h5_snapshot_write(r->h5, &s);
    r->last_snapshot_step = r->sim.step;
  }
  return st;
}

static int finite_n(const double *x, int n) {
  for (int k = 0; k < n; k++)
    if (!isfinite(x[k]))
      return 0;
  return 1;
}

/* What of body i is not finite, or NULL. */
static const char *nonfinite_field(const struct dem_bodies *b, size_t i) {
  if (!finite_n(b->x[i], 3))
    return "position";
  if (!finite_n(b->q[i], 4))
    return "orientation";
  if (!finite_n(b->v[i], 3))
    return "velocity";
  if (!finite_n(b->w[i], 3))
    return "angular velocity";
  if (!finite_n(b->force[i], 3))
    return "force";
  if (!finite_n(b->torque[i], 3))
    return "torque";
  return NULL;
}

/* A sphere entirely beyond a wall (farther than its radius) has tunnelled
 * through it: the lowest id's index and the wall (axis * 2 + side), or -1. */
static long find_tunnelled(const struct dem_sim *sim, int *wall) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_walls *w = &sim->walls;
  if (!w->enabled)
    return -1;
  for (size_t id = 0; id < s->n; id++)
    for (int k = 0; k < 3; k++) {
      size_t i = s->index_of[id];
      double r = s->radius[i];
      if (w->periodic >> k & 1u)
        continue;
      if (s->x[i][k] < w->lo[k] - r || s->x[i][k] > w->hi[k] + r) {
        *wall = 2 * k + (s->x[i][k] > w->hi[k] + r);
        return (long)i;
      }
    }
  return -1;
}

/* A parallel scan that only says whether something is wrong (each
 * thread its slice of the bodies, in SIMD lanes); the serial scans below
 * then name the culprit deterministically. Where the step's tiles looked
 * at the bodies' motion (dem_bodies.motion_checked), only the forces and
 * torques are read here: the whole scan was 8-10 % of a 60,000-sphere
 * `dem run` (docs/performance.md, "The state check in the tiles"). */
static int state_suspect(const struct dem_sim *sim) {
  const struct dem_bodies *b = &sim->b;
  const struct dem_spheres *s = &sim->s;
  const struct dem_walls *w = &sim->walls;
  long nb = (long)b->n, ns = (long)s->n;
  const int motion_known = b->motion_checked;
  int bad = motion_known && b->motion_nonfinite;
  /* A scan on one thread took 10 us a step of the settled pile's 2,000
   * bodies, then left every body's rows in that thread's core for the
   * other to fetch at the next step's tiles. */
  if (!bad)
    DEM_PARALLEL_IF(nb > DEM_PARALLEL_MIN_BODIES,
                    omp parallel reduction(|
                                           : bad),
                    {
                      size_t i0, i1;
                      dem_thread_slice((size_t)nb, &i0, &i1);
                      bad |= dem_bodies_loads_suspect(b, i0, i1) ||
                             (!motion_known &&
                              dem_bodies_motion_suspect(b, i0, i1));
                    });
  if (bad || !w->enabled)
    return bad;
  if (s->escape_known) /* update_spheres looked as it placed them */
    return s->escaped;
  DEM_PARALLEL_IF(ns > DEM_PARALLEL_MIN,
                  omp parallel for schedule(static) reduction(| : bad),
                  for (long i = 0; i < ns; i++) for (int k = 0; k < 3; k++)
                      bad |= !(w->periodic >> k & 1u) &&
                             (s->x[i][k] < w->lo[k] - s->radius[i] ||
                              s->x[i][k] > w->hi[k] + s->radius[i]););
  return bad;
}

/* Stops the run with DEM_ERR_NUMERIC on NaN or Inf in a body or a
 * tunnelled sphere, after writing the broken state as the last snapshot. */
static dem_status check_state(struct dem_run *r) {
  const struct dem_sim *sim = &r->sim;
  const struct dem_bodies *b = &sim->b;
  if (!dem_agree_any(state_suspect(sim)))
    return DEM_OK;
  for (size_t id = 0; id < b->n; id++) {
    size_t i = b->index_of[id];
    const char *what = nonfinite_field(b, i);
    if (!what)
      continue;
    observe(r, 1); /* keep the broken state for inspection */
    return dem_fail(DEM_ERR_NUMERIC,
                    "step %ld, t = %.9g s: body %zu (shape '%s') has a "
                    "non-finite %s (time step too large, or overlapping "
                    "start?); the last snapshot holds the state",
                    sim->step, sim->t, id, sim->shapes[b->shape[i]].name, what);
  }
  int wall = 0;
  dem_near_place_all(&r->sim); /* far bodies' spheres too (sim/near.h) */
  long k = find_tunnelled(sim, &wall);
  if (k < 0)
    return DEM_OK;
  int axis = wall / 2, hi = wall % 2;
  double plane = hi ? sim->walls.hi[axis] : sim->walls.lo[axis];
  double x = sim->s.x[k][axis], r_k = sim->s.radius[k];
  int body = sim->s.body[k];
  observe(r, 1);
  return dem_fail(DEM_ERR_NUMERIC,
                  "step %ld, t = %.9g s: a sphere (radius %g) of body %d "
                  "(shape '%s') tunnelled through the wall %c = %g: its "
                  "centre is %g beyond it (time step too large?); the last "
                  "snapshot holds the state",
                  sim->step, sim->t, r_k, (int)b->id[body],
                  sim->shapes[b->shape[body]].name, "xyz"[axis], plane,
                  fabs(x - plane));
}

/* Bodies due by now put in (insert entries), between two steps: the
 * next step's operators see them. */
static dem_status insert_due(struct dem_run *r) {
  size_t added = 0;
  /* Bodies put in rebuild the contact lists, which keep no forces: the
   * walls' loads at this boundary are taken before. */
  if (r->obs.n_walls && dem_insert_pending(&r->sim))
    dem_observe_walls(&r->obs, &r->sim);
  dem_status st = dem_insert_due(&r->sim, r->pipeline->half_step, &added);
  if (!st && added)
    st = dem_observer_fit(&r->obs, &r->sim);
  return st;
}

dem_status dem_run_integrate(struct dem_run *r, int restarted) {
  struct dem_sim *sim = &r->sim;
  const int quiet = r->opt->quiet;
  long energy_every = steps_between(r->out.energy_interval, sim->dt);
  long snap_every = steps_between(r->out.snapshot_interval, sim->dt);
  const int tty = isatty(2);
  double started = omp_get_wtime(), last_print = started;
  double print_every = quiet ? 0 : progress_interval(tty);
  /* The clock is read about 20 times a second, however long a step. */
  long check_every = 1, next_check = sim->step + 1;
  dem_status st;
  r->first_step = sim->step;
  r->pipeline->check_motion = 1; /* half of check_state, in the tiles */
  if (!restarted && sim->insert && (st = insert_due(r)))
    return st;
  if ((st = check_state(r)))
    return st;
  if (!restarted && (st = observe(r, 1)))
    return st;
  while (sim->step < sim->n_steps) {
    if (dem_run_stop_signal)
      break;
    if ((st = dem_agree_status(dem_pipeline_step(r->pipeline, sim))))
      return st;
    if ((st = check_state(r)))
      return st;
    if (sim->insert && (st = insert_due(r)))
      return st;
    long s = sim->step;
    int snap = snap_every && s % snap_every == 0 && s < sim->n_steps;
    if (((energy_every && s % energy_every == 0) || snap) &&
        (st = observe(r, snap)))
      return st;
    if (!quiet && s >= next_check) {
      double now = omp_get_wtime();
      double rate = (double)(s - r->first_step) / (now - started + 1e-9);
      check_every = rate > 20 ? (long)(rate / 20) : 1;
      next_check = s + check_every;
      if (now - last_print >= print_every) {
        progress(r, started, tty, 0);
        last_print = now;
      }
    }
  }
  if (r->last_snapshot_step != sim->step)
    if ((st = observe(r, 1)))
      return st;
  if (!quiet)
    progress(r, started, tty, 1);
  if (dem_run_stop_signal)
    return dem_fail(DEM_ERR_INTERRUPTED,
                    "stopped by signal %d at step %ld, t = %.9g s; the last "
                    "snapshot holds the state (continue with --restart)",
                    (int)dem_run_stop_signal, sim->step, sim->t);
  return DEM_OK;
}
