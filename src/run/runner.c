/* dem_run: load, check, set up or restart, integrate and write a run. */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "dem/dem.h"
#include "operators/pipeline.h"
#include "run/observe.h"
#include "setup/setup.h"
#include "sim/neighbors.h"

/* A Hertz contact should last at least this many time steps. */
#define HERTZ_STEPS_PER_CONTACT 20

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig) { stop_requested = sig; }

/* Default output: the config's base name with .h5, in the current dir. */
static char *default_output(const char *config_path) {
  const char *base = strrchr(config_path, '/');
  base = base ? base + 1 : config_path;
  size_t len = strlen(base);
  const char *dot = strrchr(base, '.');
  if (dot && (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0))
    len = (size_t)(dot - base);
  char *out = malloc(len + 4);
  if (out)
    snprintf(out, len + 4, "%.*s.h5", (int)len, base);
  return out;
}

/* "FILE:LINE:COL: " of output.file when the path came from the config
 * (into buf), else "". */
static const char *output_where(const struct dem_config *cfg,
                                const struct dem_run_options *opt, char *buf,
                                size_t size) {
  const struct dem_node *n =
      dem_node_get(dem_node_get(cfg->root, "output"), "file");
  buf[0] = '\0';
  if (n && !opt->output && !opt->restart)
    snprintf(buf, size, "%s:%d:%d: ", dem_node_file(n), dem_node_line(n),
             dem_node_col(n));
  return buf;
}

/* Whether a file can be created in dir (also for root on a read-only or
 * virtual file system): creates and removes a hidden probe. errno tells
 * why not. */
static int can_create(const char *dir) {
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/.dem-probe-%ld-XXXXXX", dir,
           (long)getpid());
  int fd = mkstemp(probe);
  if (fd < 0)
    return 0;
  close(fd);
  unlink(probe);
  return 1;
}

/* The output path, checked before anything is written: its directory
 * exists and is writable, it is not a directory, and it does not exist
 * unless --force (a restart needs it to exist and be writable). `dem
 * check` only notes an existing file. */
