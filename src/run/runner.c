/* dem_run: load, check, set up or restart, integrate and write a run. */
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "sim/body_order.h"
#include "sim/insert.h"
#include "sim/neighbors.h"
#include "sim/periodic.h"

static void on_signal(int sig) { dem_run_stop_signal = sig; }

/* The snapshots the run writes at most: one every interval (rounded to
 * steps as dem_run_integrate does), the first and the last. The writer
 * sizes /snapshots for them. */
static long snapshots_planned(const struct dem_run *r) {
  const struct dem_sim *sim = &r->sim;
  double every = r->out.snapshot_interval / sim->dt + 0.5;
  if (!(r->out.snapshot_interval > 0) || !(every < 1e15))
    return 2; /* first and last only */
  return sim->n_steps / (every < 1 ? 1 : (long)every) + 2;
}

/* The run header: the config as run, the scheme, and what the sidecar
 * shows. */
static dem_status open_output(struct dem_run *r, char **text) {
  struct dem_sim *sim = &r->sim;
  if (!(*text = dem_config_emit(r->cfg)))
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  struct dem_h5_run_info info = {.config_text = *text,
                                 .scheme = r->pipeline->scheme_name,
                                 .version = DEM_VERSION_STRING,
                                 .time_step = sim->dt,
                                 .xdmf = r->obs.xdmf,
                                 .n_xdmf = r->obs.n_xdmf,
                                 .shapes = r->obs.shapes,
                                 .n_shapes = r->obs.n_shapes,
                                 .walls = r->obs.walls,
                                 .n_walls = r->obs.n_walls,
                                 .meshes = r->obs.meshes,
                                 .n_meshes = r->obs.n_meshes,
                                 .snapshots_planned = snapshots_planned(r)};
  if (r->opt->restart) {
    r->last_snapshot_step = r->last_row_step = sim->step;
    return dem_h5_open_append(r->output, sim->step, &info, &r->h5);
  }
  return dem_run_output_recheck(
      r, dem_h5_create(r->output, r->opt->force, &info, &r->h5));
}

/* A fresh start: lists, forces at t0, and the scheme's starting half
 * steps. */
static dem_status start(struct dem_run *r) {
  struct dem_sim *sim = &r->sim;
  dem_status st;
  sim->t0 = sim->t;
  sim->step0 = sim->step;
  dem_periodic_wrap(sim);
  /* Bodies in spatial order from the first lists, not from the first
   * build of the step loop (sim/body_order.h). */
  if ((st = dem_body_order_if_due(sim)) || (st = dem_neighbors_build(sim)) ||
      (st = dem_pipeline_initial_forces(r->pipeline, sim)))
    return st;
  dem_pipeline_start(r->pipeline, sim);
  return DEM_OK;
}

static dem_status run_config(struct dem_run *r) {
  const struct dem_run_options *opt = r->opt;
  char *text = NULL;
  dem_status st;
  if ((st = dem_setup(r->cfg, &r->sim, &r->out)) ||
      (st = dem_setup_pipeline(r->cfg, &r->sim, &r->pipeline)) ||
      (st = dem_run_output(r)) || (opt->restart && (st = dem_run_restart(r))))
    return st;
  dem_run_print_setup(r, opt->quiet && !opt->check_only);
  if (opt->check_only)
    return DEM_OK;
  /* From here on a signal stops the run cleanly, with a last snapshot;
   * before, nothing is written yet and a signal ends dem at once. */
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  dem_run_stop_signal = 0;
  sigaction(SIGINT, &sa, &r->old_int);
  sigaction(SIGTERM, &sa, &r->old_term);
  r->handlers = 1;
  if ((st = dem_observer_init(&r->obs, &r->sim)))
    goto done;
  if (r->obs.n_walls &&
      !(r->wall_rows = malloc(sizeof r->rows / sizeof r->rows[0] *
                              r->obs.n_walls * 6 * sizeof *r->wall_rows))) {
    st = dem_fail(DEM_ERR_NOMEM, "out of memory");
    goto done;
  }
  if ((st = open_output(r, &text)) || (!opt->restart && (st = start(r))))
    goto done;
  st = dem_run_integrate(r, opt->restart != NULL);
  if (r->n_rows && st != DEM_ERR_NUMERIC)
    dem_run_flush_rows(r);
  if (!opt->quiet && r->have_rows) {
    const struct dem_energy_row *a = &r->first_row, *b = &r->last_row;
    double scale = dem_energy_scale(a, b);
    fprintf(stderr,
            "  energy from t = %g s to %g s: %.6g J -> %.6g J, dissipated "
            "%.6g J; balance (E + W - E0) / |E0| = %.3g\n",
            a->time, b->time, a->total, b->total, b->dissipated - a->dissipated,
            scale > 0 ? dem_energy_balance(a, b) / scale : 0.0);
    if (b->inserted != a->inserted)
      fprintf(stderr,
              "  (W counts the %.6g J the inserted bodies brought in; |E0| is "
              "|E0| + that)\n",
              b->inserted - a->inserted);
  }
  if (!opt->quiet && r->sim.insert)
    fprintf(stderr,
            "  insertion: %ld bodies inserted, %ld not inserted (no free "
            "place); %zu bodies now\n",
            r->sim.insert->inserted, r->sim.insert->skipped, r->sim.b.n);
  if (!opt->quiet) {
    fprintf(stderr, "  neighbour list builds: %ld", r->sim.nb.builds);
    if (r->sim.nb.sorts)
      fprintf(stderr, " (bodies put in spatial order at %ld of them)",
              r->sim.nb.sorts);
    fprintf(stderr, "\n");
  }
done:
  free(text);
  return st;
}

dem_status dem_run(const struct dem_run_options *opt) {
  struct dem_run r = {
      .opt = opt, .last_snapshot_step = -1, .last_row_step = -1, .lock_fd = -1};
  /* The run records its errors in its own record, and hands a failure to
   * the caller's record at the end. */
  struct dem_error *caller = dem_error_use(&r.err);
  dem_status st = dem_config_load(opt->config_path, &r.cfg);
  for (size_t i = 0; !st && i < opt->n_sets; i++)
    st = dem_config_set(r.cfg, opt->sets[i]);
  if (!st) {
    if (opt->threads > 0)
      omp_set_num_threads(opt->threads);
    st = run_config(&r);
    if (r.handlers) {
      sigaction(SIGINT, &r.old_int, NULL);
      sigaction(SIGTERM, &r.old_term, NULL);
    }
  }
  if (r.h5) {
    dem_status cst = dem_h5_close(r.h5);
    if (!st)
      st = cst;
  }
  dem_run_unlock_output(&r); /* after the close: the file is complete */
  dem_observer_free(&r.obs);
  free(r.wall_rows);
  dem_pipeline_free(r.pipeline);
  dem_sim_release(&r.sim);
  free(r.output);
  dem_config_free(r.cfg);
  dem_error_use(caller);
  if (r.err.status != DEM_OK && caller->status == DEM_OK)
    *caller = r.err;
  return st;
}
