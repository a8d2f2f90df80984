/* The /energy series of the HDF5 writer: its columns made, opened for a
 * restart (with the columns an older dem lacked added), and appended to. */
#include <stdlib.h>
#include <string.h>

#include "io/h5_writer.h"

enum {
  ENERGY_COLUMNS = DEM_H5W_ENERGY_COLUMNS,
  ENERGY_CHUNK = DEM_H5W_ENERGY_CHUNK
};

/* Energy column c in group g, chunked and extendible, with `rows` rows
 * (from data, a long or double array, or zeros when data is NULL; 0 rows
 * for a new file), kept open in w. */
static herr_t create_energy_column(struct dem_h5_writer *w, hid_t g, int c,
                                   hsize_t rows, const void *data) {
  hsize_t maxdims = H5S_UNLIMITED, chunk = ENERGY_CHUNK;
  hid_t space = H5Screate_simple(1, &rows, &maxdims);
  hid_t dcpl = dem_h5u_untimed(H5P_DATASET_CREATE);
  hid_t type = c == 0 ? H5T_STD_I64LE : H5T_IEEE_F64LE;
  int64_t step_fill = DEM_H5U_ENERGY_FILL_STEP;
  double fill = dem_h5u_energy_fill();
  const struct dem_h5u_energy_column *col = &dem_h5u_energy_columns[c];
  herr_t rc = -1;
  if (space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
      H5Pset_fill_value(dcpl, c == 0 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE,
                        c == 0 ? (const void *)&step_fill
                               : (const void *)&fill) < 0)
    goto done;
  hid_t dapl = dem_h5u_series_dapl(ENERGY_CHUNK * 8);
  if (dapl < 0)
    goto done;
  w->energy[c] = H5Dcreate2(g, col->name, type, space, H5P_DEFAULT, dcpl, dapl);
  H5Pclose(dapl);
  if (w->energy[c] < 0 ||
      dem_h5u_doc(NULL, w->energy[c], col->unit, col->description) < 0)
    goto done;
  if (rows > 0) { /* a column an older dem did not write: zero so far */
    double *zeros = data ? NULL : calloc(rows, sizeof *zeros);
    herr_t wr =
        data || zeros
            ? H5Dwrite(w->energy[c],
                       c == 0 ? H5T_NATIVE_LONG : H5T_NATIVE_DOUBLE, H5S_ALL,
                       H5S_ALL, H5P_DEFAULT, data ? data : (const void *)zeros)
            : -1;
    free(zeros);
    if (wr < 0)
      goto done;
  }
  rc = 0;
done:
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (space >= 0)
    H5Sclose(space);
  return rc;
}

/* /energy with its empty, chunked, extendible columns (kept open). */
herr_t dem_h5w_create_energy(struct dem_h5_writer *w) {
  hid_t g = dem_h5u_compact_group(NULL, w->file, "energy");
  herr_t rc = 0;
  if (g < 0)
    return -1;
  for (int c = 0; c < ENERGY_COLUMNS && rc >= 0; c++)
    rc = create_energy_column(w, g, c, 0, NULL);
  H5Gclose(g);
  return rc;
}

dem_status dem_h5_energy_append(struct dem_h5_writer *w,
                                const struct dem_energy_row *rows, size_t n) {
  hsize_t start, size;
  double *col;
  int64_t *steps;
  dem_status st = DEM_OK;

  dem_h5u_quiet();
  if (!w || (n && !rows))
    return dem_fail(DEM_ERR_INTERNAL, "dem_h5_energy_append: no writer");
  if (n == 0)
    return DEM_OK;
  col = malloc(n * sizeof *col);
  steps = malloc(n * sizeof *steps);
  if (!col || !steps) {
    free(col);
    free(steps);
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", w->path);
  }
  start = w->energy_rows;
  size = start + n;
  /* A new block of each column (chunks of ENERGY_CHUNK rows) is what an
   * append allocates, and its flush writes the metadata of every series
   * (with walls, their chunk indexes grow): room first, every time. */
  hsize_t blocks = (size + ENERGY_CHUNK - 1) / ENERGY_CHUNK -
                   (start + ENERGY_CHUNK - 1) / ENERGY_CHUNK;
  if ((st = dem_h5w_need_room(
           w, 65536ull + blocks * ENERGY_COLUMNS * (ENERGY_CHUNK * 8ull + 4096),
           "cannot append energy rows"))) {
    free(col);
    free(steps);
    return st;
  }
  for (int c = 0; c < ENERGY_COLUMNS && st == DEM_OK; c++) {
    const void *buf = col;
    hid_t mem_type = H5T_NATIVE_DOUBLE;
    size_t offset = dem_h5u_energy_columns[c].row_offset;
    for (size_t i = 0; i < n; i++) {
      if (c == 0)
        steps[i] = rows[i].step;
      else
        memcpy(&col[i], (const char *)&rows[i] + offset, sizeof col[i]);
    }
    if (c == 0) {
      buf = steps;
      mem_type = H5T_NATIVE_INT64;
    }
    if (dem_h5u_append(w->energy[c], start, n, 0, mem_type, buf) < 0)
      st = dem_h5u_fail(w->path, "cannot append energy rows");
  }
  free(col);
  free(steps);
  if (st != DEM_OK)
    return st;
  if (H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0)
    return dem_h5u_fail(w->path, "cannot flush");
  w->energy_rows = size;
  return DEM_OK;
}