static dem_status check_output(const struct dem_config *cfg,
                               const struct dem_run_options *opt,
                               const char *path) {
  char where[512], dir[4096];
  struct stat sb;
  output_where(cfg, opt, where, sizeof where);
  const char *slash = strrchr(path, '/');
  if (!path[0])
    return dem_fail(DEM_ERR_USAGE, "%soutput file: empty name", where);
  if (slash && slash == path)
    snprintf(dir, sizeof dir, "/");
  else if (slash)
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  else
    snprintf(dir, sizeof dir, ".");
  if (stat(dir, &sb) != 0)
    return dem_fail(DEM_ERR_USAGE,
                    "%soutput file '%s': directory '%s' does not exist (%s)",
                    where, path, dir, strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return dem_fail(DEM_ERR_USAGE,
                    "%soutput file '%s': '%s' is not a directory", where, path,
                    dir);
  if (access(dir, W_OK | X_OK) != 0 || (!opt->restart && !can_create(dir)))
    return dem_fail(DEM_ERR_USAGE,
                    "%soutput file '%s': cannot write in directory '%s' (%s)",
                    where, path, dir, strerror(errno));
  int exists = stat(path, &sb) == 0;
  if (exists && S_ISDIR(sb.st_mode))
    return dem_fail(DEM_ERR_USAGE, "%soutput file '%s' is a directory", where,
                    path);
  if (opt->restart) {
    if (!exists || access(path, R_OK | W_OK) != 0)
      return dem_fail(DEM_ERR_USAGE, "--restart '%s': %s", path,
                      strerror(errno));
    return DEM_OK;
  }
  if (exists && opt->check_only)
    fprintf(stderr,
            "  note: output file '%s' exists (dem run will need "
            "--force to overwrite it)\n",
            path);
  else if (exists && !opt->force)
    return dem_fail(DEM_ERR_USAGE,
                    "%soutput file '%s' exists (use --force to overwrite "
                    "it, or -o another name)",
                    where, path);
  return DEM_OK;
}

/* Rayleigh time step of the smallest sphere of each material:
 * pi R sqrt(rho / G) / (0.1631 nu + 0.8766). */
static double rayleigh_time_step(const struct dem_sim *sim) {
  double best = HUGE_VAL;
  for (size_t k = 0; k < sim->n_shapes; k++) {
    const struct dem_shape *sh = &sim->shapes[k];
    const struct dem_material *m = &sim->materials[sh->material];
    double g = m->young_modulus / (2.0 * (1.0 + m->poisson_ratio));
    for (size_t i = 0; i < sh->n_spheres; i++) {
      double dt = 3.14159265358979323846 * sh->radius[i] *
                  sqrt(m->density / g) / (0.1631 * m->poisson_ratio + 0.8766);
      if (dt < best)
        best = dt;
    }
  }
  return best;
}

/* The shortest Hertz contact: duration of a collision at the fastest
 * impact the initial state suggests, t_c = 2.87 (m*^2 / (R* E*^2 v))^(1/5),
 * for every pair of shapes in use (relative speed twice the fastest body
 * speed |v| + |w| r_bound, plus sqrt(2 |g| L) of a fall across the box)
 * and every shape against the walls. */
struct hertz_limit {
  double contact_time, speed; /* 0 speed: no moving contact expected */
  const char *a, *b;          /* shapes ("walls" for b) */
};

/* |x| without overflow for huge components. */
static double norm3(const double x[3]) {
  double m = fmax(fabs(x[0]), fmax(fabs(x[1]), fabs(x[2])));
  if (!(m > 0) || !isfinite(m))
    return m;
  double a = x[0] / m, b = x[1] / m, c = x[2] / m;
  return m * sqrt(a * a + b * b + c * c);
}

static void hertz_time_step(const struct dem_sim *sim,
                            struct hertz_limit *out) {
  const struct dem_bodies *b = &sim->b;
  double vmax = 0;
  int *used = calloc(sim->n_shapes ? sim->n_shapes : 1, sizeof *used);
  *out = (struct hertz_limit){HUGE_VAL, 0, NULL, NULL};
  if (!used)
    return;
  for (size_t i = 0; i < b->n; i++) {
    const struct dem_shape *sh = &sim->shapes[b->shape[i]];
    double v = norm3(b->v[i]) + norm3(b->w[i]) * sh->props.bounding_radius;
    if (v > vmax)
      vmax = v;
    used[b->shape[i]]++;
  }
  double g = norm3(sim->gravity);
  if (g > 0 && sim->walls.enabled) {
    double span[3];
    for (int k = 0; k < 3; k++)
      span[k] = sim->walls.hi[k] - sim->walls.lo[k];
    vmax += sqrt(2.0 * g * norm3(span));
  }
  if (vmax > 0) {
    size_t nm = sim->n_materials;
    for (size_t p = 0; p < sim->n_shapes; p++) {
      if (!used[p])
        continue;
      const struct dem_shape *sp = &sim->shapes[p];
      double rp = HUGE_VAL;
      for (size_t i = 0; i < sp->n_spheres; i++)
        rp = fmin(rp, sp->radius[i]);
      for (size_t q = p; q <= sim->n_shapes; q++) {
        int wall = q == sim->n_shapes;
        double mstar, rstar, estar, v;
        if (wall) {
          if (!sim->walls.enabled)
            continue;
          mstar = sp->props.mass;
          rstar = rp;
          estar = sim->estar[(size_t)sp->material * (nm + 1) + nm];
          v = vmax;
        } else {
          const struct dem_shape *sq = &sim->shapes[q];
          if (!used[q] || (q == p && used[p] < 2))
            continue;
          double rq = HUGE_VAL;
          for (size_t i = 0; i < sq->n_spheres; i++)
            rq = fmin(rq, sq->radius[i]);
          mstar = sp->props.mass * sq->props.mass /
                  (sp->props.mass + sq->props.mass);
          rstar = rp * rq / (rp + rq);
          estar = sim->estar[(size_t)sp->material * (nm + 1) +
                             (size_t)sq->material];
          v = 2.0 * vmax;
        }
        double tc = 2.87 * pow(mstar * mstar / (rstar * estar * estar), 0.2) *
                    pow(v, -0.2);
        if (tc < out->contact_time)
          *out = (struct hertz_limit){tc, v, sp->name,
                                      wall ? "the walls" : sim->shapes[q].name};
      }
    }
  }
  free(used);
}

/* The run's summary (unless quiet) and the time-step warnings (always). */
static void print_setup(const struct dem_sim *sim,
                        const struct dem_output_options *out,
                        const char *output_path, int quiet) {
  if (!quiet) {
    fprintf(stderr, "dem %s: %zu bodies, %zu spheres, scheme %s, %d threads\n",
            DEM_VERSION_STRING, sim->b.n, sim->s.n, sim->pipeline->scheme_name,
            omp_get_max_threads());
    if (out->print_shapes)
      for (size_t k = 0; k < sim->n_shapes; k++) {
        const struct dem_shape *sh = &sim->shapes[k];
        const struct dem_clump_props *p = &sh->props;
        fprintf(stderr,
                "  shape %s: %zu spheres, volume %.6g m^3, mass %.6g kg, "
                "centre of mass (%.6g, %.6g, %.6g), principal moments "
                "(%.6g, %.6g, %.6g) kg m^2",
                sh->name, sh->n_spheres, p->volume, p->mass, p->com[0],
                p->com[1], p->com[2], p->inertia[0], p->inertia[1],
                p->inertia[2]);
        if (p->exact)
          fprintf(stderr, " [exact]\n");
        else
          fprintf(stderr, " [grid %d, change %.2g from the coarser one]\n",
                  p->resolution, p->rel_change);
      }
  }
  double dtr = rayleigh_time_step(sim);
  struct hertz_limit h;
  hertz_time_step(sim, &h);
  double dth = h.contact_time / HERTZ_STEPS_PER_CONTACT;
  /* One body and no walls: nothing ever touches, no limit applies. */
  int contacts = sim->b.n > 1 || sim->walls.enabled;
  if (!quiet) {
    fprintf(stderr,
            "  time step %.6g s = %.3g x the Rayleigh time step %.6g s%s; "
            "%ld steps to t = %g s\n",
            sim->dt, sim->dt / dtr, dtr, contacts ? "" : " (no contacts)",
            sim->n_steps, sim->end_time);
    if (h.speed > 0)
      fprintf(stderr,
              "  Hertz contact time %.6g s (%s against %s at %.3g m/s): "
              "the time step is 1/%.3g of it\n",
              h.contact_time, h.a, h.b, h.speed, h.contact_time / sim->dt);
  }
  if (contacts && sim->dt > dtr)
    fprintf(stderr,
            "  warning: the time step %.6g s exceeds the Rayleigh time step "
            "%.6g s (%.3g x); contacts may be poorly resolved\n",
            sim->dt, dtr, sim->dt / dtr);
  if (h.speed > 0 && sim->dt > dth)
    fprintf(stderr,
            "  warning: the time step %.6g s exceeds the Hertz limit %.6g s "
            "(a contact of %s against %s at %.3g m/s lasts %.6g s: %.3g "
            "steps, fewer than %d); contacts may be poorly resolved\n",
            sim->dt, dth, h.a, h.b, h.speed, h.contact_time,
            h.contact_time / sim->dt, HERTZ_STEPS_PER_CONTACT);
  if (output_path && !quiet)
    fprintf(stderr, "  output %s\n", output_path);
}

struct run_state {
  struct dem_sim *sim;
  struct dem_observer obs;
  struct dem_h5_writer *h5;
  struct dem_energy_row rows[512];
  size_t n_rows;
  long last_snapshot_step;
  long last_row_step; /* step of the last energy row recorded */
  long first_step;    /* step this process started from (restart: > 0) */
};

static void progress(const struct run_state *r, double started, int final) {
  const struct dem_sim *sim = r->sim;
  double elapsed = omp_get_wtime() - started;
  long done = sim->step - r->first_step;
  long total = sim->n_steps - r->first_step;
  double rate = elapsed > 0 ? done / elapsed : 0;
  double eta = rate > 0 ? (total - done) / rate : 0;
  fprintf(stderr,
          "%st = %.6g / %.6g s  step %ld / %ld  %.4g steps/s  "
          "%.4g sphere-steps/s  ETA %.0f s%s",
          isatty(2) ? "\r" : "", sim->t, sim->end_time, sim->step, sim->n_steps,
          rate, rate * (double)sim->s.n, eta,
          (final || !isatty(2)) ? "\n" : "   ");
  fflush(stderr);
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

static dem_status flush_rows(struct run_state *r) {
  dem_status st = dem_h5_energy_append(r->h5, r->rows, r->n_rows);
  r->n_rows = 0;
  return st;
}

/* Records energy (once per step) and a snapshot if asked at the current
 * boundary. */
static dem_status observe(struct run_state *r, int snapshot) {
  struct dem_energy_row row;
  dem_observe_energy(&r->obs, r->sim, &row); /* also syncs velocities */
  if (r->last_row_step != r->sim->step) {
    r->rows[r->n_rows++] = row;
    r->last_row_step = r->sim->step;
  }
  dem_status st = DEM_OK;
  if (r->n_rows == sizeof r->rows / sizeof r->rows[0] || snapshot)
    st = flush_rows(r);
  if (!st && snapshot) {
    struct dem_snapshot s;
    dem_observe_snapshot(&r->obs, r->sim, &s);
    st = dem_h5_snapshot_write(r->h5, &s);
    r->last_snapshot_step = r->sim->step;
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
      if (s->x[i][k] < w->lo[k] - r || s->x[i][k] > w->hi[k] + r) {
        *wall = 2 * k + (s->x[i][k] > w->hi[k] + r);
        return (long)i;
      }
    }
  return -1;
}

/* Stops the run with DEM_ERR_NUMERIC on NaN or Inf in a body or a
 * tunnelled sphere, after writing the broken state as the last snapshot. */
/* A parallel scan that only says whether something is wrong: x * 0 is NaN
 * exactly when x is not finite, so one sum per body covers every field.
 * The serial scans below then name the culprit deterministically. */
static int state_suspect(const struct dem_sim *sim) {
  const struct dem_bodies *b = &sim->b;
  const struct dem_spheres *s = &sim->s;
  const struct dem_walls *w = &sim->walls;
  long nb = (long)b->n, ns = (long)s->n;
  int bad = 0;
#pragma omp parallel for schedule(static)                                      \
    reduction(|                                                                \
              : bad) if (nb > DEM_PARALLEL_MIN)
  for (long i = 0; i < nb; i++) {
    double z = 0.0;
    for (int k = 0; k < 3; k++)
      z += b->x[i][k] * 0.0 + b->v[i][k] * 0.0 + b->w[i][k] * 0.0 +
           b->force[i][k] * 0.0 + b->torque[i][k] * 0.0;
    for (int k = 0; k < 4; k++)
      z += b->q[i][k] * 0.0;
    bad |= z != 0.0;
  }
  if (bad || !w->enabled)
    return bad;
  if (s->escape_known) /* update_spheres looked as it placed them */
    return s->escaped;
#pragma omp parallel for schedule(static)                                      \
    reduction(|                                                                \
              : bad) if (ns > DEM_PARALLEL_MIN)
  for (long i = 0; i < ns; i++)
    for (int k = 0; k < 3; k++)
      bad |= s->x[i][k] < w->lo[k] - s->radius[i] ||
             s->x[i][k] > w->hi[k] + s->radius[i];
  return bad;
}

static dem_status check_state(struct run_state *r) {
  const struct dem_sim *sim = r->sim;
  const struct dem_bodies *b = &sim->b;
  if (!state_suspect(sim))
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

static dem_status integrate(struct run_state *r,
                            const struct dem_output_options *out, int quiet,
                            int restarted) {
  struct dem_sim *sim = r->sim;
  long energy_every = steps_between(out->energy_interval, sim->dt);
  long snap_every = steps_between(out->snapshot_interval, sim->dt);
  double started = omp_get_wtime(), last_print = started;
  double print_every = isatty(2) ? 1.0 : 30.0;
  dem_status st;
  if ((st = check_state(r)))
    return st;
  if (!restarted && (st = observe(r, 1)))
    return st;
  while (sim->step < sim->n_steps) {
    if (stop_requested)
      break;
    if ((st = dem_pipeline_step(sim->pipeline, sim)))
      return st;
    if ((st = check_state(r)))
      return st;
    long s = sim->step;
    int snap = snap_every && s % snap_every == 0 && s < sim->n_steps;
    if (((energy_every && s % energy_every == 0) || snap) &&
        (st = observe(r, snap)))
      return st;
    if (!quiet && (s & 63) == 0) {
      double now = omp_get_wtime();
      if (now - last_print >= print_every) {
        progress(r, started, 0);
        last_print = now;
      }
    }
  }
  if (r->last_snapshot_step != sim->step)
    if ((st = observe(r, 1)))
      return st;
  if (!quiet)
    progress(r, started, 1);
  if (stop_requested)
    return dem_fail(DEM_ERR_INTERRUPTED,
                    "stopped by signal %d at step %ld, t = %.9g s; the last "
                    "snapshot holds the state (continue with --restart)",
                    (int)stop_requested, sim->step, sim->t);
  return DEM_OK;
}

/* ---- restart ---------------------------------------------------------- */

/* The file's run must be this config's: time step, scheme, bodies. */
static dem_status restart_compatible(const struct dem_sim *sim,
                                     const char *path,
                                     const struct dem_snapshot_data *d) {
  char *scheme = NULL;
  double dt = 0;
  dem_status st = dem_h5_read_run_info(path, NULL, &scheme, NULL, &dt);
  if (st)
    return st;
  int same_scheme = scheme && strcmp(scheme, sim->pipeline->scheme_name) == 0;
  if (!same_scheme)
    st = dem_fail(DEM_ERR_USAGE,
                  "--restart '%s': the file was run with scheme '%s', the "
                  "config uses '%s'",
                  path, scheme ? scheme : "?", sim->pipeline->scheme_name);
  free(scheme);
  if (st)
    return st;
  if (dt != sim->dt)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': the file was run with time step %.17g "
                    "s, the config has %.17g s (a restart keeps the time "
                    "step)",
                    path, dt, sim->dt);
  if (d->n_bodies != sim->b.n || d->n_spheres != sim->s.n)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': the file holds %zu bodies of %zu "
                    "spheres, the config makes %zu of %zu",
                    path, d->n_bodies, d->n_spheres, sim->b.n, sim->s.n);
  for (size_t i = 0; i < d->n_bodies; i++)
    if (d->shape[i] != sim->b.shape[i] || d->mass[i] != sim->b.mass[i] ||
        memcmp(d->inertia[i], sim->b.inertia[i], sizeof d->inertia[i]) != 0)
      return dem_fail(DEM_ERR_USAGE,
                      "--restart '%s': body %zu has another shape, mass or "
                      "inertia in the file than in the config (were the "
                      "shapes, materials or particles changed?)",
                      path, i);
  if (!d->has_state || !d->state_velocity || !d->state_angular_velocity ||
      d->aux_width != DEM_ROT_AUX || !d->state_sphere_member ||
      !d->state_sphere_x_build || !d->state_body_x_build)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': snapshot %06ld lacks the integrator "
                    "state (state/velocity, angular_velocity, rot_aux of "
                    "width %d, sphere_member, sphere_x_build, body_x_build)",
                    path, d->index, (int)DEM_ROT_AUX);
  if (d->step < 0 || (double)d->step * sim->dt != d->time)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': snapshot %06ld is at step %ld, t = "
                    "%.17g s, which is not step x time step",
                    path, d->index, d->step, d->time);
  if (d->step >= sim->n_steps)
    return dem_fail(DEM_ERR_USAGE,
                    "--restart '%s': its last snapshot is at t = %.9g s "
                    "(step %ld), the config ends at t = %g s (step %ld); "
                    "nothing to do (raise simulation.end_time, e.g. --set "
                    "simulation.end_time=%g)",
                    path, d->time, d->step, sim->end_time, sim->n_steps,
                    2 * sim->end_time > d->time ? 2 * sim->end_time
                                                : 2 * d->time);
  for (size_t i = 0; i < d->n_bodies; i++) {
    const double *parts[] = {d->position[i], d->orientation[i],
                             d->state_velocity[i], d->state_angular_velocity[i],
                             d->state_rot_aux + i * d->aux_width};
    const int widths[] = {3, 4, 3, 3, (int)d->aux_width};
    for (int k = 0; k < 5; k++)
      if (!finite_n(parts[k], widths[k]))
        return dem_fail(DEM_ERR_USAGE,
                        "--restart '%s': body %zu of snapshot %06ld is not "
                        "finite (the run failed there); nothing to continue",
                        path, i, d->index);
  }
  return DEM_OK;
}

