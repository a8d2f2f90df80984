/* Internal HDF5 helpers: quiet error handling that keeps the reason, the
 * energy columns, groups and attributes. */
#include "io/h5_util.h"

#include <stddef.h>

const struct dem_h5u_energy_column dem_h5u_energy_columns[DEM_H5U_ENERGY_N] = {
    {"step", "1", "time step number", 0, 0, 1},
#define DEM_H5U_COLUMN(name, unit, since, doc)                                 \
  {#name,                                                                      \
   unit,                                                                       \
   doc,                                                                        \
   offsetof(struct dem_energy_row, name),                                      \
   offsetof(struct dem_energy_series, name),                                   \
   since},
    DEM_ENERGY_COLUMNS(DEM_H5U_COLUMN)
#undef DEM_H5U_COLUMN
};

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The innermost message of the last failed HDF5 call, recorded by
 * HDF5's automatic error handler when the call fails (any later call,
 * even a successful close, clears HDF5's own error stack). */
static char last_reason[512];

struct reason_walk {
  char *buf;
  size_t size;
  int found;
};

/* Walking upward the first entry is the innermost (most specific) one;
 * the operating system's words are taken when HDF5 quotes them. */
static herr_t reason_cb(unsigned n, const H5E_error2_t *err, void *data) {
  struct reason_walk *rw = data;
  const char *desc = err->desc ? err->desc : "";
  const char *os = strstr(desc, "error message = '");
  (void)n;
  if (rw->found)
    return 0;
  if (os) {
    const char *start = os + strlen("error message = '");
    const char *end = strchr(start, '\'');
    size_t len = end ? (size_t)(end - start) : strlen(start);
    if (len >= rw->size)
      len = rw->size - 1;
    memcpy(rw->buf, start, len);
    rw->buf[len] = '\0';
  } else if (desc[0]) {
    snprintf(rw->buf, rw->size, "%s", desc);
  } else {
    return 0;
  }
  rw->found = 1;
  return 0;
}

/* Installed as HDF5's automatic error handler: records, prints nothing. */
static herr_t record_reason(hid_t estack, void *data) {
  struct reason_walk rw = {last_reason, sizeof last_reason, 0};
  (void)data;
  H5Ewalk2(estack, H5E_WALK_UPWARD, reason_cb, &rw);
  if (!rw.found)
    last_reason[0] = '\0';
  return 0;
}

void dem_h5u_quiet(void) {
  H5Eset_auto2(H5E_DEFAULT, record_reason, NULL);
  last_reason[0] = '\0';
}

static void reason(char *buf, size_t size) {
  if (size == 0)
    return;
  snprintf(buf, size, "%s",
           last_reason[0] ? last_reason : "unknown HDF5 error");
}

dem_status dem_h5u_fail(const char *path, const char *what) {
  char why[512];
  reason(why, sizeof why);
  return dem_fail(DEM_ERR_IO, "%s: %s (%s)", path, what, why);
}

hid_t dem_h5u_string_type(void) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0)
    return t;
  if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    H5Tclose(t);
    return -1;
  }
  return t;
}

hid_t dem_h5u_write_dxpl(void) {
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  if (dxpl >= 0 &&
      H5Pset_buffer(dxpl, DEM_H5U_CONVERSION_BYTES, NULL, NULL) < 0) {
    H5Pclose(dxpl);
    return -1;
  }
  return dxpl;
}

hid_t dem_h5u_series_dapl(size_t chunk_bytes) {
  hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
  /* Room for the chunk being appended to and the next one; w0 1: a chunk
   * written whole is the first to go. */
  if (dapl >= 0 && H5Pset_chunk_cache(dapl, 31, 4 * chunk_bytes, 1.0) < 0) {
    H5Pclose(dapl);
    return -1;
  }
  return dapl;
}

hid_t dem_h5u_read_fapl(void) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0)
    return fapl;
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) ||     \
    H5_VERSION_GE(1, 12, 1)
  H5Pset_file_locking(fapl, 0, 1);
#endif
  return fapl;
}

