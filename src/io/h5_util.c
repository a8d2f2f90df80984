/* Internal HDF5 helpers: silencing the error stack, turning it into messages.
 */
#include "io/h5_util.h"

#include <stdio.h>
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
