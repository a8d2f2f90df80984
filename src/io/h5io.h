/* HDF5 output (snapshots, energy, config, XDMF sidecar) and reading it back. */
#ifndef DEM_H5IO_H
#define DEM_H5IO_H

#include <stddef.h>

#include "dem/status.h"

struct dem_h5_writer; /* opaque */

struct dem_h5_run_info {
  const char *config_text; /* YAML as run, stored in /config */
  const char *scheme;      /* root attribute "scheme" */
  const char *version;     /* root attribute "dem_version" */
  double time_step;        /* root attribute "time_step" */
};

/* Creates the file. Fails (DEM_ERR_IO, message naming the path) if it
 * exists and `force` is 0 ("PATH: exists (use --force to overwrite)"), or
 * if it cannot be created; never leaves a partial file behind on failure
 * (the header is written to a hidden temporary file in the same directory
 * that is renamed to PATH once complete, so with `force` a failed create
 * keeps the old file). The XDMF sidecar (PATH with .h5 replaced by .xmf)
 * is removed here if stale and written by each snapshot.
 *
 * Crash safety: every energy append and snapshot ends with a flush, and
 * a snapshot is written unlinked, flushed, then linked into /snapshots and
 * flushed again (see h5_writer.c for the layout choices), so a process
 * killed at any moment leaves a file that opens with every snapshot and
 * energy row completed before it died (tests/test_h5io.c: 6000 of 6000
 * kills at random moments of a write loop of up to 12 snapshots). A kill
 * inside the rare flush that splits /snapshots' symbol table node (every
 * 256 snapshots) or grows its name heap (past ~8000) is not covered. */
dem_status dem_h5_create(const char *path, int force,
                         const struct dem_h5_run_info *info,
                         struct dem_h5_writer **out);

struct dem_energy_row {
  long step;
  double time, kinetic_translational, kinetic_rotational, elastic, gravity,
      total;
};

/* Appends rows to the /energy datasets (chunked, extendible) and flushes
 * (about 20-40 us: append in blocks rather than row by row). A kill
 * during an append may leave a prefix of its rows; readers drop rows whose
 * data never reached the file (they read as fill values). */
dem_status dem_h5_energy_append(struct dem_h5_writer *w,
                                const struct dem_energy_row *rows, size_t n);

/* A snapshot as plain arrays (no dependency on the simulation structs). */
struct dem_snapshot {
  long step;
  double time;
  size_t n_bodies;
  const double (*position)[3];
  const double (*velocity)[3];         /* at `time` */
  const double (*orientation)[4];      /* w, x, y, z */
  const double (*angular_velocity)[3]; /* body frame, at `time` */
  const double *mass;
  const double (*inertia)[3];
  const int *shape;
  size_t n_spheres;
  const double (*sphere_position)[3];
  const double *sphere_radius;
  const int *sphere_body;
  /* When set, row k of the bodies' (spheres') datasets is item
   * body_rows[k] (sphere_rows[k]) of the arrays: the arrays may be in
   * another order than the file's. */
  const size_t *body_rows, *sphere_rows;
  /* The integrator's own state, for bitwise restart: velocities as held by
   * the scheme (half step for leapfrog), and the per-body rotation scratch
   * (n_bodies x aux_width). Written under state/ in the snapshot group. */
  const double (*state_velocity)[3];
  const double (*state_angular_velocity)[3];
  const double *state_rot_aux;
  size_t aux_width;
  /* Neighbour-list state, for a bitwise restart (optional): each sphere's
   * index among its body's members, and its
   * position at the last neighbour build (n_spheres x 3). Written under
   * state/ as sphere_member and sphere_x_build (optional, as is
   * state_body_x_build below). */
  const int *state_sphere_member;
  const double (*state_sphere_x_build)[3];
  /* Body positions at the last neighbour build (n_bodies x 3; the broad
   * phase pairs bodies): state/body_x_build. */
  const double (*state_body_x_build)[3];
};

/* Writes /snapshots/NNNNNN (NNNNNN = running index, 6 digits) with
 * attributes time and step, groups bodies/, spheres/ and state/, flushes
 * the file and rewrites the XDMF sidecar so ParaView sees it (the sidecar
 * draws the M spheres as polyvertices with connectivity
 * /xdmf/polyvertex_M, written once per distinct M). */
