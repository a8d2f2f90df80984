/* Checking a dem output file before a restart appends to it: it must read
 * back whole, so that a damaged file is refused rather than extended, and
 * its file system must have room for what the restart writes first. */
#include "io/h5io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <hdf5.h>

#include "io/h5_util.h"
#include "io/h5_writer.h"

struct walk {
  const char *path;
  hsize_t file_size;
  long last; /* index of the last snapshot */
  struct dem_h5_file_check *out;
  char bad[600];   /* what is damaged ("" while all reads) */
  const char *own; /* set when dem's own check failed, not an HDF5 call */
};

/* Whether a stored type is one of those dem writes (strings, and little-
 * endian integers and IEEE floats): a damaged type description can still
 * convert in the C library yet not be readable elsewhere (h5py). */
static int standard_type(hid_t t) {
  const hid_t known[] = {H5T_IEEE_F64LE, H5T_IEEE_F32LE, H5T_STD_I64LE,
                         H5T_STD_I32LE,  H5T_STD_I16LE,  H5T_STD_I8LE,
                         H5T_STD_U64LE,  H5T_STD_U32LE,  H5T_STD_U16LE,
                         H5T_STD_U8LE};
  if (t < 0)
    return 0;
  /* A string in a character set HDF5 does not define (a flipped bit of
   * its header: HDF5 reads it, h5py refuses it) is not one dem wrote. */
  if (H5Tget_class(t) == H5T_STRING) {
    H5T_cset_t cset = H5Tget_cset(t);
    return cset == H5T_CSET_ASCII || cset == H5T_CSET_UTF8;
  }
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (H5Tequal(t, known[i]) > 0)
      return 1;
  return 0;
}

/* Reads a dataset's or attribute's whole value in its native type (and
 * gives back what HDF5 allocated for variable-length data). */
static herr_t read_value(hid_t obj, int is_attr) {
  hid_t ftype = is_attr ? H5Aget_type(obj) : H5Dget_type(obj);
  hid_t space = is_attr ? H5Aget_space(obj) : H5Dget_space(obj);
  hid_t mtype = ftype >= 0 ? H5Tget_native_type(ftype, H5T_DIR_DEFAULT) : -1;
  hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  size_t size = mtype >= 0 ? H5Tget_size(mtype) : 0;
  herr_t rc = -1;
  if (n >= 0 && size > 0 && standard_type(ftype)) {
    void *buf = calloc(n ? (size_t)n : 1, size);
    if (buf) {
      rc = is_attr ? H5Aread(obj, mtype, buf)
                   : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
      if (rc >= 0 && (H5Tdetect_class(mtype, H5T_VLEN) > 0 ||
                      H5Tis_variable_str(mtype) > 0))
        H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, buf);
      free(buf);
    }
  }
  if (mtype >= 0)
    H5Tclose(mtype);
  if (space >= 0)
    H5Sclose(space);
  if (ftype >= 0)
    H5Tclose(ftype);
  return rc;
}

static herr_t check_attr(hid_t loc, const char *name, const H5A_info_t *info,
                         void *data) {
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  herr_t rc = a >= 0 ? read_value(a, 1) : -1;
  (void)info;
  (void)data;
  if (a >= 0)
    H5Aclose(a);
  return rc;
}

/* The snapshot index of "snapshots/NNNNNN[/...]", or -1. */
static long snapshot_of(const char *name) {
  char *end;
  if (strncmp(name, "snapshots/", 10) != 0)
    return -1;
  long i = strtol(name + 10, &end, 10);
  return end == name + 16 && (*end == '\0' || *end == '/') ? i : -1;
}

/* Whether a contiguous dataset's data lies inside the file and has the
 * size its shape and type say. */
static int inside(hid_t ds, hsize_t file_size) {
  haddr_t at = H5Dget_offset(ds);
  if (at == HADDR_UNDEF) /* chunked, compact or not written: read instead */
    return read_value(ds, 0) >= 0;
  hsize_t stored = H5Dget_storage_size(ds);
  hid_t space = H5Dget_space(ds), type = H5Dget_type(ds);
  hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  size_t size = type >= 0 ? H5Tget_size(type) : 0;
  if (space >= 0)
    H5Sclose(space);
  if (type >= 0)
    H5Tclose(type);
  return n >= 0 && (hsize_t)n * size == stored && at + stored <= file_size;
}

/* Whether an energy column is what the writer appends to: 1-D, with no
 * limit on its length. */
static int extendible(hid_t ds) {
  hsize_t dims = 0, maxdims = 0;
  hid_t sp = H5Dget_space(ds);
  int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
           H5Sget_simple_extent_dims(sp, &dims, &maxdims) == 1 &&
           maxdims == H5S_UNLIMITED;
  if (sp >= 0)
    H5Sclose(sp);
  return ok;
}

