/* The one list of dem's status codes and their messages (X-macro). */
#ifndef DEM_STATUS_H
#define DEM_STATUS_H

/* X(name, value, message). Exit codes of the CLI follow dem_status_exit_code().
 */
#define DEM_STATUS_LIST(X)                                                     \
  X(DEM_OK, 0, "success")                                                      \
  X(DEM_ERR_USAGE, 1, "bad command line")                                      \
  X(DEM_ERR_CONFIG, 2, "invalid configuration")                                \
  X(DEM_ERR_IO, 3, "file input/output failed")                                 \
  X(DEM_ERR_NOMEM, 4, "out of memory")                                         \
  X(DEM_ERR_NUMERIC, 5, "numerical trouble (NaN, Inf or tunnelling)")          \
  X(DEM_ERR_SETUP, 6, "could not set up the system")                           \
  X(DEM_ERR_INTERRUPTED, 7, "interrupted by a signal")                         \
  X(DEM_ERR_INTERNAL, 8, "internal error")

typedef enum {
#define DEM_STATUS_ENUM(name, value, msg) name = value,
  DEM_STATUS_LIST(DEM_STATUS_ENUM)
#undef DEM_STATUS_ENUM
} dem_status;

/* Static text for a code. */
const char *dem_status_message(dem_status s);

/* Process exit code for a status: 0 ok, 2 bad input (config, usage, setup),
 * 3 numerical trouble, 1 anything else. */
int dem_status_exit_code(dem_status s);

/* Records a detailed message for the failure being returned and returns s.
 * Library functions call `return dem_fail(DEM_ERR_CONFIG, "%s:%d:%d: ...")`;
 * only main prints it. The first failure recorded since the last
 * dem_error_clear() wins, so the root cause is what the user sees. */
dem_status dem_fail(dem_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Replaces the recorded message (its arguments may include
 * dem_last_error() itself) to add context such as a file position. */
dem_status dem_refail(dem_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The detailed message of the last failure ("" if none). */
const char *dem_last_error(void);
void dem_error_clear(void);

#endif
