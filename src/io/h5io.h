/* HDF5 output (snapshots, energy, config, XDMF sidecar) and reading it back. */
#ifndef DEM_H5IO_H
#define DEM_H5IO_H

#include <math.h>
#include <stddef.h>

#include "dem/status.h"

struct dem_h5_writer; /* opaque */

enum dem_h5_type { DEM_H5_F64, DEM_H5_I32, DEM_H5_I64 };

/* A node attribute in the XDMF sidecar: dataset `path` of each snapshot
 * shown as `name`, on the spheres' grid (a spheres/ dataset) or on the
 * bodies' grid (bodies, 1: a bodies/ dataset); width 3 is a vector,
 * anything else (0 included) a scalar. */
struct dem_xdmf_attribute {
  const char *name, *path;
  enum dem_h5_type type;
  int width;
  int bodies;
};

/* A shape (clump template) as /shapes stores it: row k of each /shapes
 * dataset is shape k, the number bodies/shape holds. */
struct dem_h5_shape {
  const char *name, *material;
  size_t n_spheres;
  double mass, volume;
  double inertia[3];         /* principal moments about the centre of mass */
  double centre_of_mass[3];  /* in the shape's input frame */
  double principal_axes[4];  /* quaternion (w, x, y, z): principal -> input */
  double bounding_radius;    /* max |c_i - com| + r_i */
  const double (*offset)[3]; /* n_spheres centres, principal frame */
  const double *radius;      /* n_spheres */
};

/* A wall whose load is written as a series, /walls/NAME/force and
 * /walls/NAME/torque (one row per energy row), the torque about `point`
 * (the attribute torque_point) as `about` says. */
struct dem_h5_wall {
  const char *name;
  double point[3];
  const char *about; /* what the point is, for the torque's description */
};

/* A mesh wall, for the sidecar to draw: /meshes/NAME/{vertices,triangles}
 * written with the header (vertices as placed before any motion); a
 * moving mesh's vertices at each snapshot's time are a column
 * meshes/NAME of the snapshot (run/observe.c). */
struct dem_h5_mesh {
  const char *name;
  size_t n_vert, n_tri;
  const double (*vertices)[3];
  const int (*triangles)[3]; /* vertex numbers */
  int moving;
};

struct dem_h5_run_info {
  const char *config_text; /* YAML as run, stored in /config */
  const char *scheme;      /* root attribute "scheme" */
  const char *version;     /* root attribute "dem_version" */
  double time_step;        /* root attribute "time_step" */
  /* What the XDMF sidecar shows of each snapshot's spheres and bodies,
   * besides their positions. */
  const struct dem_xdmf_attribute *xdmf;
  size_t n_xdmf;
  /* The shapes, written once to /shapes when the file is created (none:
   * no /shapes). */
  const struct dem_h5_shape *shapes;
  size_t n_shapes;
  /* The walls whose loads /walls holds (none: no /walls). */
  const struct dem_h5_wall *walls;
  size_t n_walls;
  /* The mesh walls (none: no /meshes). */
  const struct dem_h5_mesh *meshes;
  size_t n_meshes;
  /* The snapshots the run plans to write (0: not known): /snapshots is
   * sized so that linking them allocates nothing (io/h5_writer.c). */
  long snapshots_planned;
};

/* Creates the file. Fails (DEM_ERR_IO, message naming the path) if it
 * exists and `force` is 0 ("PATH: exists (use --force to overwrite)"), or
 * if it cannot be created; never leaves a partial file behind on failure
 * (the file is written under a hidden temporary name in the same
 * directory and renamed to PATH once its first snapshot is on disk, or at
 * dem_h5_close, so with `force` a failed create keeps the old file; a
 * name taken in the meantime fails the snapshot or the close). The XDMF
 * sidecar (PATH with .h5 replaced by .xmf) is removed then if stale, and
 * written by each snapshot.
 *
 * Crash safety: every energy append and snapshot ends with a flush, and
 * a snapshot is written unlinked, flushed, then linked into /snapshots and
 * flushed again (see h5_writer.c for the layout choices); the file has
 * its name PATH only once the first snapshot is on disk (before, a hidden
 * temporary name; dem_h5_close gives it the name in any case). A process
 * killed between two writes leaves either no file or one that opens with
 * every snapshot and energy row completed before it died
 * (tests/cli_kill_writes.sh: dem killed before each of its writes;
 * tests/test_h5io.c: kills at random moments of a write loop of up to 12
 * snapshots), or inside one write, torn at a page boundary
 * (tests/cli_h5_tear.sh), also at the rare flush that grows /snapshots'
 * object header past max(512, snapshots_planned + 2) links (at most 8191;
 * docs/output.md, "Crash safety"). */
dem_status dem_h5_create(const char *path, int force,
                         const struct dem_h5_run_info *info,
                         struct dem_h5_writer **out);