/* Whether a dataset is one of the series appended to, /energy's and
 * /walls': a killed run may leave a chunk past their end, so their data is
 * read by dem_h5_read_energy and dem_h5_check_walls, up to the rows a
 * restart keeps. */
static int series(const char *name) {
  return strncmp(name, "energy/", 7) == 0 || strncmp(name, "walls/", 6) == 0;
}

/* Whether a group's creation properties (its link and group info
 * messages, which h5py reads to open it) can be read. */
static int group_header_reads(hid_t g) {
  hid_t p = H5Gget_create_plist(g);
  if (p < 0)
    return 0;
  H5Pclose(p);
  return 1;
}

/* A snapshot group's step and time, kept by index. */
static herr_t note_snapshot(struct walk *w, hid_t g, long index) {
  struct dem_h5_file_check *c = w->out;
  hid_t a;
  herr_t rc = -1;
  if (index < 0 || (size_t)index >= c->n_snapshots)
    return -1;
  if ((a = H5Aopen(g, "step", H5P_DEFAULT)) >= 0) {
    rc = H5Aread(a, H5T_NATIVE_LONG, &c->step[index]);
    H5Aclose(a);
  }
  if (rc >= 0 && (a = H5Aopen(g, "time", H5P_DEFAULT)) >= 0) {
    rc = H5Aread(a, H5T_NATIVE_DOUBLE, &c->time[index]);
    H5Aclose(a);
  } else {
    rc = -1;
  }
  return rc;
}

/* Every object (visited with all its information, which walks its chunk
 * index and attribute storage): its attributes read; a dataset's data
 * read, except the series (energy and walls: see series()) and older
 * snapshots' data, of which only the
 * place in the file is checked (restart reads the last one; raw data
 * carries no checksum to check anyway). */
static herr_t visit(hid_t file, const char *name, const H5O_info_t *info,
                    void *data) {
  struct walk *w = data;
  long snap = snapshot_of(name);
  const char *why = NULL; /* what is wrong; HDF5's reason is added */
  hid_t obj = H5Oopen(file, name, H5P_DEFAULT);
  if (obj < 0)
    why = "cannot be opened";
  else if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, check_attr,
                       NULL) < 0)
    why = "has an attribute that cannot be read";
  else if (info->type == H5O_TYPE_GROUP && !group_header_reads(obj))
    why = "has a header that cannot be read";
  else if (info->type == H5O_TYPE_GROUP && snap >= 0 && strlen(name) == 16 &&
           note_snapshot(w, obj, snap) < 0)
    why = "lacks its step or time";
  else if (info->type == H5O_TYPE_DATASET) {
    hid_t t = H5Dget_type(obj);
    int known = standard_type(t);
    if (t >= 0)
      H5Tclose(t);
    if (!known)
      w->own = why = "has a type dem does not write";
    else if (strncmp(name, "energy/", 7) == 0 && !extendible(obj))
      w->own = why = "is not an extendible 1-D dataset";
    else if (snap >= 0 && snap != w->last && !inside(obj, w->file_size))
      w->own = why = "has data outside the file or of another size than "
                     "its shape";
    else if ((snap < 0 || snap == w->last) && !series(name) &&
             read_value(obj, 0) < 0)
      why = "cannot be read";
  }
  if (obj >= 0)
    H5Oclose(obj);
  if (why)
    snprintf(w->bad, sizeof w->bad, "/%s %s", name, why);
  return why ? -1 : 0;
}

/* The snapshot names: NNNNNN, from 000000 without gaps. */
static dem_status list_snapshots(struct walk *w, hid_t file) {
  H5G_info_t gi;
  hid_t g = H5Gopen2(file, "snapshots", H5P_DEFAULT);
  dem_status st = DEM_OK;
  if (g < 0 || H5Gget_info(g, &gi) < 0) {
    if (g >= 0)
      H5Gclose(g);
    return dem_h5u_fail(w->path, "cannot list /snapshots");
  }
  struct dem_h5_file_check *c = w->out;
  c->n_snapshots = (size_t)gi.nlinks;
  c->step = calloc(c->n_snapshots + 1, sizeof *c->step);
  c->time = calloc(c->n_snapshots + 1, sizeof *c->time);
  if (!c->step || !c->time)
    st = dem_fail(DEM_ERR_NOMEM, "%s: out of memory", w->path);
  for (hsize_t i = 0; !st && i < gi.nlinks; i++) {
    char name[32];
    snprintf(name, sizeof name, "%06zu", (size_t)i);
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
      st = dem_fail(DEM_ERR_IO,
                    "%s: snapshots are not numbered 000000 to %06zu without "
                    "gaps (no %s)",
                    w->path, (size_t)gi.nlinks - 1, name);
  }
  w->last = (long)gi.nlinks - 1;
  H5Gclose(g);
  return st;
}

void dem_h5_file_check_free(struct dem_h5_file_check *c) {
  free(c->step);
  free(c->time);
  memset(c, 0, sizeof *c);
}