/* Column c made again with its first `rows` rows (data): its chunk index
 * lost chunks to a torn write, and appending through such an index is
 * not safe (src/io/h5_lost_chunks.c). */
static herr_t rebuild_column(struct dem_h5_writer *w, int c, hsize_t rows,
                             const void *data) {
  herr_t rc = H5Dclose(w->energy[c]);
  hid_t g = H5Gopen2(w->file, "energy", H5P_DEFAULT);
  w->energy[c] = -1;
  if (g < 0)
    rc = -1;
  if (rc >= 0)
    rc = H5Ldelete(g, dem_h5u_energy_columns[c].name, H5P_DEFAULT);
  if (rc >= 0)
    rc = create_energy_column(w, g, c, rows, data);
  if (g >= 0)
    H5Gclose(g);
  return rc;
}

/* Opens the /energy columns and drops the rows after last_step. */
dem_status dem_h5w_open_energy(struct dem_h5_writer *w, long last_step) {
  hsize_t n = 0, keep;
  for (int c = 0; c < ENERGY_COLUMNS; c++) {
    char name[64];
    hsize_t dims = 0, maxdims = 0;
    hid_t sp;
    int ok;
    snprintf(name, sizeof name, "energy/%s", dem_h5u_energy_columns[c].name);
    if (c > 0 && dem_h5u_energy_columns[c].since > 1 &&
        H5Lexists(w->file, name, H5P_DEFAULT) == 0) {
      /* A file of an older dem lacks this column: added, zero so far
       * (what it counts did not exist then), as long as the steps. */
      hid_t g = H5Gopen2(w->file, "energy", H5P_DEFAULT);
      herr_t rc = g >= 0 ? create_energy_column(w, g, c, n, NULL) : -1;
      if (g >= 0)
        H5Gclose(g);
      if (rc < 0)
        return dem_h5u_fail(w->path, "cannot add a missing energy column");
    } else {
      hid_t dapl = dem_h5u_series_dapl(ENERGY_CHUNK * 8);
      w->energy[c] = dapl < 0 ? -1 : H5Dopen2(w->file, name, dapl);
      if (dapl >= 0)
        H5Pclose(dapl);
    }
    sp = w->energy[c] >= 0 ? H5Dget_space(w->energy[c]) : -1;
    ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
         H5Sget_simple_extent_dims(sp, &dims, &maxdims) == 1 &&
         maxdims == H5S_UNLIMITED;
    if (sp >= 0)
      H5Sclose(sp);
    if (!ok)
      return dem_fail(DEM_ERR_IO,
                      "%s: /%s missing or not an extendible "
                      "1-D dataset",
                      w->path, name);
    if (c == 0 || dims < n)
      n = dims; /* the shortest column: a killed append may leave one longer */
  }
  /* The rows that reached the file (a killed run may have left fill
   * values or a chunk past the end), then those up to last_step. */
  void *cols[ENERGY_COLUMNS];
  long lost[ENERGY_COLUMNS];
  hsize_t written;
  dem_status st = DEM_OK;
  if (dem_h5u_energy_read(w->energy, n, cols, &written, lost) < 0)
    return dem_h5u_fail(w->path, "cannot read /energy");
  for (keep = 0; keep < written && ((long *)cols[0])[keep] <= last_step; keep++)
    ;
  for (int c = 0; c < ENERGY_COLUMNS && !st; c++)
    if (lost[c] > 0 && rebuild_column(w, c, keep, cols[c]) < 0)
      st = dem_h5u_fail(w->path, "cannot rewrite an energy column whose "
                                 "chunk index a kill tore");
  for (int c = 0; c < ENERGY_COLUMNS; c++)
    free(cols[c]);
  for (int c = 0; c < ENERGY_COLUMNS && !st; c++)
    if (H5Dset_extent(w->energy[c], &keep) < 0)
      st = dem_h5u_fail(w->path, "cannot truncate the energy series");
  w->energy_rows = keep;
  return st;
}
