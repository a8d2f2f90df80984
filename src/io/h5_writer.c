/* HDF5 writer: run header, energy series and snapshots, flushed after each. */
#define _DEFAULT_SOURCE /* on_exit (glibc) */
#include "io/h5io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "io/h5_writer.h"
#include "io/temp_file.h"

#ifndef DEM_VERSION_STRING
#define DEM_VERSION_STRING "unknown"
#endif

enum { ENERGY_COLUMNS = DEM_H5W_ENERGY_COLUMNS };

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The directory part of path ("." when there is none). Caller frees. */
static char *dir_name(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t len = slash ? (size_t)(slash - path) : 1;
  char *dir;
  if (slash && len == 0)
    len = 1; /* "/file" */
  dir = malloc(len + 1);
  if (!dir)
    return NULL;
  memcpy(dir, slash ? path : ".", len);
  dir[len] = '\0';
  return dir;
}

/* How the file is laid out so that a process killed between two writes
 * leaves a readable file (measured by tests/cli_kill_writes.sh and the
 * SIGKILL test in tests/test_h5io.c).
 * HDF5 writes modified metadata at each flush in no particular order, so
 * the layout keeps what a flush rewrites in place small and rarely
 * restructured:
 *  - a snapshot is built as an anonymous group and flushed while nothing
 *    on disk refers to it; a second flush after linking it into
 *    /snapshots only rewrites /snapshots' object header;
 *  - /snapshots keeps its links in its own object header (a new-style
 *    compact group, in HDF5's version 1 header, which has no checksum),
 *    sized with the file for the run's planned snapshots (at least
 *    SNAPSHOT_LINKS_MIN, at most LINKS_MAX), so that a link writes one
 *    message into the header's free space and allocates nothing. It was
 *    an old-style group (a symbol table): its node, rewritten whole at
 *    each link, put the count of links in its first page and the new
 *    entry in a later one, and its B-tree node and name heap were written
 *    in one write, so a SIGKILL that tore that write at a page boundary
 *    left /snapshots listing an empty name or finding none by name
 *    (tests/cli_h5_tear.sh). Past the header's planned links it grows by
 *    a continuation chunk (a kill at that flush too: the same test);
 *  - every other group keeps its few links in its own object header;
 *  - the sidecar's connectivity /xdmf/polyvertex_M is written unlinked
 *    with the snapshot and linked in the second flush too, into a group
 *    made like /snapshots with the file (pour_spheres, whose first
 *    snapshot has no sphere, made it after the file had its name, and a
 *    compact group's header grew at the link of each new sphere count);
 *  - the energy columns have fill values no row can hold (see h5_util.h),
 *    so rows whose data a kill kept from the file read as fill and the
 *    reader drops them, as it drops a last chunk that lies past the end
 *    of allocation the superblock records (written last in a flush);
 *  - the metadata cache is small (cheap flushes); between flushes it only
 *    needs to evict entries that are clean or not yet referenced;
 *  - the file gets its name only after the first snapshot and energy row
 *    (dem_h5w_publish): their flushes allocate the group's node and the
 *    series' chunk indexes, which pointers already on disk then refer to.
 * Measured by killing dem before each of its writes in turn
 * (tests/cli_kill_writes.sh). What remains: a flush that adds a chunk to a
 * series (every DEM_H5W_ENERGY_CHUNK energy rows, DEM_H5W_WALL_CHUNK wall
 * rows) can be cut between the chunk index and the superblock; dem's
 * readers and tools/demfile.py drop that chunk's rows. A write torn at a
 * page boundary (a SIGKILL inside it) can leave a series' index node with
 * an old last key, whose chunks dem's readers then read from the
 * addresses it lists (h5_lost_chunks.c; tests/cli_h5_tear.sh). */
enum { SNAPSHOT_LINKS_MIN = 512, LINKS_MAX = 8191 };

/* File access properties: a small metadata cache. HDF5 1.10 scans every
 * cached entry at each flush, and we flush often (with the default cache
 * of up to 32 MB a snapshot took 3 ms instead of 1.3 ms); a snapshot's
 * metadata is written once and not needed again. */