dem_status dem_h5_check_file(const char *path, struct dem_h5_file_check *out) {
  struct walk w = {.path = path, .out = out};
  struct stat sb;
  hid_t fapl, file;
  dem_status st;
  memset(out, 0, sizeof *out);
  dem_h5u_quiet();
  if (stat(path, &sb) != 0)
    return dem_fail(DEM_ERR_IO, "%s: %s", path, strerror(errno));
  w.file_size = (hsize_t)sb.st_size;
  if ((fapl = dem_h5u_read_fapl()) < 0)
    return dem_h5u_fail(path, "cannot set up file access");
  file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  if (file < 0)
    return dem_h5u_fail(path, "cannot open as HDF5");
  if (H5Aexists(file, "dem_version") <= 0)
    st = dem_fail(DEM_ERR_IO,
                  "%s: not a dem output file (no dem_version attribute)", path);
  else if (!(st = list_snapshots(&w, file)) &&
           H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, visit, &w,
                     H5O_INFO_ALL) < 0)
    st = w.own      ? dem_fail(DEM_ERR_IO, "%s: %s", path, w.bad)
         : w.bad[0] ? dem_h5u_fail(path, w.bad)
                    : dem_h5u_fail(path, "cannot walk its objects");
  H5Fclose(file);
  if (st)
    dem_h5_file_check_free(out);
  return st;
}

/* H5Ovisit callback: adds the bytes each dataset stores. */
static herr_t add_storage(hid_t g, const char *name, const H5O_info_t *info,
                          void *data) {
  if (info->type == H5O_TYPE_DATASET) {
    hid_t ds = H5Dopen2(g, name, H5P_DEFAULT);
    if (ds < 0)
      return -1;
    *(hsize_t *)data += H5Dget_storage_size(ds);
    H5Dclose(ds);
  }
  return 0;
}

/* Bytes free on the file system of w's file; 0 and *known = 0 when
 * statvfs cannot tell. */
static unsigned long long bytes_free(const struct dem_h5_writer *w,
                                     int *known) {
  struct statvfs fs;
  char *dir;
  const char *slash = strrchr(w->path, '/');
  *known = 0;
  if (!(dir = strdup(slash ? w->path : ".")))
    return 0;
  if (slash)
    dir[slash == w->path ? 1 : slash - w->path] = '\0';
  int rc = statvfs(dir, &fs);
  free(dir);
  if (rc != 0)
    return 0;
  *known = 1;
  return (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_frsize;
}

dem_status dem_h5w_need_room(const struct dem_h5_writer *w,
                             unsigned long long bytes, const char *what) {
  int known;
  unsigned long long avail = bytes_free(w, &known);
  if (!known || avail >= bytes) /* no figure to go by: the writes will tell */
    return DEM_OK;
  return dem_fail(DEM_ERR_IO,
                  "%s: %s (No space left on device: %llu bytes free, about "
                  "%llu needed; the file holds everything before)",
                  w->path, what, avail, bytes);
}

/* A restart first rewrites the run header in place, which a full disk
 * would leave half done (the old /config and attributes gone, the new
 * ones not written): it starts only with room for the header, a block of
 * energy rows and two snapshots like the last one. Another process can
 * still fill the disk in the meantime; a snapshot that does not fit
 * later fails before it is linked, leaving the file as it was. */
dem_status dem_h5w_check_room(struct dem_h5_writer *w,
                              const struct dem_h5_run_info *info) {
  hsize_t snapshot = 0;
  char name[32];
  if (w->n_snapshots) {
    snprintf(name, sizeof name, "%06zu", w->n_snapshots - 1);
    hid_t g = H5Gopen2(w->snapshots, name, H5P_DEFAULT);
    herr_t rc = g < 0 ? -1
                      : H5Ovisit2(g, H5_INDEX_NAME, H5_ITER_NATIVE, add_storage,
                                  &snapshot, H5O_INFO_BASIC);
    if (g >= 0)
      H5Gclose(g);
    if (rc < 0)
      return dem_h5u_fail(w->path, "cannot read the last snapshot");
  }
  unsigned long long need =
      2ull * (info->config_text ? strlen(info->config_text) : 0) + 65536ull +
      (unsigned long long)DEM_H5W_ENERGY_COLUMNS * DEM_H5W_ENERGY_CHUNK * 8 +
      (unsigned long long)info->n_walls * 2 * DEM_H5W_WALL_CHUNK * 3 * 8 +
      2ull * snapshot;
  int known;
  unsigned long long avail = bytes_free(w, &known);
  if (known && avail < need)
    return dem_fail(DEM_ERR_IO,
                    "%s: no room to continue the run: %llu bytes free on its "
                    "file system, a restart needs %llu (the run header, a "
                    "block of energy and walls' rows and two snapshots); free "
                    "some space and restart again (the file was left as it "
                    "was)",
                    w->path, avail, need);
  return DEM_OK;
}