/* Puts the spheres in the snapshot's order, with each sphere's member,
 * and rebuilds the neighbour lists from the sphere and body positions of
 * the last build, so that the lists (and the order of every force sum) are
 * those of the run that wrote it. Bodies must hold their restored
 * positions. */
static dem_status restore_spheres(struct dem_sim *sim, const char *path,
                                  const struct dem_snapshot_data *d) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  size_t n_slots = b->first_member[b->n];
  for (size_t k = 0; k < n_slots; k++)
    b->member_slot[k] = SIZE_MAX;
  for (size_t k = 0; k < s->n; k++) {
    int body = d->sphere_body[k], m = d->state_sphere_member[k];
    if (body < 0 || (size_t)body >= b->n)
      return dem_fail(DEM_ERR_USAGE,
                      "--restart '%s': sphere %zu belongs to "
                      "no body (%d)",
                      path, k, body);
    const struct dem_shape *sh = &sim->shapes[b->shape[body]];
    size_t slot = b->first_member[body] + (size_t)m;
    if (m < 0 || (size_t)m >= sh->n_spheres ||
        b->member_slot[slot] != SIZE_MAX ||
        d->sphere_radius[k] != sh->radius[m])
      return dem_fail(DEM_ERR_USAGE,
                      "--restart '%s': sphere %zu (member %d "
                      "of body %d) does not match the config's shape '%s'",
                      path, k, m, body, sh->name);
    b->member_slot[slot] = k;
    s->body[k] = body;
    s->member[k] = (size_t)m;
    s->radius[k] = sh->radius[m];
    s->material[k] = sh->material;
    memcpy(s->offset[k], sh->offset[m], sizeof s->offset[k]);
    memcpy(s->x[k], d->state_sphere_x_build[k], sizeof s->x[k]);
    memset(s->force[k], 0, sizeof s->force[k]);
  }
  /* The lists of the run that wrote the file: built from the same
   * positions, each in sphere id order, whatever order the bodies had. */
  for (size_t i = 0; i < b->n; i++)
    memcpy(b->x[i], d->state_body_x_build[i], sizeof b->x[i]);
  dem_status st = dem_neighbors_build(sim);
  for (size_t i = 0; i < b->n; i++)
    memcpy(b->x[i], d->position[i], sizeof b->x[i]);
  if (!st)
    dem_sim_update_spheres(sim);
  return st;
}

