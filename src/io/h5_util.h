/* Internal helpers shared by the HDF5 writer and reader (not part of the API).
 */
#ifndef DEM_H5_UTIL_H
#define DEM_H5_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "dem/status.h"

/* Turns off HDF5's own printing of its error stack (done before every
 * public call; failures are reported through dem_fail instead). */
void dem_h5u_quiet(void);

/* The most specific text of the current HDF5 error stack (the operating
 * system's message when HDF5 recorded one), or "unknown HDF5 error".
 * Call it right after the failing HDF5 call, before any cleanup. */
void dem_h5u_reason(char *buf, size_t size);

/* dem_fail(DEM_ERR_IO, "PATH: WHAT (REASON)") with the HDF5 reason. */
dem_status dem_h5u_fail(const char *path, const char *what);

/* A variable-length UTF-8 string type (caller closes it), or < 0. */
hid_t dem_h5u_string_type(void);

/* File access properties for reading: file locking off where the
 * library allows it, so a file still being written can be inspected. */
hid_t dem_h5u_read_fapl(void);

/* Fill values of the /energy columns: what a row reads as when the chunk
 * holding it never reached the file (a run killed in the middle of a
 * flush). No row can hold them: steps are >= 0, and the NaN payload is
 * not one arithmetic produces. */
#define DEM_H5U_ENERGY_FILL_STEP INT64_MIN
double dem_h5u_energy_fill(void);

/* Where the trailing run of fill values of a column starts (n if none). */
size_t dem_h5u_fill_tail_long(const long *x, size_t n);
size_t dem_h5u_fill_tail_double(const double *x, size_t n);

/* The number of leading rows of the 7 open /energy columns (step first,
 * each at least n long) that were written: n less the trailing rows that
 * read as fill in some column. */
herr_t dem_h5u_energy_written(const hid_t ds[7], hsize_t n, hsize_t *written);

#endif