static hid_t writer_fapl(void) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5AC_cache_config_t mdc;
  const size_t max_size = 512 * 1024;
  if (fapl < 0)
    return fapl;
  memset(&mdc, 0, sizeof mdc);
  mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  if (H5Pget_mdc_config(fapl, &mdc) < 0)
    goto fail;
  mdc.set_initial_size = 1;
  mdc.initial_size = max_size / 2;
  mdc.min_size = max_size / 4;
  mdc.max_size = max_size;
  if (H5Pset_mdc_config(fapl, &mdc) < 0)
    goto fail;
  return fapl;
fail:
  H5Pclose(fapl);
  return -1;
}

/* /config, with the writer's string type, dataspace and property lists
 * (kit). */
static herr_t write_config(const struct dem_h5u_kit *kit, hid_t file,
                           const char *text) {
  hid_t t = kit->string_type;
  hid_t ds = H5Dcreate2(file, "config", t, kit->scalar, H5P_DEFAULT, kit->dcpl,
                        H5P_DEFAULT);
  if (ds < 0)
    return -1;
  herr_t rc = H5Dwrite(ds, t, H5S_ALL, H5S_ALL, kit->dxpl, &text);
  /* h5py reads string datasets as bytes; .asstr() decodes them. */
  if (rc >= 0)
    rc = dem_h5u_doc(kit, ds, "1",
                     "the configuration as run (YAML after the --set "
                     "overrides), UTF-8 text; in h5py "
                     "f['config'].asstr()[()]");
  if (H5Dclose(ds) < 0)
    rc = -1;
  return rc;
}

/* Root attributes (with what they are: an attribute has no attributes of
 * its own), /config, /shapes, /energy and /snapshots. */
static herr_t write_header(struct dem_h5_writer *w,
                           const struct dem_h5_run_info *info) {
  const char *version = info->version ? info->version : DEM_VERSION_STRING;
  const char *scheme = info->scheme ? info->scheme : "";
  const char *config = info->config_text ? info->config_text : "";
  if (dem_h5u_string_attr(w->file, "dem_version", version) < 0 ||
      dem_h5u_attr(w->file, "time_step", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                   &info->time_step) < 0 ||
      dem_h5u_string_attr(w->file, "time_step_unit", "s") < 0 ||
      dem_h5u_string_attr(w->file, "scheme", scheme) < 0 ||
      dem_h5u_string_attr(
          w->file, "description",
          "a dem run: /config the configuration as run, /shapes the clump "
          "templates, /energy the energy series, /walls the loads on the "
          "walls, /meshes the mesh walls, /snapshots/NNNNNN the states (SI "
          "units; every dataset has "
          "'unit' and 'description' "
          "attributes; docs/output.md)") < 0 ||
      write_config(&w->kit, w->file, config) < 0 ||
      dem_h5w_write_shapes(w->file, info->shapes, info->n_shapes) < 0 ||
      dem_h5w_create_energy(w) < 0 || dem_h5w_create_walls(w, info) < 0 ||
      dem_h5w_write_meshes(w->file, info->meshes, info->n_meshes) < 0)
    return -1;
  long links = info->snapshots_planned + 2; /* and a restart's first */
  w->snapshots = dem_h5w_linking_group(
      w->file, "snapshots",
      links < SNAPSHOT_LINKS_MIN ? SNAPSHOT_LINKS_MIN : links, 6);
  if (w->snapshots < 0)
    return -1;
  /* /xdmf too, now: made at the first snapshot with spheres (in a pour,
   * after the file has its name), its allocations could be cut by a kill
   * past the end of the file that HDF5 records. A snapshot links at most
   * one polyvertex_M (a new sphere count). */
  hid_t xdmf = dem_h5w_linking_group(
      w->file, "xdmf", info->snapshots_planned + 1, DEM_H5W_XDMF_NAME_LEN);
  if (xdmf < 0 || H5Gclose(xdmf) < 0)
    return -1;
  return H5Fflush(w->file, H5F_SCOPE_GLOBAL);
}