double dem_h5u_energy_fill(void) {
  const uint64_t bits = UINT64_C(0x7ff80de0de0de0de);
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

static size_t fill_tail_long(const long *x, size_t n) {
  while (n > 0 && x[n - 1] == DEM_H5U_ENERGY_FILL_STEP)
    n--;
  return n;
}

static size_t fill_tail_double(const double *x, size_t n) {
  double fill = dem_h5u_energy_fill();
  while (n > 0 && memcmp(&x[n - 1], &fill, sizeof fill) == 0)
    n--;
  return n;
}

/* The chunk length of a 1-D chunked dataset (0 if not chunked). */
static hsize_t chunk_rows(hid_t ds) {
  hid_t dcpl = H5Dget_create_plist(ds);
  hsize_t chunk = 0;
  if (dcpl >= 0) {
    if (H5Pget_layout(dcpl) != H5D_CHUNKED ||
        H5Pget_chunk(dcpl, 1, &chunk) != 1)
      chunk = 0;
    H5Pclose(dcpl);
  }
  return chunk;
}

herr_t dem_h5u_energy_read(const hid_t ds[DEM_H5U_ENERGY_N], hsize_t n,
                           void *cols[DEM_H5U_ENERGY_N], hsize_t *rows,
                           long lost[DEM_H5U_ENERGY_N]) {
  int retry;
  for (int c = 0; c < DEM_H5U_ENERGY_N; c++) {
    cols[c] = NULL;
    if (lost)
      lost[c] = 0;
  }
  *rows = 0;
  do {
    retry = 0;
    for (int c = 0; c < DEM_H5U_ENERGY_N; c++) {
      free(cols[c]);
      cols[c] = NULL;
    }
    for (int c = 0; c < DEM_H5U_ENERGY_N && n > 0 && !retry; c++) {
      size_t elem = c == 0 ? sizeof(long) : sizeof(double);
      hsize_t chunk;
      cols[c] = ds[c] < 0 ? calloc((size_t)n, elem) : malloc((size_t)n * elem);
      if (!cols[c])
        goto fail;
      if (ds[c] < 0) /* a column this file's dem did not write: zeros */
        continue;
      if (dem_h5u_read_rows(ds[c], 0, n, 0,
                            c == 0 ? H5T_NATIVE_LONG : H5T_NATIVE_DOUBLE,
                            cols[c]) >= 0)
        continue;
      /* A chunk allocated by a flush that a kill cut short lies past the
       * end of the space the superblock records: drop that last chunk
       * (all its rows belong to the unfinished append) and read again. */
      if (!strstr(last_reason, "addr overflow"))
        goto fail;
      chunk = chunk_rows(ds[c]);
      if (chunk == 0)
        goto fail;
      n = (n - 1) / chunk * chunk;
      retry = 1;
    }
  } while (retry);
  /* Chunks a torn index no longer finds (src/io/h5_lost_chunks.c). */
  for (int c = 0; c < DEM_H5U_ENERGY_N && n > 0; c++) {
    long got = ds[c] < 0
                   ? 0
                   : dem_h5u_read_lost_chunks(
                         ds[c], c == 0 ? H5T_NATIVE_LONG : H5T_NATIVE_DOUBLE, n,
                         cols[c]);
    if (got < 0)
      goto fail;
    if (lost)
      lost[c] = got;
  }
  if (n > 0) {
    size_t keep = fill_tail_long(cols[0], (size_t)n);
    for (int c = 1; c < DEM_H5U_ENERGY_N; c++) {
      if (ds[c] < 0)
        continue;
      size_t t = fill_tail_double(cols[c], (size_t)n);
      if (t < keep)
        keep = t;
    }
    n = keep;
  }
  *rows = n;
  return 0;
fail:
  for (int c = 0; c < DEM_H5U_ENERGY_N; c++) {
    free(cols[c]);
    cols[c] = NULL;
  }
  return -1;
}

hid_t dem_h5u_untimed(hid_t plist_class) {
  hid_t p = H5Pcreate(plist_class);
  if (p >= 0 && H5Pset_obj_track_times(p, 0) < 0) {
    H5Pclose(p);
    return -1;
  }
  return p;
}

/* Group creation properties: links kept in the group's object header
 * (new-style, compact; up to 32 of them, the most a snapshot's sub-group
 * has being 9: past HDF5's default of 8 a group moved them to a heap and
 * B-trees of its own), in the order made, the header sized for a dozen
 * at its creation (not grown link by link). */
static hid_t compact_gcpl(void) {
  hid_t gcpl = dem_h5u_untimed(H5P_GROUP_CREATE);
  if (gcpl >= 0 &&
      (H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED) < 0 ||
       H5Pset_link_phase_change(gcpl, 32, 24) < 0 ||
       H5Pset_est_link_info(gcpl, 12, 20) < 0)) {
    H5Pclose(gcpl);
    return -1;
  }
  return gcpl;
}