/* Continues from the last snapshot of `path`: bodies with the scheme's
 * own velocities, rotation state, step and time; neighbours rebuilt as
 * they were; forces recomputed as the step that reached the snapshot left
 * them. The scheme's start is not called: velocities are already at their
 * half steps. */
static dem_status restart_from(struct dem_sim *sim, const char *path) {
  struct dem_snapshot_data d;
  struct dem_bodies *b = &sim->b;
  dem_status st = dem_h5_read_last_snapshot(path, &d);
  if (st)
    return dem_refail(DEM_ERR_USAGE, "--restart: %s", dem_last_error());
  if ((st = restart_compatible(sim, path, &d)))
    goto done;
  for (size_t i = 0; i < b->n; i++) {
    memcpy(b->x[i], d.position[i], sizeof b->x[i]);
    memcpy(b->q[i], d.orientation[i], sizeof b->q[i]);
    memcpy(b->v[i], d.state_velocity[i], sizeof b->v[i]);
    memcpy(b->w[i], d.state_angular_velocity[i], sizeof b->w[i]);
    memcpy(b->rot_aux + i * DEM_ROT_AUX, d.state_rot_aux + i * d.aux_width,
           DEM_ROT_AUX * sizeof *b->rot_aux);
  }
  if ((st = restore_spheres(sim, path, &d)))
    goto done;
  /* Forces as the last step computed them: at t_eval = t(step-1) + dt. */
  sim->t0 = 0;
  sim->step0 = 0;
  sim->step = d.step;
  sim->t = d.step > 0 ? (double)(d.step - 1) * sim->dt + sim->dt : 0.0;
  st = dem_pipeline_initial_forces(sim->pipeline, sim);
  sim->t = (double)d.step * sim->dt;
  /* Operators count their calls (push_rotation's normalise_every). */
  for (size_t i = 0; i < sim->pipeline->n_ops; i++)
    sim->pipeline->ops[i].calls = d.step;
done:
  dem_snapshot_data_free(&d);
  return st;
}

