/* A run: what it owns (the configuration, the state, the time step as a
 * pipeline, the observer, the output file) and its stages (internal). */
#ifndef DEM_RUN_H
#define DEM_RUN_H

#include <signal.h>

#include "config/config.h"
#include "dem/dem.h"
#include "io/h5io.h"
#include "operators/pipeline.h"
#include "run/observe.h"
#include "setup/setup.h"
#include "sim/sim.h"

struct dem_run {
  const struct dem_run_options *opt;
  struct dem_error err; /* the run's own error record */
  struct dem_config *cfg;
  struct dem_sim sim;
  struct dem_pipeline *pipeline;
  struct dem_output_options out;
  struct dem_observer obs;
  struct dem_h5_writer *h5;
  char *output;    /* the output file's path */
  int lock_fd;     /* the output's lock (dem_run_lock_output), or -1 */
  char *lock_path; /* its path */
  struct dem_energy_row rows[512];
  double *wall_rows; /* each row's walls' loads (obs.n_walls x 6 per row) */
  size_t n_rows;
  long last_snapshot_step;
  long last_row_step; /* step of the last energy row recorded */
  long first_step;    /* step this process started from (restart: > 0) */
  struct dem_energy_row first_row, last_row; /* of this process's run */
  int have_rows;
  struct sigaction old_int, old_term; /* restored when the run ends */
  int handlers;
};

/* The signal that asked the run to stop (0: none). */
extern volatile sig_atomic_t dem_run_stop_signal;

/* The output path: from -o, --restart, output.file or the config's name;
 * checked before anything is written (its directory exists and is
 * writable, its name fits, it and its sidecar are regular files other
 * than the config and do not exist unless --force; a restart needs it to
 * exist); then locked (unless checking only). */
dem_status dem_run_output(struct dem_run *r);

/* The output's lock, held from the checks to the end of the run (a second
 * run of the same output is refused with exit 2), and its release. */
dem_status dem_run_lock_output(struct dem_run *r, const char *dir,
                               const char *base);
void dem_run_unlock_output(struct dem_run *r);
/* st, or a DEM_ERR_USAGE failure when the output's directory went away
 * since the checks (creation failed for a bad path, not for a full disk). */
dem_status dem_run_output_recheck(struct dem_run *r, dem_status st);

/* The run's summary (unless quiet) and the time-step advice and warnings
 * (always). */
void dem_run_print_setup(const struct dem_run *r, int quiet);

/* Continues from the last snapshot of r->output. */
dem_status dem_run_restart(struct dem_run *r);

/* Steps to the end (or a signal), recording energy and snapshots. */
dem_status dem_run_integrate(struct dem_run *r, int restarted);
/* Writes the energy rows recorded but not yet written. */
dem_status dem_run_flush_rows(struct dem_run *r);

#endif
