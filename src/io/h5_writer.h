/* Internal to the HDF5 writer: the writer's state and the helpers its
 * files share (io/h5_writer.c: the file, its header and energy series;
 * io/h5_shapes.c: the shapes in the header; io/h5_snapshot.c: snapshots
 * and the sidecar's frames). */
#ifndef DEM_H5_WRITER_H
#define DEM_H5_WRITER_H

#include <hdf5.h>

#include "io/h5_util.h"
#include "io/h5io.h"
#include "io/xdmf.h"

enum {
  DEM_H5W_ENERGY_COLUMNS = DEM_H5U_ENERGY_N,
  DEM_H5W_ENERGY_CHUNK = 1024,
  DEM_H5W_WALL_CHUNK = 64 /* rows per chunk of a wall's series: 1.5 kB */
};

struct dem_h5_writer {
  hid_t file, snapshots;
  hid_t energy[DEM_H5W_ENERGY_COLUMNS];
  hsize_t energy_rows;
  char *path, *xmf_path;
  /* Until the first snapshot is on disk the file has a hidden name
   * (publish_tmp; NULL once it has its own), see dem_h5w_publish. */
  char *publish_tmp;
  int publish_force;
  const char *h5_name; /* basename of path, as the sidecar refers to it */
  size_t n_snapshots;
  struct dem_xdmf_text xdmf;                   /* the sidecar's grids so far */
  const struct dem_xdmf_attribute *xdmf_attrs; /* the run's, not owned */
  size_t n_xdmf;
  /* The sidecar on disk lacks frames (it is rewritten whole, so at most
   * about once a second: io/h5_snapshot.c), and when it was written. */
  int xmf_stale;
  double xmf_written_at;
  hid_t *walls; /* per wall its force and torque series (2 n_walls) */
  size_t n_walls;
  struct dem_h5u_kit kit; /* for the snapshots' datasets */
};

/* A group that snapshots link into, one link at a time: its links in its
 * object header, presized for `names` links (< 0: the most, 8191) of
 * names of name_len bytes, so that a link writes one message into the
 * header and allocates nothing (io/h5_writer.c). Open; caller closes. */
hid_t dem_h5w_linking_group(hid_t file, const char *name, long names,
                            unsigned name_len);

/* The length of /xdmf's names, polyvertex_M (M up to 9 digits). */
enum { DEM_H5W_XDMF_NAME_LEN = 20 };

/* Gives a new file its name (once; nothing to do after): called when the
 * first snapshot is on disk, or at close (io/h5_writer.c). */
dem_status dem_h5w_publish(struct dem_h5_writer *w);

/* Fails (DEM_ERR_IO) unless the file system of w's file has room for what
 * a restart writes first: the run header of info, a block of energy rows
 * and two snapshots like the file's last (io/h5_check.c). */
dem_status dem_h5w_check_room(struct dem_h5_writer *w,
                              const struct dem_h5_run_info *info);

/* Fails (DEM_ERR_IO, "PATH: WHAT (No space left on device: ...)") when
 * the file system of w's file has less than `bytes` free: a write that
 * runs out of room part way can leave HDF5's metadata pointing past the
 * file's end (unreadable), so what grows the file is checked first
 * (io/h5_check.c). */
dem_status dem_h5w_need_room(const struct dem_h5_writer *w,
                             unsigned long long bytes, const char *what);

/* /meshes/NAME/{vertices,triangles} of each mesh wall (none: nothing;
 * kept if the file has them already) (io/h5_meshes.c). */
herr_t dem_h5w_write_meshes(hid_t file, const struct dem_h5_mesh *meshes,
                            size_t n);

/* /energy with its empty, chunked, extendible columns, kept open in w
 * (io/h5_energy.c). */
herr_t dem_h5w_create_energy(struct dem_h5_writer *w);

/* Opens the /energy columns of a file to continue (adding, zero so far,
 * a column an older dem did not write) and drops the rows after
 * last_step (io/h5_energy.c). */
dem_status dem_h5w_open_energy(struct dem_h5_writer *w, long last_step);

/* /walls with a group per wall of info and its empty series, kept open
 * in w (io/h5_walls.c; nothing without walls). */
herr_t dem_h5w_create_walls(struct dem_h5_writer *w,
                            const struct dem_h5_run_info *info);

/* Opens the walls' series of a file to continue, `rows` rows kept
 * (adding, NaN so far, those an older dem did not write). */
dem_status dem_h5w_open_walls(struct dem_h5_writer *w,
                              const struct dem_h5_run_info *info, hsize_t rows);

/* Closes the walls' series and frees their handles. */
void dem_h5w_close_walls(struct dem_h5_writer *w);

/* Writes the sidecar if it lacks frames (at close, and at a snapshot
 * when a second has passed since it was last written). */
dem_status dem_h5w_write_sidecar(struct dem_h5_writer *w);

/* Rebuilds the sidecar's frame list from the file's snapshots (to append
 * to a run). */
dem_status dem_h5w_load_frames(struct dem_h5_writer *w);

/* Writes /shapes, the table of the n shapes (io/h5_shapes.c; nothing when
 * n is 0). */
herr_t dem_h5w_write_shapes(hid_t file, const struct dem_h5_shape *shapes,
                            size_t n);

#endif
