/* dem_run: load, check, set up, integrate and write a configuration's run. */
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "dem/dem.h"
#include "operators/pipeline.h"
#include "run/observe.h"
#include "setup/setup.h"
#include "sim/neighbors.h"

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

/* Rayleigh time step of the smallest sphere of each material:
 * pi R sqrt(rho / G) / (0.1631 nu + 0.8766). */
static double rayleigh_time_step(const struct dem_sim *sim) {
  double best = HUGE_VAL;
  for (size_t k = 0; k < sim->n_shapes; k++) {
    const struct dem_shape *sh = &sim->shapes[k];
    const struct dem_material *m = &sim->materials[sh->material];
    double g = m->young_modulus / (2.0 * (1.0 + m->poisson_ratio));
    for (size_t i = 0; i < sh->n_spheres; i++) {
      double dt = 3.14159265358979323846 * sh->radius[i] * sqrt(m->density / g) /
                  (0.1631 * m->poisson_ratio + 0.8766);
      if (dt < best)
        best = dt;
    }
  }
  return best;
}

static void print_setup(const struct dem_sim *sim,
                        const struct dem_output_options *out,
                        const char *output_path) {
  fprintf(stderr, "dem %s: %zu bodies, %zu spheres, scheme %s, %d threads\n",
          DEM_VERSION_STRING, sim->b.n, sim->s.n,
          sim->pipeline->scheme_name, omp_get_max_threads());
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
  double dtr = rayleigh_time_step(sim);
  fprintf(stderr,
          "  time step %.6g s = %.3g x the Rayleigh time step %.6g s; "
          "%ld steps to t = %g s\n",
          sim->dt, sim->dt / dtr, dtr, sim->n_steps, sim->end_time);
  if (sim->dt > dtr)
    fprintf(stderr,
            "  warning: the time step exceeds the Rayleigh time step; "
            "contacts may be poorly resolved\n");
  if (output_path)
    fprintf(stderr, "  output %s\n", output_path);
}

static void progress(const struct dem_sim *sim, double started, int final) {
  double elapsed = omp_get_wtime() - started;
  long done = sim->step - sim->step0;
  long total = sim->n_steps - sim->step0;
  double rate = elapsed > 0 ? done / elapsed : 0;
  double eta = rate > 0 ? (total - done) / rate : 0;
  fprintf(stderr,
          "%st = %.6g / %.6g s  step %ld / %ld  %.4g steps/s  "
          "%.4g sphere-steps/s  ETA %.0f s%s",
          isatty(2) ? "\r" : "", sim->t, sim->end_time, sim->step,
          sim->n_steps, rate, rate * (double)sim->s.n, eta,
          (final || !isatty(2)) ? "\n" : "   ");
  fflush(stderr);
}

/* Observations are due every `every` steps (0: never) and at the end. */
static long steps_between(double interval, double dt) {
  if (interval <= 0)
    return 0;
  long n = (long)(interval / dt + 0.5);
  return n < 1 ? 1 : n;
}

struct run_state {
  struct dem_sim *sim;
  struct dem_observer obs;
  struct dem_h5_writer *h5;
  struct dem_energy_row rows[512];
  size_t n_rows;
  long last_snapshot_step;
};

static dem_status flush_rows(struct run_state *r) {
  dem_status st = dem_h5_energy_append(r->h5, r->rows, r->n_rows);
  r->n_rows = 0;
  return st;
}

/* Records energy (and a snapshot if asked) at the current boundary. */
static dem_status observe(struct run_state *r, int snapshot) {
  struct dem_energy_row *row = &r->rows[r->n_rows++];
  dem_observe_energy(&r->obs, r->sim, row);
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

static dem_status check_finite(struct run_state *r) {
  long bad = dem_observe_find_nonfinite(r->sim);
  if (bad < 0)
    return DEM_OK;
  observe(r, 1); /* keep the broken state for inspection */
  return dem_fail(DEM_ERR_NUMERIC,
                  "non-finite state of body %ld at step %ld, t = %.9g s "
                  "(time step too large, or overlapping start?); the last "
                  "snapshot holds the state",
                  bad, r->sim->step, r->sim->t);
}

static dem_status integrate(struct run_state *r,
                            const struct dem_output_options *out, int quiet) {
  struct dem_sim *sim = r->sim;
  long energy_every = steps_between(out->energy_interval, sim->dt);
  long snap_every = steps_between(out->snapshot_interval, sim->dt);
  double started = omp_get_wtime(), last_print = started;
  double print_every = isatty(2) ? 1.0 : 30.0;
  dem_status st;
  if ((st = observe(r, 1)))
    return st;
  while (sim->step < sim->n_steps) {
    if (stop_requested)
      break;
    if ((st = dem_pipeline_step(sim->pipeline, sim)))
      return st;
    long s = sim->step;
    int snap = snap_every && s % snap_every == 0 && s < sim->n_steps;
    if ((energy_every && s % energy_every == 0) || snap) {
      if ((st = check_finite(r)) || (st = observe(r, snap)))
        return st;
    }
    if (!quiet && (s & 63) == 0) {
      double now = omp_get_wtime();
      if (now - last_print >= print_every) {
        progress(sim, started, 0);
        last_print = now;
      }
    }
  }
  if ((st = check_finite(r)))
    return st;
  if (r->last_snapshot_step != sim->step || r->n_rows)
    if ((st = observe(r, 1)))
      return st;
  if (!quiet)
    progress(sim, started, 1);
  if (stop_requested)
    return dem_fail(DEM_ERR_INTERRUPTED,
                    "stopped by signal %d at step %ld, t = %.9g s; the last "
                    "snapshot holds the state",
                    (int)stop_requested, sim->step, sim->t);
  return DEM_OK;
}

static dem_status run_config(struct dem_config *cfg,
                             const struct dem_run_options *opt) {
  struct dem_sim sim = {0};
  struct dem_output_options out;
  struct run_state r = {.sim = &sim, .last_snapshot_step = -1};
  char *output = NULL, *text = NULL;
  dem_status st = dem_setup(cfg, &sim, &out);
  if (st)
    goto done;
  if (opt->output)
    output = strdup(opt->output);
  else if (out.file)
    output = strdup(out.file);
  else
    output = default_output(opt->config_path);
  if (!output) {
    st = dem_fail(DEM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if (!opt->quiet || opt->check_only)
    print_setup(&sim, &out, opt->check_only ? NULL : output);
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
  if ((st = dem_h5_create(output, opt->force, &info, &r.h5)))
    goto done;
  sim.t0 = sim.t;
  sim.step0 = sim.step;
  if ((st = dem_neighbors_build(&sim)) ||
      (st = dem_pipeline_initial_forces(sim.pipeline, &sim)))
    goto done;
  dem_pipeline_start(sim.pipeline, &sim);
  st = integrate(&r, &out, opt->quiet);
  if (r.n_rows && st != DEM_ERR_NUMERIC)
    flush_rows(&r);
  if (!opt->quiet && sim.pipeline) {
    fprintf(stderr, "  neighbour list builds: %ld\n", sim.nb.builds);
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