hid_t dem_h5w_linking_group(hid_t file, const char *name, long names,
                            unsigned name_len) {
  hid_t gcpl = dem_h5u_untimed(H5P_GROUP_CREATE), g = -1;
  if (names < 0 || names > LINKS_MAX)
    names = LINKS_MAX;
  /* Tracking the links' creation order is what makes HDF5 1.10 give the
   * group link messages in its header (new-style) rather than a symbol
   * table; compact up to HDF5's most, in a header presized for `names`
   * links of names of name_len bytes. */
  if (gcpl >= 0 &&
      H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED) >= 0 &&
      H5Pset_link_phase_change(gcpl, 65535, 65534) >= 0 &&
      H5Pset_est_link_info(gcpl, (unsigned)(names > 0 ? names : 1), name_len) >=
          0)
    g = H5Gcreate2(file, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
  if (gcpl >= 0)
    H5Pclose(gcpl);
  return g;
}

/* HDF5 1.10 keeps the identifier of a file whose close failed (its last
 * flush hit a full disk) but frees what it refers to, and its clean-up at
 * exit closes it again and crashes (SIGSEGV in H5F__close_cb). After such
 * a failure the process skips that clean-up: a handler registered after
 * HDF5's runs before it, flushes stdio and ends the process with the
 * status it was given. */
#ifdef __GLIBC__
static void exit_before_hdf5(int status, void *arg) {
  (void)arg;
  fflush(NULL);
  _exit(status);
}
#endif
static void skip_hdf5_cleanup(void) {
  static int registered;
  if (registered)
    return;
  registered = 1;
#ifdef __GLIBC__
  on_exit(exit_before_hdf5, NULL);
#endif
}

/* Closes every HDF5 handle of w (ignoring errors unless it is the file)
 * and frees it. Returns the H5Fclose result. */
static herr_t writer_free(struct dem_h5_writer *w) {
  herr_t rc = 0;
  for (int c = 0; c < ENERGY_COLUMNS; c++)
    if (w->energy[c] >= 0)
      H5Dclose(w->energy[c]);
  dem_h5w_close_walls(w);
  dem_h5u_kit_close(&w->kit);
  if (w->snapshots >= 0)
    H5Gclose(w->snapshots);
  if (w->file >= 0 && (rc = H5Fclose(w->file)) < 0)
    skip_hdf5_cleanup();
  if (w->publish_tmp) /* never given its name: a failed start */
    remove(w->publish_tmp);
  free(w->publish_tmp);
  free(w->path);
  free(w->xmf_path);
  dem_xdmf_text_free(&w->xdmf);
  free(w);
  return rc;
}

/* Reserves a fresh hidden name beside path ("DIR/.NAME.XXXXXX") by
 * creating it exclusively, so the directory's own error (permissions,
 * missing) is reported with the operating system's words. */
static dem_status make_temp(const char *path, char **out) {
  int fd = dem_temp_create(path, out);
  if (fd >= 0) {
    close(fd);
    return DEM_OK;
  }
  int err = errno;
  if (err == ENOMEM)
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", path);
  char *dir = dir_name(path);
  dem_status st =
      dem_fail(DEM_ERR_IO, "%s: cannot create file in directory '%s' (%s)",
               path, dir ? dir : ".", strerror(err));
  free(dir);
  return st;
}

/* Gives the complete temporary file tmp the name path only if nothing
 * has it (link, then unlink the temporary name); on file systems without
 * hard links, a rename after a last look. */
static int link_new(const char *tmp, const char *path) {
  struct stat sb;
  if (link(tmp, path) == 0) {
    unlink(tmp); /* a stray second name at worst */
    return 0;
  }
  if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP &&
      errno != EMLINK)
    return -1;
  if (lstat(path, &sb) == 0) {
    errno = EEXIST;
    return -1;
  }
  return rename(tmp, path);
}

char *dem_h5_sidecar_path(const char *path) { return dem_xdmf_path(path); }

/* A writer with no file open yet, holding its path and sidecar path. */
static dem_status writer_new(const char *path, struct dem_h5_writer **out) {
  struct dem_h5_writer *w = calloc(1, sizeof *w);
  if (!w)
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", path);
  w->file = w->snapshots = -1;
  for (int c = 0; c < ENERGY_COLUMNS; c++)
    w->energy[c] = -1;
  w->path = strdup(path);
  w->xmf_path = dem_xdmf_path(path);
  if (dem_h5u_kit_open(&w->kit) < 0) {
    dem_status st = dem_h5u_fail(path, "cannot set up the writer");
    writer_free(w);
    return st;
  }
  if (!w->path || !w->xmf_path) {
    writer_free(w);
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", path);
  }
  w->h5_name = base_name(w->path);
  *out = w;
  return DEM_OK;
}