/* The XDMF sidecar's path for an output path (PATH with a final .h5
 * replaced by .xmf, else PATH.xmf). Caller frees; NULL when out of
 * memory. */
char *dem_h5_sidecar_path(const char *path);

/* The energy series: a step column, then these (X(name, unit, since,
 * description)), one dataset each under /energy. `since` is the version
 * that added the column: a file of an older dem reads as zeros there. A
 * new column is a new line here. */
#define DEM_ENERGY_COLUMNS(X)                                                  \
  X(time, "s", 1, "time of the row")                                           \
  X(kinetic_translational, "J", 1,                                             \
    "translational kinetic energy, sum m v^2/2")                               \
  X(kinetic_rotational, "J", 1,                                                \
    "rotational kinetic energy, sum of I_k w_k^2/2 in the principal frames")   \
  X(elastic, "J", 1, "elastic energy stored in the contacts")                  \
  X(gravity, "J", 1, "gravitational potential energy, -sum m g.x")             \
  X(total, "J", 1, "kinetic + elastic + gravitational energy")                 \
  X(dissipated_damping, "J", 2,                                                \
    "work dissipated by the contacts' dashpots since the start")               \
  X(dissipated_friction, "J", 2, "work dissipated by sliding since the start") \
  X(dissipated_rolling, "J", 2,                                                \
    "work dissipated by rolling resistance since the start")                   \
  X(dissipated, "J", 2,                                                        \
    "all work dissipated since the start: total + dissipated is constant")     \
  X(wall_work, "J", 3,                                                         \
    "work the moving mesh walls did on the bodies since the start: total + "   \
    "dissipated - wall_work is constant")                                      \
  X(inserted, "J", 4,                                                          \
    "energy the inserted bodies brought in (kinetic + gravitational, at "      \
    "their insertion) since the start: total + dissipated - wall_work - "      \
    "inserted is constant")

struct dem_energy_row {
  long step;
#define DEM_ENERGY_ROW_MEMBER(name, unit, since, doc) double name;
  DEM_ENERGY_COLUMNS(DEM_ENERGY_ROW_MEMBER)
#undef DEM_ENERGY_ROW_MEMBER
};

/* The balance from row a to row b: the change of total + dissipated -
 * wall_work - inserted, which is zero but for the time-step error. */
static inline double dem_energy_balance(const struct dem_energy_row *a,
                                        const struct dem_energy_row *b) {
  return (b->total - a->total) + (b->dissipated - a->dissipated) -
         (b->wall_work - a->wall_work) - (b->inserted - a->inserted);
}
/* The energy scale the balance and the drift are fractions of: |E0|, plus
 * what the inserted bodies brought in (a pour may start with none). */
static inline double dem_energy_scale(const struct dem_energy_row *a,
                                      const struct dem_energy_row *b) {
  return fabs(a->total) + fabs(b->inserted - a->inserted);
}

/* Appends rows to the /energy datasets (chunked, extendible) and flushes
 * (about 20-40 us: append in blocks rather than row by row). A kill
 * during an append may leave a prefix of its rows; readers drop rows whose
 * data never reached the file (they read as fill values). */
dem_status dem_h5_energy_append(struct dem_h5_writer *w,
                                const struct dem_energy_row *rows, size_t n);

/* Appends n rows to every wall's /walls/NAME/force and torque (the
 * run's walls, in order): row i of wall k is rows[(i * n_walls + k) * 6
 * + c], c 0..2 the force, 3..5 the torque. It does not flush: call it
 * just before dem_h5_energy_append with the same rows, whose flush
 * writes both (io/h5_walls.c). */
dem_status dem_h5_walls_append(struct dem_h5_writer *w, const double *rows,
                               size_t n);

/* Fails (DEM_ERR_IO, "PATH: /walls/NAME/force ...") unless every dataset
 * of /walls is an extendible (rows, 3) series of at least `rows` rows
 * whose first `rows` rows read: what a restart that keeps that many
 * energy rows continues. */
dem_status dem_h5_check_walls(const char *path, size_t rows);

/* One dataset of a snapshot, as plain memory (no dependency on the
 * simulation structs; the run describes its arrays from the field
 * table). */
struct dem_h5_column {
  const char *path; /* group/name inside the snapshot, e.g. bodies/mass */
  enum dem_h5_type type;
  size_t rows, cols; /* cols 0: a 1-D dataset */
  const void *data;
  const size_t *order; /* row k is item order[k] of data, or NULL */
  /* Instead of data (NULL): item i computed into out by row(ctx, i, out),
   * a row at a time. */
  void (*row)(const void *ctx, size_t i, void *out);
  const void *ctx;
  const char *unit; /* attributes "unit" and "description" (NULL: none) */
  const char *description;
};