/* ---- the run ---------------------------------------------------------- */

static dem_status run_config(struct dem_config *cfg,
                             const struct dem_run_options *opt) {
  struct dem_sim sim = {0};
  struct dem_output_options out;
  struct run_state r = {
      .sim = &sim, .last_snapshot_step = -1, .last_row_step = -1};
  char *output = NULL, *text = NULL;
  dem_status st = dem_setup(cfg, &sim, &out);
  if (st)
    goto done;
  if (opt->restart && opt->output && strcmp(opt->restart, opt->output) != 0) {
    st = dem_fail(DEM_ERR_USAGE,
                  "--restart '%s' appends to that file: -o "
                  "'%s' cannot name another",
                  opt->restart, opt->output);
    goto done;
  }
  if (opt->restart)
    output = strdup(opt->restart);
  else if (opt->output)
    output = strdup(opt->output);
  else if (out.file)
    output = strdup(out.file);
  else
    output = default_output(opt->config_path);
  if (!output) {
    st = dem_fail(DEM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if ((st = check_output(cfg, opt, output)))
    goto done;
  if (opt->restart && (st = restart_from(&sim, opt->restart)))
    goto done;
  print_setup(&sim, &out, opt->check_only ? NULL : output,
              opt->quiet && !opt->check_only);
  if (opt->check_only)
    goto done;

  if ((st = dem_observer_init(&r.obs, &sim)))
    goto done;
  if (!(text = dem_config_emit(cfg))) {
    st = dem_fail(DEM_ERR_NOMEM, "out of memory");
    goto done;
  }
  struct dem_h5_run_info info = {.config_text = text,
                                 .scheme = sim.pipeline->scheme_name,
                                 .version = DEM_VERSION_STRING,
                                 .time_step = sim.dt};
  if (opt->restart) {
    if ((st = dem_h5_open_append(output, sim.step, &info, &r.h5)))
      goto done;
    r.last_snapshot_step = r.last_row_step = sim.step;
  } else {
    if ((st = dem_h5_create(output, opt->force, &info, &r.h5)))
      goto done;
    sim.t0 = sim.t;
    sim.step0 = sim.step;
    if ((st = dem_neighbors_build(&sim)) ||
        (st = dem_pipeline_initial_forces(sim.pipeline, &sim)))
      goto done;
    dem_pipeline_start(sim.pipeline, &sim);
  }
  r.first_step = sim.step;
  st = integrate(&r, &out, opt->quiet, opt->restart != NULL);
  if (r.n_rows && st != DEM_ERR_NUMERIC)
    flush_rows(&r);
  if (!opt->quiet && sim.pipeline) {
    fprintf(stderr, "  neighbour list builds: %ld", sim.nb.builds);
    if (sim.nb.sorts)
      fprintf(stderr, " (bodies put in spatial order at %ld of them)",
              sim.nb.sorts);
    fprintf(stderr, "\n");
  }
done:
  if (r.h5) {
    dem_status cst = dem_h5_close(r.h5);
    if (!st)
      st = cst;
  }
  dem_observer_free(&r.obs);
  free(text);
  free(output);
  dem_sim_release(&sim);
  return st;
}

dem_status dem_run(const struct dem_run_options *opt) {
  struct dem_config *cfg = NULL;
  dem_status st = dem_config_load(opt->config_path, &cfg);
  for (size_t i = 0; !st && i < opt->n_sets; i++)
    st = dem_config_set(cfg, opt->sets[i]);
  if (!st) {
    if (opt->threads > 0)
      omp_set_num_threads(opt->threads);
    stop_requested = 0;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    st = run_config(cfg, opt);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
  }
  dem_config_free(cfg);
  return st;
}