hid_t dem_h5u_compact_group(const struct dem_h5u_kit *kit, hid_t loc,
                            const char *name) {
  hid_t gcpl = kit ? kit->gcpl : compact_gcpl(), g;
  if (gcpl < 0)
    return -1;
  g = name ? H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT)
           : H5Gcreate_anon(loc, gcpl, H5P_DEFAULT);
  if (!kit)
    H5Pclose(gcpl);
  return g;
}

herr_t dem_h5u_kit_open(struct dem_h5u_kit *kit) {
  kit->string_type = dem_h5u_string_type();
  kit->scalar = H5Screate(H5S_SCALAR);
  kit->dxpl = dem_h5u_write_dxpl();
  kit->gcpl = compact_gcpl();
  kit->dcpl = dem_h5u_untimed(H5P_DATASET_CREATE);
  if (kit->string_type >= 0 && kit->scalar >= 0 && kit->dxpl >= 0 &&
      kit->gcpl >= 0 && kit->dcpl >= 0)
    return 0;
  dem_h5u_kit_close(kit);
  return -1;
}

void dem_h5u_kit_close(struct dem_h5u_kit *kit) {
  if (kit->string_type >= 0)
    H5Tclose(kit->string_type);
  if (kit->scalar >= 0)
    H5Sclose(kit->scalar);
  if (kit->dxpl >= 0)
    H5Pclose(kit->dxpl);
  if (kit->gcpl >= 0)
    H5Pclose(kit->gcpl);
  if (kit->dcpl >= 0)
    H5Pclose(kit->dcpl);
  kit->string_type = kit->scalar = kit->dxpl = kit->gcpl = kit->dcpl = -1;
}

/* Scalar attribute `name` of loc in the scalar dataspace `space`. */
static herr_t scalar_attr(hid_t loc, const char *name, hid_t file_type,
                          hid_t mem_type, hid_t space, const void *value) {
  hid_t attr =
      H5Acreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = -1;
  if (attr >= 0) {
    rc = H5Awrite(attr, mem_type, value);
    if (H5Aclose(attr) < 0)
      rc = -1;
  }
  return rc;
}

herr_t dem_h5u_attr(hid_t loc, const char *name, hid_t file_type,
                    hid_t mem_type, const void *value) {
  hid_t space = H5Screate(H5S_SCALAR);
  herr_t rc;
  if (space < 0)
    return -1;
  rc = scalar_attr(loc, name, file_type, mem_type, space, value);
  H5Sclose(space);
  return rc;
}

herr_t dem_h5u_string_attr(hid_t loc, const char *name, const char *value) {
  hid_t t = dem_h5u_string_type();
  herr_t rc;
  if (t < 0)
    return -1;
  rc = dem_h5u_attr(loc, name, t, t, &value);
  H5Tclose(t);
  return rc;
}

/* The "unit" and "description" attributes of a dataset (when given). */
herr_t dem_h5u_doc(const struct dem_h5u_kit *kit, hid_t ds, const char *unit,
                   const char *description) {
  if (!kit) {
    if (unit && dem_h5u_string_attr(ds, "unit", unit) < 0)
      return -1;
    if (description && dem_h5u_string_attr(ds, "description", description) < 0)
      return -1;
    return 0;
  }
  if (unit && scalar_attr(ds, "unit", kit->string_type, kit->string_type,
                          kit->scalar, &unit) < 0)
    return -1;
  if (description &&
      scalar_attr(ds, "description", kit->string_type, kit->string_type,
                  kit->scalar, &description) < 0)
    return -1;
  return 0;
}

