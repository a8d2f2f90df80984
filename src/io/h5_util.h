/* Internal helpers shared by the HDF5 writer and reader (not part of the API).
 */
#ifndef DEM_H5_UTIL_H
#define DEM_H5_UTIL_H

#include <stddef.h>

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

#endif