dem_status dem_h5_snapshot_write(struct dem_h5_writer *w,
                                 const struct dem_snapshot *s);

/* Opens an existing dem output file to continue its run (restart): the
 * snapshot numbering, the XDMF sidecar and the energy series go on where
 * they stopped. Energy rows after step `last_step` (written after the
 * snapshot the run continues from) are dropped, and /config and the root
 * attributes are replaced by `info` (the config as the continued run uses
 * it). Fails with DEM_ERR_IO and "PATH: ..." when the file is missing,
 * cannot be opened for writing, is not a dem output file, or its
 * snapshots are not numbered 000000.. without gaps. */
dem_status dem_h5_open_append(const char *path, long last_step,
                              const struct dem_h5_run_info *info,
                              struct dem_h5_writer **out);

/* Flushes and closes; frees w. */
dem_status dem_h5_close(struct dem_h5_writer *w);

/* Reading back (tools, `dem energy`, tests). Readers open files without
 * HDF5 file locking, so a run still being written can be inspected (it
 * shows the state of its last flush). Errors are DEM_ERR_IO with
 * "PATH: ..." (missing file, not HDF5, not a dem file). An empty series
 * (n = 0) is not an error. Free with dem_energy_series_free. */
struct dem_energy_series {
  size_t n;
  long *step;
  double *time, *kinetic_translational, *kinetic_rotational, *elastic, *gravity,
      *total;
};
dem_status dem_h5_read_energy(const char *path, struct dem_energy_series *out);
void dem_energy_series_free(struct dem_energy_series *s);

/* Summary of an energy series, as `dem energy` prints it. Relative values
 * are fractions of |E0| (multiply by 100 for percent): max_rel_dev =
 * max |E-E0|/|E0|, mean_rel_dev = mean over all rows of |E-E0|/|E0|,
 * final_drift = (E_end-E0)/|E0| (signed). They are NaN when E0 is 0; all
 * fields are 0 for an empty series. */
struct dem_energy_summary {
  double e0, e_end, max_rel_dev, mean_rel_dev, final_drift, t_end;
  size_t n;
};
void dem_energy_summarize(const struct dem_energy_series *s,
                          struct dem_energy_summary *out);

/* A snapshot read back (restart, tools, tests): owns its arrays, which
 * are NULL when the count is 0. state_* are present when has_state is 1
 * (state_rot_aux when aux_width > 0 too). Free with
 * dem_snapshot_data_free. */
struct dem_snapshot_data {
  long index; /* NNNNNN of /snapshots/NNNNNN */
  long step;
  double time;
  size_t n_bodies;
  double (*position)[3];
  double (*velocity)[3];
  double (*orientation)[4];
  double (*angular_velocity)[3];
  double *mass;
  double (*inertia)[3];
  int *shape;
  size_t n_spheres;
  double (*sphere_position)[3];
  double *sphere_radius;
  int *sphere_body;
  int has_state;
  double (*state_velocity)[3];
  double (*state_angular_velocity)[3];
  double *state_rot_aux; /* n_bodies x aux_width */
  size_t aux_width;
  int *state_sphere_member;          /* NULL when not stored */
  double (*state_sphere_x_build)[3]; /* NULL when not stored */
  double (*state_body_x_build)[3];   /* NULL when not stored */
};

/* Reads /snapshots/NNNNNN with NNNNNN = index, or the last one (highest
 * index) when index < 0. Fails with DEM_ERR_IO and "PATH: ..." when the
 * file cannot be read, is not a dem file, has no such snapshot, or a
 * dataset has an unexpected shape. On failure *out is left empty. */
dem_status dem_h5_read_snapshot(const char *path, long index,
                                struct dem_snapshot_data *out);
/* The final state of a run (what a restart starts from). */
dem_status dem_h5_read_last_snapshot(const char *path,
                                     struct dem_snapshot_data *out);
/* Number of snapshots in the file (the highest index + 1 when they are
 * numbered without gaps, as the writer does). */
dem_status dem_h5_snapshot_count(const char *path, size_t *n);
void dem_snapshot_data_free(struct dem_snapshot_data *d);

/* The /config text and root attributes of an output file (malloc'ed
 * strings the caller frees; pass NULL for what is not wanted). */
dem_status dem_h5_read_run_info(const char *path, char **config_text,
                                char **scheme, char **version,
                                double *time_step);

#endif