hid_t dem_h5u_create_array(const struct dem_h5u_kit *kit, hid_t g,
                           const char *name, hid_t file_type, size_t rows,
                           size_t cols, const char *unit,
                           const char *description) {
  hsize_t dims[2] = {rows, cols};
  hid_t space = H5Screate_simple(cols ? 2 : 1, dims, NULL), ds = -1;
  hid_t dcpl = kit ? kit->dcpl : dem_h5u_untimed(H5P_DATASET_CREATE);
  if (space >= 0 && dcpl >= 0)
    ds = H5Dcreate2(g, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (!kit && dcpl >= 0)
    H5Pclose(dcpl);
  if (space >= 0)
    H5Sclose(space);
  if (ds >= 0 && dem_h5u_doc(kit, ds, unit, description) < 0) {
    H5Dclose(ds);
    return -1;
  }
  return ds;
}

herr_t dem_h5u_write_array(const struct dem_h5u_kit *kit, hid_t g,
                           const char *name, hid_t file_type, hid_t mem_type,
                           size_t rows, size_t cols, const void *data,
                           const char *unit, const char *description) {
  hid_t ds = dem_h5u_create_array(kit, g, name, file_type, rows, cols, unit,
                                  description);
  herr_t rc = ds < 0 ? -1 : 0;
  if (rc >= 0 && rows) {
    hid_t dxpl = kit ? kit->dxpl : dem_h5u_write_dxpl();
    rc = dxpl < 0 ? -1 : H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, dxpl, data);
    if (dxpl >= 0 && !kit)
      H5Pclose(dxpl);
  }
  if (ds >= 0 && H5Dclose(ds) < 0)
    rc = -1;
  return rc;
}

/* The file selection *fs of rows [start, start + n) of ds (cols values a
 * row; 0: 1-D) and the memory space *ms of those rows; < 0 when either
 * cannot be made (what was made is closed by close_rows). */
static herr_t select_rows(hid_t ds, hsize_t start, hsize_t n, hsize_t cols,
                          hid_t *fs, hid_t *ms) {
  hsize_t first[2] = {start, 0}, count[2] = {n, cols};
  *ms = -1;
  if ((*fs = H5Dget_space(ds)) < 0 ||
      H5Sselect_hyperslab(*fs, H5S_SELECT_SET, first, NULL, count, NULL) < 0)
    return -1;
  *ms = H5Screate_simple(cols ? 2 : 1, count, NULL);
  return *ms < 0 ? -1 : 0;
}

static void close_rows(hid_t fs, hid_t ms) {
  if (ms >= 0)
    H5Sclose(ms);
  if (fs >= 0)
    H5Sclose(fs);
}

herr_t dem_h5u_read_rows(hid_t ds, hsize_t start, hsize_t n, hsize_t cols,
                         hid_t mem_type, void *buf) {
  hid_t fs, ms;
  herr_t rc = select_rows(ds, start, n, cols, &fs, &ms);
  if (rc >= 0)
    rc = H5Dread(ds, mem_type, ms, fs, H5P_DEFAULT, buf);
  close_rows(fs, ms);
  return rc;
}

herr_t dem_h5u_write_rows(hid_t ds, hsize_t start, hsize_t n, hsize_t cols,
                          hid_t mem_type, const void *buf) {
  hid_t fs, ms;
  herr_t rc = select_rows(ds, start, n, cols, &fs, &ms);
  if (rc >= 0)
    rc = H5Dwrite(ds, mem_type, ms, fs, H5P_DEFAULT, buf);
  close_rows(fs, ms);
  return rc;
}

herr_t dem_h5u_append(hid_t ds, hsize_t start, hsize_t n, hsize_t cols,
                      hid_t mem_type, const void *buf) {
  hsize_t size[2] = {start + n, cols};
  if (H5Dset_extent(ds, size) < 0)
    return -1;
  return dem_h5u_write_rows(ds, start, n, cols, mem_type, buf);
}
