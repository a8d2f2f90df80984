/* The /walls series of the HDF5 writer: each wall's force and torque, one
 * row per energy row, made, opened for a restart (added for a file of an
 * older dem), appended to, and checked before a restart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5_writer.h"

static const char *const series[2] = {"force", "torque"};

/* Series s (0 force, 1 torque) of a wall in group g, chunked and
 * extendible, with `rows` rows from data (rows x 3), or of NaN when data
 * is NULL (0 rows for a new file). Rows past those read as the energy's
 * fill value, which no row holds, as the energy rows of a killed append
 * do. */
static hid_t create_series(hid_t g, int s, const struct dem_h5_wall *wall,
                           hsize_t rows, const double *data) {
  hsize_t dims[2] = {rows, 3}, maxdims[2] = {H5S_UNLIMITED, 3},
          chunk[2] = {DEM_H5W_WALL_CHUNK, 3};
  hid_t space = H5Screate_simple(2, dims, maxdims);
  hid_t dcpl = dem_h5u_untimed(H5P_DATASET_CREATE), ds = -1;
  double fill = dem_h5u_energy_fill();
  char doc[400];
  if (s == 0)
    snprintf(doc, sizeof doc,
             "force the spheres exert on the wall (minus the sum of its "
             "contacts' forces on them), lab frame, at each /energy/time");
  else
    snprintf(doc, sizeof doc,
             "torque of those forces about %s (the attribute torque_point) "
             "plus the reaction of the contacts' rolling torques, lab frame, "
             "at each /energy/time",
             wall->about);
  hid_t dapl = dem_h5u_series_dapl(DEM_H5W_WALL_CHUNK * 3 * 8);
  if (space >= 0 && dcpl >= 0 && dapl >= 0 &&
      H5Pset_chunk(dcpl, 2, chunk) >= 0 &&
      H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill) >= 0)
    ds = H5Dcreate2(g, series[s], H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl,
                    dapl);
  if (dapl >= 0)
    H5Pclose(dapl);
  if (ds >= 0 && dem_h5u_doc(NULL, ds, s == 0 ? "N" : "N m", doc) < 0) {
    H5Dclose(ds);
    ds = -1;
  }
  if (ds >= 0 && rows > 0) { /* not recorded by the dem that wrote them */
    double *nan = data ? NULL : malloc((size_t)rows * 3 * sizeof *nan);
    for (size_t i = 0; nan && i < (size_t)rows * 3; i++)
      nan[i] = NAN;
    if ((!data && !nan) || H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                    H5P_DEFAULT, data ? data : nan) < 0) {
      H5Dclose(ds);
      ds = -1;
    }
    free(nan);
  }
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (space >= 0)
    H5Sclose(space);
  return ds;
}

/* The group of a wall, with its description and torque point. */
static hid_t create_wall_group(hid_t walls, const struct dem_h5_wall *wall) {
  hsize_t three = 3;
  hid_t g = dem_h5u_compact_group(NULL, walls, wall->name), space = -1, a = -1;
  herr_t rc = -1;
  char doc[400];
  if (g < 0)
    return g;
  snprintf(doc, sizeof doc,
           "the load of the spheres on wall '%s': force and torque at each "
           "/energy/time (docs/walls.md)",
           wall->name);
  if (dem_h5u_string_attr(g, "description", doc) >= 0 &&
      (space = H5Screate_simple(1, &three, NULL)) >= 0 &&
      (a = H5Acreate2(g, "torque_point", H5T_IEEE_F64LE, space, H5P_DEFAULT,
                      H5P_DEFAULT)) >= 0 &&
      H5Awrite(a, H5T_NATIVE_DOUBLE, wall->point) >= 0 &&
      dem_h5u_string_attr(g, "torque_point_unit", "m") >= 0)
    rc = 0;
  if (a >= 0)
    H5Aclose(a);
  if (space >= 0)
    H5Sclose(space);
  if (rc < 0) {
    H5Gclose(g);
    return -1;
  }
  return g;
}

static int alloc_handles(struct dem_h5_writer *w, size_t n) {
  w->walls = malloc(2 * n * sizeof *w->walls);
  if (!w->walls)
    return -1;
  for (size_t k = 0; k < 2 * n; k++)
    w->walls[k] = -1;
  w->n_walls = n;
  return 0;
}

/* /walls, with its description. */
static hid_t create_walls_group(hid_t file) {
  hid_t walls = dem_h5u_compact_group(NULL, file, "walls");
  if (walls >= 0 &&
      dem_h5u_string_attr(walls, "description",
                          "force and torque the spheres exert on each wall "
                          "(box_xmin ... box_zmax, and each mesh by name), "
                          "one row per /energy row (docs/output.md)") < 0) {
    H5Gclose(walls);
    return -1;
  }
  return walls;
}

