/* Internal HDF5 helpers: silencing the error stack, turning it into messages.
 */
#include "io/h5_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dem_h5u_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

struct reason_walk {
  char *buf;
  size_t size;
  int found;
};

/* Walking upward the first entry is the innermost (most specific) one. */
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

void dem_h5u_reason(char *buf, size_t size) {
  struct reason_walk rw = {buf, size, 0};
  if (size == 0)
    return;
  buf[0] = '\0';
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, reason_cb, &rw);
  if (!rw.found)
    snprintf(buf, size, "unknown HDF5 error");
}

dem_status dem_h5u_fail(const char *path, const char *what) {
  char reason[512];
  dem_h5u_reason(reason, sizeof reason);
  return dem_fail(DEM_ERR_IO, "%s: %s (%s)", path, what, reason);
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

size_t dem_h5u_fill_tail_long(const long *x, size_t n) {
  while (n > 0 && x[n - 1] == DEM_H5U_ENERGY_FILL_STEP)
    n--;
  return n;
}

size_t dem_h5u_fill_tail_double(const double *x, size_t n) {
  double fill = dem_h5u_energy_fill();
  while (n > 0 && memcmp(&x[n - 1], &fill, sizeof fill) == 0)
    n--;
  return n;
}

herr_t dem_h5u_energy_written(const hid_t ds[7], hsize_t n, hsize_t *written) {
  hsize_t start = 0;
  double *buf;
  *written = n;
  if (n == 0)
    return 0;
  buf = malloc((size_t)n * sizeof *buf);
  if (!buf)
    return -1;
  for (int c = 0; c < 7; c++) {
    hid_t fs = H5Dget_space(ds[c]), ms = -1;
    herr_t rc = -1;
    size_t tail;
    if (fs >= 0 &&
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &n, NULL) >= 0 &&
        (ms = H5Screate_simple(1, &n, NULL)) >= 0)
      rc = H5Dread(ds[c], c == 0 ? H5T_NATIVE_LONG : H5T_NATIVE_DOUBLE, ms, fs,
                   H5P_DEFAULT, buf);
    if (ms >= 0)
      H5Sclose(ms);
    if (fs >= 0)
      H5Sclose(fs);
    if (rc < 0) {
      free(buf);
      return -1;
    }
    tail = c == 0 ? dem_h5u_fill_tail_long((const long *)(void *)buf, n)
                  : dem_h5u_fill_tail_double(buf, n);
    if (tail < *written)
      *written = tail;
  }
  free(buf);
  return 0;
}
