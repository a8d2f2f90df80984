/* Status code messages and the last detailed error message. */
#include "dem/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char last_error[2048];
static int have_error;

const char *dem_status_message(dem_status s) {
  switch (s) {
#define DEM_STATUS_CASE(name, value, msg)                                      \
  case name:                                                                   \
    return msg;
    DEM_STATUS_LIST(DEM_STATUS_CASE)
#undef DEM_STATUS_CASE
  }
  return "unknown status";
}

int dem_status_exit_code(dem_status s) {
  switch (s) {
  case DEM_OK:
    return 0;
  case DEM_ERR_USAGE:
  case DEM_ERR_CONFIG:
  case DEM_ERR_SETUP:
    return 2;
  case DEM_ERR_NUMERIC:
    return 3;
  case DEM_ERR_INTERRUPTED:
    return 130;
  default:
    return 1;
  }
}

dem_status dem_fail(dem_status s, const char *fmt, ...) {
  if (!have_error) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    have_error = 1;
  }
  return s;
}

dem_status dem_refail(dem_status s, const char *fmt, ...) {
  char buf[sizeof last_error];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  memcpy(last_error, buf, sizeof buf);
  have_error = 1;
  return s;
}

const char *dem_last_error(void) { return last_error; }

void dem_error_clear(void) {
  last_error[0] = '\0';
  have_error = 0;
}