herr_t dem_h5w_create_walls(struct dem_h5_writer *w,
                            const struct dem_h5_run_info *info) {
  if (info->n_walls == 0)
    return 0;
  if (alloc_handles(w, info->n_walls) < 0)
    return -1;
  hid_t walls = create_walls_group(w->file);
  herr_t rc = walls >= 0 ? 0 : -1;
  for (size_t k = 0; k < info->n_walls && rc >= 0; k++) {
    hid_t g = create_wall_group(walls, &info->walls[k]);
    for (int s = 0; s < 2 && g >= 0; s++)
      if ((w->walls[2 * k + s] =
               create_series(g, s, &info->walls[k], 0, NULL)) < 0)
        rc = -1;
    if (g < 0)
      rc = -1;
    else
      H5Gclose(g);
  }
  if (walls >= 0)
    H5Gclose(walls);
  return rc;
}

/* Whether ds is a series the writer appends to: (rows, 3), no limit on
 * its rows. *rows is set to its rows. */
static int is_series(hid_t ds, hsize_t *rows) {
  hsize_t dims[2] = {0, 0}, maxdims[2] = {0, 0};
  hid_t sp = ds >= 0 ? H5Dget_space(ds) : -1;
  int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 2 &&
           H5Sget_simple_extent_dims(sp, dims, maxdims) == 2 && dims[1] == 3 &&
           maxdims[0] == H5S_UNLIMITED && maxdims[1] == 3;
  if (sp >= 0)
    H5Sclose(sp);
  *rows = dims[0];
  return ok;
}

/* A wall's series s (*ds, in group g) made again with its first `rows`
 * rows when its chunk index lost chunks to a torn write: appending
 * through such an index makes a second chunk where the first is not
 * found (src/io/h5_lost_chunks.c). Rows that do not read (a chunk past
 * the allocated space) leave the series as it is. */
static dem_status mend_series(struct dem_h5_writer *w, hid_t g,
                              const struct dem_h5_wall *wall, hid_t *ds, int s,
                              hsize_t rows) {
  double *data = rows ? malloc((size_t)rows * 3 * sizeof *data) : NULL;
  long lost = 0;
  if (rows == 0)
    return DEM_OK;
  if (!data)
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", w->path);
  if (dem_h5u_read_rows(*ds, 0, rows, 3, H5T_NATIVE_DOUBLE, data) >= 0)
    lost = dem_h5u_read_lost_chunks(*ds, H5T_NATIVE_DOUBLE, rows, data);
  if (lost > 0) {
    H5Dclose(*ds);
    *ds = H5Ldelete(g, series[s], H5P_DEFAULT) < 0
              ? -1
              : create_series(g, s, wall, rows, data);
  }
  free(data);
  if (*ds < 0)
    return dem_h5u_fail(w->path, "cannot rewrite a wall's series whose chunk "
                                 "index a kill tore");
  return DEM_OK;
}

/* Opens wall k's series s to continue with `rows` rows, creating it
 * (with its group) when an older dem did not write it. */
static dem_status open_series(struct dem_h5_writer *w,
                              const struct dem_h5_wall *wall, size_t k, int s,
                              hsize_t rows) {
  char name[512];
  hsize_t have = 0;
  if (H5Lexists(w->file, "walls", H5P_DEFAULT) <= 0) {
    hid_t g = create_walls_group(w->file);
    if (g < 0)
      return dem_h5u_fail(w->path, "cannot add /walls");
    H5Gclose(g);
  }
  snprintf(name, sizeof name, "walls/%s", wall->name);
  hid_t g = H5Lexists(w->file, name, H5P_DEFAULT) > 0
                ? H5Gopen2(w->file, name, H5P_DEFAULT)
                : -1;
  if (g < 0) {
    hid_t walls = H5Gopen2(w->file, "walls", H5P_DEFAULT);
    g = walls >= 0 ? create_wall_group(walls, wall) : -1;
    if (walls >= 0)
      H5Gclose(walls);
  }
  if (g < 0)
    return dem_h5u_fail(w->path, "cannot add a wall's group to /walls");
  hid_t dapl = dem_h5u_series_dapl(DEM_H5W_WALL_CHUNK * 3 * 8);
  hid_t ds = dapl < 0 ? -1
             : H5Lexists(g, series[s], H5P_DEFAULT) > 0
                 ? H5Dopen2(g, series[s], dapl)
                 : create_series(g, s, wall, rows, NULL);
  dem_status st = DEM_OK;
  if (dapl >= 0)
    H5Pclose(dapl);
  w->walls[2 * k + s] = ds;
  if (ds < 0)
    st = dem_h5u_fail(w->path, "cannot open or add a wall's series");
  else if (!is_series(ds, &have) || have < rows)
    st = dem_fail(DEM_ERR_IO,
                  "%s: /walls/%s/%s is not an extendible (rows, 3) series "
                  "of at least %llu rows",
                  w->path, wall->name, series[s], (unsigned long long)rows);
  else if ((st = mend_series(w, g, wall, &w->walls[2 * k + s], s, rows)) ==
               DEM_OK &&
           H5Dset_extent(w->walls[2 * k + s], (hsize_t[2]){rows, 3}) < 0)
    st = dem_h5u_fail(w->path, "cannot truncate a wall's series");
  H5Gclose(g);
  return st;
}