dem_status dem_h5_create(const char *path, int force,
                         const struct dem_h5_run_info *info,
                         struct dem_h5_writer **out) {
  struct dem_h5_writer *w;
  struct stat sb;
  char *tmp = NULL;
  hid_t fcpl, fapl;
  dem_status st;

  *out = NULL;
  dem_h5u_quiet();
  if (!path || !path[0] || !info)
    return dem_fail(DEM_ERR_INTERNAL, "dem_h5_create: no path or run info");
  if (stat(path, &sb) == 0) {
    if (S_ISDIR(sb.st_mode))
      return dem_fail(DEM_ERR_IO, "%s: is a directory", path);
    if (!force)
      return dem_fail(DEM_ERR_IO, "%s: exists (use --force to overwrite)",
                      path);
  }
  if ((st = writer_new(path, &w)))
    return st;
  w->xdmf_attrs = info->xdmf;
  w->n_xdmf = info->n_xdmf;
  if ((st = dem_xdmf_set_meshes(&w->xdmf, info->meshes, info->n_meshes))) {
    writer_free(w);
    return st;
  }

  st = make_temp(path, &tmp);
  if (st != DEM_OK) {
    writer_free(w);
    return st;
  }
  fcpl = dem_h5u_untimed(H5P_FILE_CREATE);
  if (fcpl < 0) {
    st = dem_h5u_fail(path, "cannot set up file creation");
    goto fail;
  }
  fapl = writer_fapl();
  if (fapl < 0) {
    H5Pclose(fcpl);
    st = dem_h5u_fail(path, "cannot set up file access");
    goto fail;
  }
  w->file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
  H5Pclose(fcpl);
  H5Pclose(fapl);
  if (w->file < 0) { /* HDF5 keeps a half-made file that its exit
                      * clean-up cannot close ("infinite loop") */
    skip_hdf5_cleanup();
    st = dem_h5u_fail(path, "cannot create");
    goto fail;
  }
  if (write_header(w, info) < 0) {
    st = dem_h5u_fail(path, "cannot write the run header");
    goto fail;
  }
  /* The file gets its name once the first snapshot is on disk
   * (dem_h5w_publish): the structures a snapshot and an energy row first
   * allocate are then in place, and the flushes that allocate them, which
   * a kill could cut between a pointer and the space it points to, are
   * done while nothing has the file's name. */
  w->publish_tmp = tmp;
  w->publish_force = force;
  *out = w;
  return DEM_OK;

fail:
  writer_free(w);
  remove(tmp);
  free(tmp);
  return st;
}

dem_status dem_h5w_publish(struct dem_h5_writer *w) {
  const char *tmp = w->publish_tmp;
  dem_status st;
  if (!tmp)
    return DEM_OK;
  /* The open file follows the rename or link; HDF5 only uses its
   * descriptor. Without force the name is taken exclusively (link fails
   * if anything appeared there since the check), so another process's
   * new file is never replaced. */
  if (w->publish_force ? rename(tmp, w->path) != 0
                       : link_new(tmp, w->path) != 0) {
    st = errno == EEXIST
             ? dem_fail(DEM_ERR_IO, "%s: exists (use --force to overwrite)",
                        w->path)
             : dem_fail(DEM_ERR_IO, "%s: cannot create (%s)", w->path,
                        strerror(errno));
    return st;
  }
  free(w->publish_tmp);
  w->publish_tmp = NULL;
  if (remove(w->xmf_path) != 0 && errno != ENOENT)
    return dem_fail(DEM_ERR_IO, "%s: cannot remove the old sidecar (%s)",
                    w->xmf_path, strerror(errno));
  return DEM_OK;
}

/* Replaces the root attributes and /config with those of the continued
 * run. */
