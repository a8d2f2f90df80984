/* HDF5 snapshots: the columns of one snapshot group, written unlinked and
 * linked once complete, and the XDMF sidecar's frames. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/h5_writer.h"

/* The sidecar is rewritten whole (a file ParaView reads must be complete,
 * so it is replaced, not appended to): at every snapshot its size, and so
 * the run's cost, would grow with the square of the snapshots (the rods
 * box's 200 snapshots: 60 MB written, a third of the run). At most once
 * this often instead, and at close; the first snapshot always. */
#define SIDECAR_EVERY_S 1.0

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

dem_status dem_h5w_write_sidecar(struct dem_h5_writer *w) {
  if (!w->xmf_stale)
    return DEM_OK;
  dem_status st = dem_xdmf_write(w->xmf_path, &w->xdmf);
  if (st == DEM_OK) {
    w->xmf_stale = 0;
    w->xmf_written_at = seconds_now();
  }
  return st;
}

static hid_t file_type_of(enum dem_h5_type t) {
  return t == DEM_H5_F64   ? H5T_IEEE_F64LE
         : t == DEM_H5_I32 ? H5T_STD_I32LE
                           : H5T_STD_I64LE;
}

static hid_t mem_type_of(enum dem_h5_type t) {
  return t == DEM_H5_F64   ? H5T_NATIVE_DOUBLE
         : t == DEM_H5_I32 ? H5T_NATIVE_INT
                           : H5T_NATIVE_INT64;
}

static size_t type_size(enum dem_h5_type t) {
  return t == DEM_H5_F64   ? sizeof(double)
         : t == DEM_H5_I32 ? sizeof(int)
                           : sizeof(int64_t);
}

/* Rows gathered into a buffer of at most this many bytes (or one row)
 * and written a slab at a time: a copy of a whole column (1.4 MB for the
 * positions of 60,000 spheres) was a share of the run's peak memory. */
enum { SLAB_BYTES = 128 * 1024 };

/* One column as dataset `name` of group g: straight from the array when
 * its rows are in order, else gathered a slab at a time. */
static herr_t write_column(const struct dem_h5u_kit *kit, hid_t g,
                           const char *name, const struct dem_h5_column *f) {
  hid_t mem = mem_type_of(f->type);
  if (!(f->order || f->row) || !f->rows)
    return dem_h5u_write_array(kit, g, name, file_type_of(f->type), mem,
                               f->rows, f->cols, f->data, f->unit,
                               f->description);
  size_t item = (f->cols ? f->cols : 1) * type_size(f->type);
  size_t slab = SLAB_BYTES / item ? SLAB_BYTES / item : 1;
  if (slab > f->rows)
    slab = f->rows;
  char *buf = malloc(slab * item);
  hid_t ds =
      buf ? dem_h5u_create_array(kit, g, name, file_type_of(f->type), f->rows,
                                 f->cols, f->unit, f->description)
          : -1;
  herr_t rc = ds < 0 ? -1 : 0;
  for (size_t k0 = 0; k0 < f->rows && rc >= 0; k0 += slab) {
    size_t n = f->rows - k0 < slab ? f->rows - k0 : slab;
    for (size_t k = 0; k < n; k++) {
      size_t i = f->order ? f->order[k0 + k] : k0 + k;
      if (f->row)
        f->row(f->ctx, i, buf + k * item);
      else
        memcpy(buf + k * item, (const char *)f->data + i * item, item);
    }
    /* One slab for all rows: no selections to make. */
    rc = n == f->rows ? H5Dwrite(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf)
                      : dem_h5u_write_rows(ds, k0, n, f->cols, mem, buf);
  }
  if (ds >= 0 && H5Dclose(ds) < 0)
    rc = -1;
  free(buf);
  return rc;
}

/* The sub-groups of a snapshot being written ("bodies", "spheres", ...),
 * each made once and kept open while its columns are written (a look-up
 * and an open per column cost more than the group). */
