/* Status code messages and the error record of the calling thread's run. */
#include "dem/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Each thread records into its current record: a run's own when its
 * driver chose one (dem_error_use), else the thread's default. */
static _Thread_local struct dem_error default_record;
static _Thread_local struct dem_error *current;

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

struct dem_error *dem_error_use(struct dem_error *e) {
  struct dem_error *old = dem_error_current();
  current = e;
  return old;
}

struct dem_error *dem_error_current(void) {
  return current ? current : &default_record;
}

static void set_position(struct dem_error *e, const char *file, int line,
                         int col) {
  snprintf(e->file, sizeof e->file, "%s", file ? file : "");
  e->line = line;
  e->col = col;
}

static dem_status record(dem_status s, const char *file, int line, int col,
                         const char *fmt, va_list ap) {
  struct dem_error *e = dem_error_current();
  if (e->status == DEM_OK) {
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    set_position(e, file, line, col);
    e->status = s;
  }
  return s;
}

dem_status dem_fail(dem_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(s, NULL, 0, 0, fmt, ap);
  va_end(ap);
  return s;
}

dem_status dem_fail_at(dem_status s, const char *file, int line, int col,
                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(s, file, line, col, fmt, ap);
  va_end(ap);
  return s;
}

dem_status dem_refail(dem_status s, const char *fmt, ...) {
  struct dem_error *e = dem_error_current();
  char buf[sizeof e->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  memcpy(e->message, buf, sizeof buf);
  e->status = s;
  return s;
}

void dem_error_locate(const char *file, int line, int col) {
  struct dem_error *e = dem_error_current();
  if (e->status != DEM_OK && e->line == 0 && file && file[0])
    set_position(e, file, line, col);
}

const char *dem_last_error(void) {
  struct dem_error *e = dem_error_current();
  if (e->status == DEM_OK)
    return "";
  if (e->file[0] && e->line > 0)
    snprintf(e->text, sizeof e->text, "%s:%d:%d: %s", e->file, e->line, e->col,
             e->message);
  else if (e->file[0])
    snprintf(e->text, sizeof e->text, "%s: %s", e->file, e->message);
  else
    snprintf(e->text, sizeof e->text, "%s", e->message);
  return e->text;
}

void dem_error_clear(void) {
  struct dem_error *e = dem_error_current();
  e->status = DEM_OK;
  e->message[0] = e->file[0] = '\0';
  e->line = e->col = 0;
}