static herr_t rewrite_header(const struct dem_h5u_kit *kit, hid_t file,
                             const struct dem_h5_run_info *info) {
  static const char *const attrs[] = {"dem_version", "time_step", "scheme"};
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
    if (H5Aexists(file, attrs[i]) > 0 && H5Adelete(file, attrs[i]) < 0)
      return -1;
  if (H5Lexists(file, "config", H5P_DEFAULT) > 0 &&
      H5Ldelete(file, "config", H5P_DEFAULT) < 0)
    return -1;
  const char *version = info->version ? info->version : DEM_VERSION_STRING;
  const char *scheme = info->scheme ? info->scheme : "";
  const char *config = info->config_text ? info->config_text : "";
  if (dem_h5u_string_attr(file, "dem_version", version) < 0 ||
      dem_h5u_attr(file, "time_step", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                   &info->time_step) < 0 ||
      dem_h5u_string_attr(file, "scheme", scheme) < 0 ||
      write_config(kit, file, config) < 0)
    return -1;
  return 0;
}

dem_status dem_h5_open_append(const char *path, long last_step,
                              const struct dem_h5_run_info *info,
                              struct dem_h5_writer **out) {
  struct dem_h5_writer *w;
  struct stat sb;
  hid_t fapl;
  dem_status st;

  *out = NULL;
  dem_h5u_quiet();
  if (!path || !path[0] || !info)
    return dem_fail(DEM_ERR_INTERNAL, "dem_h5_open_append: no path or info");
  if (stat(path, &sb) != 0)
    return dem_fail(DEM_ERR_IO, "%s: %s", path, strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return dem_fail(DEM_ERR_IO, "%s: is a directory", path);
  if ((st = writer_new(path, &w)))
    return st;
  w->xdmf_attrs = info->xdmf;
  w->n_xdmf = info->n_xdmf;
  if ((st = dem_xdmf_set_meshes(&w->xdmf, info->meshes, info->n_meshes))) {
    writer_free(w);
    return st;
  }
  fapl = writer_fapl();
  if (fapl < 0) {
    st = dem_h5u_fail(path, "cannot set up file access");
    goto fail;
  }
  w->file = H5Fopen(path, H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  if (w->file < 0) {
    st = dem_h5u_fail(path, "cannot open for appending");
    goto fail;
  }
  if (H5Aexists(w->file, "dem_version") <= 0) {
    st = dem_fail(DEM_ERR_IO,
                  "%s: not a dem output file (no dem_version attribute)", path);
    goto fail;
  }
  /* A run killed in the middle of a flush may have left structures that
   * point past the end of allocation the superblock records (the
   * superblock is written last): take in what reached the file, so they
   * read and nothing new is allocated over them. */
  if (H5Fincrement_filesize(w->file, 0) < 0) {
    st = dem_h5u_fail(path, "cannot open for appending");
    goto fail;
  }
  w->snapshots = H5Gopen2(w->file, "snapshots", H5P_DEFAULT);
  if (w->snapshots < 0) {
    st =
        dem_fail(DEM_ERR_IO, "%s: not a dem output file (no /snapshots)", path);
    goto fail;
  }
  if ((st = dem_h5w_load_frames(w)) != DEM_OK ||
      (st = dem_h5w_check_room(w, info)) ||
      (st = dem_h5w_open_energy(w, last_step)) ||
      (st = dem_h5w_open_walls(w, info, w->energy_rows)))
    goto fail;
  if (rewrite_header(&w->kit, w->file, info) < 0 ||
      dem_h5w_write_meshes(w->file, info->meshes, info->n_meshes) < 0 ||
      H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0) {
    st = dem_h5u_fail(path, "cannot rewrite the run header");
    goto fail;
  }
  *out = w;
  return DEM_OK;
fail:
  writer_free(w);
  return st;
}

dem_status dem_h5_close(struct dem_h5_writer *w) {
  char *path;
  dem_status st = DEM_OK;
  dem_h5u_quiet();
  if (!w)
    return DEM_OK;
  path = strdup(w->path);
  /* A run that ended before its first snapshot keeps its header too. */
  st = dem_h5w_publish(w);
  if (st == DEM_OK)
    st = dem_h5w_write_sidecar(w);
  if (writer_free(w) < 0 && st == DEM_OK)
    st = dem_h5u_fail(path ? path : "(output file)", "cannot close");
  free(path);
  return st;
}