enum { MAX_SUBGROUPS = 16, SUBGROUP_NAME = 64 };
struct subgroups {
  size_t n;
  char name[MAX_SUBGROUPS][SUBGROUP_NAME];
  hid_t id[MAX_SUBGROUPS];
};

/* The group of a column path ("bodies" of "bodies/mass") in g, made at
 * its first column; *name is set to the part after it. */
static hid_t column_group(const struct dem_h5u_kit *kit, hid_t g,
                          struct subgroups *sg, const char *path,
                          const char **name) {
  const char *slash = strchr(path, '/');
  size_t len = slash ? (size_t)(slash - path) : 0;
  if (!slash || len >= SUBGROUP_NAME)
    return -1;
  *name = slash + 1;
  for (size_t k = 0; k < sg->n; k++)
    if (strncmp(sg->name[k], path, len) == 0 && sg->name[k][len] == '\0')
      return sg->id[k];
  if (sg->n == MAX_SUBGROUPS)
    return -1;
  memcpy(sg->name[sg->n], path, len);
  sg->name[sg->n][len] = '\0';
  sg->id[sg->n] = dem_h5u_compact_group(kit, g, sg->name[sg->n]);
  return sg->id[sg->n] < 0 ? -1 : sg->id[sg->n++];
}

/* Writes the snapshot into an anonymous group g. */
static herr_t write_snapshot_group(const struct dem_h5u_kit *kit, hid_t g,
                                   const struct dem_snapshot *s) {
  int64_t step = s->step;
  struct subgroups sg = {0};
  herr_t rc = 0;
  if (dem_h5u_attr(g, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &s->time) <
          0 ||
      dem_h5u_attr(g, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, &step) < 0)
    return -1;
  for (size_t i = 0; i < s->n_columns && rc >= 0; i++) {
    const char *name;
    hid_t sub = column_group(kit, g, &sg, s->columns[i].path, &name);
    rc = sub < 0 ? -1 : write_column(kit, sub, name, &s->columns[i]);
  }
  for (size_t k = 0; k < sg.n; k++)
    if (H5Gclose(sg.id[k]) < 0)
      rc = -1;
  return rc;
}

/* Counts snapshot s and adds it to the sidecar's grids; mesh_here: which
 * moving meshes' vertices it holds (NULL: all). */
static dem_status add_frame(struct dem_h5_writer *w,
                            const struct dem_snapshot *s,
                            const unsigned char *mesh_here) {
  struct dem_xdmf_frame frame = {w->n_snapshots, s->time, s->n_spheres,
                                 s->n_bodies, mesh_here};
  dem_status st =
      dem_xdmf_append(&w->xdmf, w->h5_name, &frame, w->xdmf_attrs, w->n_xdmf);
  if (st == DEM_OK)
    w->n_snapshots++;
  return st;
}

/* The sidecar's connectivity for m spheres, /xdmf/polyvertex_M = 0..m-1
 * (ParaView draws points only as cells): when missing, created unlinked
 * in *vertex for the caller to link at `name` with the snapshot. Also for
 * m = 0 (empty, which the sidecar never names): a pour's first snapshot
 * has no sphere, and its link is /xdmf's first, made before the file has
 * its name (dem_h5w_publish), as when that link allocated a node. */
static herr_t polyvertex_prepare(struct dem_h5_writer *w, size_t m,
                                 hid_t *vertex, char *name, size_t size) {
  hsize_t dims = m;
  hid_t space;
  int *index;
  htri_t exists;
  herr_t rc = -1;
  *vertex = -1;
  snprintf(name, size, "xdmf/polyvertex_%zu", m);
  exists = H5Lexists(w->file, "xdmf", H5P_DEFAULT);
  if (exists > 0)
    exists = H5Lexists(w->file, name, H5P_DEFAULT);
  if (exists != 0)
    return exists > 0 ? 0 : -1;
  index = malloc((m ? m : 1) * sizeof *index);
  space = H5Screate_simple(1, &dims, NULL);
  if (index && space >= 0) {
    for (size_t i = 0; i < m; i++)
      index[i] = (int)i;
    *vertex =
        H5Dcreate_anon(w->file, H5T_STD_I32LE, space, w->kit.dcpl, H5P_DEFAULT);
    if (*vertex >= 0)
      rc = H5Dwrite(*vertex, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    index);
    if (rc >= 0)
      rc = dem_h5u_doc(&w->kit, *vertex, "1",
                       "0, 1, ..., M-1: the XDMF sidecar's connectivity "
                       "(one point cell per sphere, or per body)");
  }
  if (space >= 0)
    H5Sclose(space);
  free(index);
  return rc;
}