dem_status dem_h5w_open_walls(struct dem_h5_writer *w,
                              const struct dem_h5_run_info *info,
                              hsize_t rows) {
  dem_status st = DEM_OK;
  if (info->n_walls == 0)
    return DEM_OK;
  if (alloc_handles(w, info->n_walls) < 0)
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", w->path);
  for (size_t k = 0; k < info->n_walls && !st; k++)
    for (int s = 0; s < 2 && !st; s++)
      st = open_series(w, &info->walls[k], k, s, rows);
  return st;
}

void dem_h5w_close_walls(struct dem_h5_writer *w) {
  for (size_t k = 0; w->walls && k < 2 * w->n_walls; k++)
    if (w->walls[k] >= 0)
      H5Dclose(w->walls[k]);
  free(w->walls);
  w->walls = NULL;
  w->n_walls = 0;
}

dem_status dem_h5_walls_append(struct dem_h5_writer *w, const double *rows,
                               size_t n) {
  dem_h5u_quiet();
  if (!w || (n && w->n_walls && !rows))
    return dem_fail(DEM_ERR_INTERNAL, "dem_h5_walls_append: no writer");
  if (n == 0 || w->n_walls == 0)
    return DEM_OK;
  /* The new chunks of the series, and a node of their chunk index each,
   * are what an append allocates: room for them first (a write cut short
   * by a full disk can leave the file unreadable). */
  const hsize_t c = DEM_H5W_WALL_CHUNK, r0 = w->energy_rows;
  hsize_t blocks = (r0 + n + c - 1) / c - (r0 + c - 1) / c;
  dem_status st = blocks
                      ? dem_h5w_need_room(w,
                                          65536ull + blocks * 2 * w->n_walls *
                                                         (c * 3 * 8ull + 4096),
                                          "cannot append the walls' rows")
                      : DEM_OK;
  if (st)
    return st;
  double *buf = malloc(n * 3 * sizeof *buf);
  if (!buf)
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", w->path);
  for (size_t k = 0; k < 2 * w->n_walls && !st; k++) {
    for (size_t i = 0; i < n; i++) /* wall k/2's force or torque */
      memcpy(buf + 3 * i, rows + (i * w->n_walls + k / 2) * 6 + 3 * (k % 2),
             3 * sizeof *buf);
    if (dem_h5u_append(w->walls[k], w->energy_rows, n, 3, H5T_NATIVE_DOUBLE,
                       buf) < 0)
      st = dem_h5u_fail(w->path, "cannot append the walls' rows");
  }
  free(buf);
  return st;
}

struct check_walk {
  size_t rows;
  char bad[600];
  int own; /* dem's own check failed, not an HDF5 call */
};

/* H5Ovisit callback over /walls: each dataset a series of at least
 * c->rows rows whose first rows read. */
static herr_t check_one(hid_t walls, const char *name, const H5O_info_t *info,
                        void *data) {
  struct check_walk *c = data;
  if (info->type != H5O_TYPE_DATASET)
    return 0;
  hid_t ds = H5Dopen2(walls, name, H5P_DEFAULT);
  hsize_t have = 0;
  double *buf = malloc((c->rows ? c->rows : 1) * 3 * sizeof *buf);
  const char *why = NULL;
  if (ds < 0 || !buf)
    why = "cannot be opened";
  else if (!is_series(ds, &have))
    c->own = 1, why = "is not an extendible (rows, 3) series";
  else if (have < c->rows)
    c->own = 1,
    why = "has fewer rows than the energy series up to the last snapshot";
  else if (c->rows > 0 &&
           dem_h5u_read_rows(ds, 0, c->rows, 3, H5T_NATIVE_DOUBLE, buf) < 0)
    why = "cannot be read";
  if (ds >= 0)
    H5Dclose(ds);
  free(buf);
  if (why)
    snprintf(c->bad, sizeof c->bad, "/walls/%s %s", name, why);
  return why ? -1 : 0;
}

dem_status dem_h5_check_walls(const char *path, size_t rows) {
  struct check_walk c = {.rows = rows};
  dem_status st = DEM_OK;
  dem_h5u_quiet();
  hid_t fapl = dem_h5u_read_fapl();
  hid_t file = fapl >= 0 ? H5Fopen(path, H5F_ACC_RDONLY, fapl) : -1;
  if (fapl >= 0)
    H5Pclose(fapl);
  if (file < 0)
    return dem_h5u_fail(path, "cannot open as HDF5");
  if (H5Lexists(file, "walls", H5P_DEFAULT) > 0) {
    hid_t g = H5Gopen2(file, "walls", H5P_DEFAULT);
    if (g < 0 || H5Ovisit2(g, H5_INDEX_NAME, H5_ITER_INC, check_one, &c,
                           H5O_INFO_BASIC) < 0)
      st = c.own      ? dem_fail(DEM_ERR_IO, "%s: %s", path, c.bad)
           : c.bad[0] ? dem_h5u_fail(path, c.bad)
                      : dem_h5u_fail(path, "cannot walk /walls");
    if (g >= 0)
      H5Gclose(g);
  }
  H5Fclose(file);
  return st;
}
