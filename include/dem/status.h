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

/* The detail of a failure, kept by whoever drives a run (REBOUND keeps
 * it per simulation): the status, where in the input it lies, and the
 * message. Library functions record into the calling thread's current
 * record (see dem_error_use); only main prints it. */
struct dem_error {
  dem_status status;  /* DEM_OK: nothing recorded */
  char file[512];     /* input file of the failure ("" when none) */
  int line, col;      /* 1-based position in it (0 when none) */
  char message[2048]; /* the message, without the position */
  char text[2600];    /* dem_last_error's formatting */
};

/* Makes e the calling thread's current error record (NULL: the thread's
 * own default record) and returns the previous one, so a caller can
 * keep the errors of its run apart from any other run's. */
struct dem_error *dem_error_use(struct dem_error *e);
/* The calling thread's current record. */
struct dem_error *dem_error_current(void);

/* Records a failure and returns s. Library functions call `return
 * dem_fail(DEM_ERR_IO, "...")`. The first failure recorded since the
 * last dem_error_clear() wins, so the root cause is what the user sees. */
dem_status dem_fail(dem_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same at a position of an input file. */
dem_status dem_fail_at(dem_status s, const char *file, int line, int col,
                       const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Replaces the recorded message, keeping its position (the arguments may
 * include the old message, dem_error_current()->message), to add context. */
dem_status dem_refail(dem_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Gives the recorded failure a position when it has none yet. */
void dem_error_locate(const char *file, int line, int col);

/* The current record as one line: "FILE:LINE:COL: message" (or the
 * message alone when it has no position; "" when nothing is recorded). */
const char *dem_last_error(void);
void dem_error_clear(void);

#endif