/* Links a dataset made by polyvertex_prepare. /xdmf is made with the file
 * (like /snapshots, dem_h5w_linking_group: its header presized for its
 * links; a compact group made later, with a small header, grew at the
 * link of a new sphere count, and a kill could cut that); made here only
 * in a file from an older dem, which lacks it. */
static herr_t polyvertex_link(struct dem_h5_writer *w, hid_t vertex,
                              const char *name) {
  if (H5Lexists(w->file, "xdmf", H5P_DEFAULT) <= 0) {
    hid_t g = dem_h5w_linking_group(w->file, "xdmf", -1, DEM_H5W_XDMF_NAME_LEN);
    if (g < 0)
      return -1;
    H5Gclose(g);
  }
  return H5Olink(vertex, w->file, name, H5P_DEFAULT, H5P_DEFAULT);
}

dem_status dem_h5_snapshot_write(struct dem_h5_writer *w,
                                 const struct dem_snapshot *s) {
  size_t index;
  char name[32], what[64], vertex_name[64];
  hid_t g, vertex = -1;
  herr_t rc;
  dem_status st;

  dem_h5u_quiet();
  if (!w || !s)
    return dem_fail(DEM_ERR_INTERNAL, "dem_h5_snapshot_write: no writer");
  index = w->n_snapshots;
  for (size_t i = 0; i < s->n_columns; i++)
    if (s->columns[i].rows && !s->columns[i].data && !s->columns[i].row)
      return dem_fail(DEM_ERR_INTERNAL, "%s: snapshot %zu: no data for %s",
                      w->path, index, s->columns[i].path);
  snprintf(name, sizeof name, "%06zu", index);
  snprintf(what, sizeof what, "cannot write snapshot %s", name);
  /* The columns and their headers, with some margin (energy appends
   * check their own). */
  unsigned long long need = 65536;
  for (size_t i = 0; i < s->n_columns; i++)
    need += 1024 + (unsigned long long)s->columns[i].rows *
                       (s->columns[i].cols ? s->columns[i].cols : 1) *
                       type_size(s->columns[i].type);
  if ((st = dem_h5w_need_room(w, need + need / 8, what)))
    return st;
  /* Built unlinked and linked once complete: a reader never sees half. */
  g = dem_h5u_compact_group(&w->kit, w->file, NULL);
  if (g < 0)
    return dem_h5u_fail(w->path, what);
  rc = write_snapshot_group(&w->kit, g, s);
  if (rc >= 0)
    rc = polyvertex_prepare(w, s->n_spheres, &vertex, vertex_name,
                            sizeof vertex_name);
  if (rc >= 0)
    rc = H5Fflush(w->file, H5F_SCOPE_GLOBAL);
  if (rc >= 0 && vertex >= 0)
    rc = polyvertex_link(w, vertex, vertex_name);
  if (rc >= 0)
    rc = H5Olink(g, w->snapshots, name, H5P_DEFAULT, H5P_DEFAULT);
  if (rc < 0) {
    st = dem_h5u_fail(w->path, what);
    if (vertex >= 0)
      H5Dclose(vertex);
    H5Gclose(g);
    return st;
  }
  if ((vertex >= 0 && H5Dclose(vertex) < 0) || H5Gclose(g) < 0 ||
      H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0)
    return dem_h5u_fail(w->path, what);
  if ((st = dem_h5w_publish(w)))
    return st;
  st = add_frame(w, s, NULL);
  if (st != DEM_OK)
    return st;
  int first = !w->xmf_written_at;
  w->xmf_stale = 1;
  if (first || seconds_now() - w->xmf_written_at >= SIDECAR_EVERY_S)
    return dem_h5w_write_sidecar(w);
  return DEM_OK;
}