/* A snapshot: its time and step and its datasets. n_spheres and n_bodies
 * are what the XDMF sidecar draws (spheres/position, bodies/position and
 * the run's XDMF attributes; no bodies' grid when n_bodies is 0). */
struct dem_snapshot {
  long step;
  double time;
  size_t n_spheres;
  const struct dem_h5_column *columns;
  size_t n_columns;
  size_t n_bodies;
};

/* Writes /snapshots/NNNNNN (NNNNNN = running index, 6 digits) with
 * attributes time and step and every column (its group made as needed),
 * flushes the file and rewrites the XDMF sidecar so ParaView sees it (the
 * sidecar draws the M spheres as polyvertices with connectivity
 * /xdmf/polyvertex_M, written once per distinct M, and the N bodies' centres
 * with its first N entries). */
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
#define DEM_ENERGY_SERIES_MEMBER(name, unit, since, doc) double *name;
  DEM_ENERGY_COLUMNS(DEM_ENERGY_SERIES_MEMBER)
#undef DEM_ENERGY_SERIES_MEMBER
};
dem_status dem_h5_read_energy(const char *path, struct dem_energy_series *out);
void dem_energy_series_free(struct dem_energy_series *s);

/* Summary of an energy series, as `dem energy` prints it. Relative values
 * are fractions of |E0| (with insertion: plus the largest energy the
 * inserted bodies brought in since the first row; multiply by 100 for
 * percent): max_rel_dev =
 * max |E-E0|/|E0|, mean_rel_dev = mean over all rows of |E-E0|/|E0|,
 * final_drift = (E_end-E0)/|E0| (signed), and the same of E + W for the
 * balance. They are NaN when E0 is 0; all fields are 0 for an empty
 * series. */
struct dem_energy_summary {
  double e0, e_end, max_rel_dev, mean_rel_dev, final_drift, t_end;
  size_t n;
  /* The balance: W the work dissipated since the start; max |E + W -
   * (E0 + W0)|/|E0| and (E_end + W_end - E0 - W0)/|E0| (equal to the
   * drift's when nothing is dissipated; W0 is 0 in a run's own file). */
  double w_end, max_balance, final_balance;
};
void dem_energy_summarize(const struct dem_energy_series *s,
                          struct dem_energy_summary *out);

/* A snapshot read back (restart, tools, tests): opened by number (or the
 * last one, index < 0), then read dataset by dataset. Fails with
 * DEM_ERR_IO and "PATH: ..." when the file cannot be read, is not a dem
 * file or has no such snapshot. */
struct dem_h5_snapshot; /* opaque */
struct dem_h5_snapshot_info {
  long index; /* NNNNNN of /snapshots/NNNNNN */
  long step;
  double time;
};
dem_status dem_h5_snapshot_open(const char *path, long index,
                                struct dem_h5_snapshot **out,
                                struct dem_h5_snapshot_info *info);
/* Whether the snapshot holds dataset `name` (e.g. "state/rot_aux"). */
int dem_h5_snapshot_has(const struct dem_h5_snapshot *s, const char *name);
/* Reads dataset `name` into a new array (NULL when it has no rows) of
 * `type`. *rows is the expected row count or DEM_H5_ANY (then set); *cols
 * is 0 for a 1-D dataset, the expected width, or DEM_H5_ANY (then set).
 * A missing dataset or another shape fails with the dataset named. */
#define DEM_H5_ANY ((size_t)-1)
dem_status dem_h5_snapshot_read(const struct dem_h5_snapshot *s,
                                const char *name, enum dem_h5_type type,
                                size_t *rows, size_t *cols, void **out);
void dem_h5_snapshot_close(struct dem_h5_snapshot *s);
/* Number of snapshots in the file (the highest index + 1 when they are
 * numbered without gaps, as the writer does). */
dem_status dem_h5_snapshot_count(const char *path, size_t *n);

/* Reads a dem output file through, read-only, as a restart must before
 * it appends to it: the metadata and attributes of every object, the data
 * of every dataset but the energy series (read with dem_h5_read_energy,
 * which knows what a killed run leaves at its end) and the older
 * snapshots' (of which only the place in the file is checked), and
 * snapshots numbered 000000.. without gaps, whose steps and times it
 * returns by index. Fails with DEM_ERR_IO and "PATH: /OBJECT cannot be
 * read (REASON)". Free with dem_h5_file_check_free. */
struct dem_h5_file_check {
  size_t n_snapshots;
  long *step;
  double *time;
};
dem_status dem_h5_check_file(const char *path, struct dem_h5_file_check *out);
void dem_h5_file_check_free(struct dem_h5_file_check *c);

/* The /config text and root attributes of an output file (malloc'ed
 * strings the caller frees; pass NULL for what is not wanted). */
dem_status dem_h5_read_run_info(const char *path, char **config_text,
                                char **scheme, char **version,
                                double *time_step);

#endif