/* Rebuilds the sidecar's frame list from /snapshots/000000.. (each
 * group's time attribute and sphere count); the names must run without
 * gaps. */
dem_status dem_h5w_load_frames(struct dem_h5_writer *w) {
  H5G_info_t info;
  if (H5Gget_info(w->snapshots, &info) < 0)
    return dem_h5u_fail(w->path, "cannot list /snapshots");
  unsigned char *here = calloc(w->xdmf.n_meshes + 1, 1);
  if (!here)
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", w->path);
  for (hsize_t i = 0; i < info.nlinks; i++) {
    char name[32];
    hid_t g, a, ds, sp;
    hsize_t dims[2] = {0, 0};
    struct dem_snapshot s;
    herr_t rc = -1;
    snprintf(name, sizeof name, "%06zu", (size_t)i);
    if (H5Lexists(w->snapshots, name, H5P_DEFAULT) <= 0) {
      free(here);
      return dem_fail(DEM_ERR_IO,
                      "%s: snapshots are not numbered 000000 to %06zu "
                      "without gaps (no %s)",
                      w->path, (size_t)info.nlinks - 1, name);
    }
    memset(&s, 0, sizeof s);
    g = H5Gopen2(w->snapshots, name, H5P_DEFAULT);
    if (g >= 0) {
      a = H5Aopen(g, "time", H5P_DEFAULT);
      if (a >= 0) {
        rc = H5Aread(a, H5T_NATIVE_DOUBLE, &s.time);
        H5Aclose(a);
      }
      /* The bodies' grid needs their count (a file of an older dem may
       * lack bodies/mass: no bodies' grid). */
      if (rc >= 0 && H5Lexists(g, "bodies", H5P_DEFAULT) > 0 &&
          H5Lexists(g, "bodies/mass", H5P_DEFAULT) > 0) {
        hid_t bs = H5Dopen2(g, "bodies/mass", H5P_DEFAULT);
        hid_t sp2 = bs >= 0 ? H5Dget_space(bs) : -1;
        hsize_t nb = 0;
        if (sp2 >= 0 && H5Sget_simple_extent_ndims(sp2) == 1 &&
            H5Sget_simple_extent_dims(sp2, &nb, NULL) == 1)
          s.n_bodies = (size_t)nb;
        if (sp2 >= 0)
          H5Sclose(sp2);
        if (bs >= 0)
          H5Dclose(bs);
      }
      /* A moving mesh is drawn where the snapshot holds its vertices (a
       * file of an older dem has none). */
      int has_meshes = H5Lexists(g, "meshes", H5P_DEFAULT) > 0;
      for (size_t k = 0; k < w->xdmf.n_meshes; k++) {
        char path[300];
        snprintf(path, sizeof path, "meshes/%s", w->xdmf.meshes[k].name);
        here[k] = has_meshes && H5Lexists(g, path, H5P_DEFAULT) > 0;
      }
      ds = rc >= 0 ? H5Dopen2(g, "spheres/radius", H5P_DEFAULT) : -1;
      rc = -1;
      if (ds >= 0) {
        sp = H5Dget_space(ds);
        if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
            H5Sget_simple_extent_dims(sp, dims, NULL) == 1)
          rc = 0;
        if (sp >= 0)
          H5Sclose(sp);
        H5Dclose(ds);
      }
      H5Gclose(g);
    }
    if (rc < 0) {
      free(here);
      return dem_fail(DEM_ERR_IO,
                      "%s: snapshot %s: cannot read its time or "
                      "spheres/radius",
                      w->path, name);
    }
    s.n_spheres = (size_t)dims[0];
    dem_status st = add_frame(w, &s, here);
    if (st != DEM_OK) {
      free(here);
      return st;
    }
  }
  free(here);
  w->xmf_stale = 1; /* written anew at the first snapshot, or at close */
  return DEM_OK;
}
