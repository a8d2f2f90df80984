/* Internal helpers shared by the HDF5 writer and reader (not public API). */
#ifndef DEM_H5_UTIL_H
#define DEM_H5_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "dem/status.h"
#include "io/h5io.h"

/* The /energy columns, step first: name, unit, description, and where a
 * double column lives in struct dem_energy_row and dem_energy_series
 * (offsets unused for step). */
struct dem_h5u_energy_column {
  const char *name, *unit, *description;
  size_t row_offset, series_offset;
  int since; /* the format version that added it (older files lack it) */
};
#define DEM_H5U_COUNT_COLUMN(name, unit, since, doc) +1
enum { DEM_H5U_ENERGY_N = 1 DEM_ENERGY_COLUMNS(DEM_H5U_COUNT_COLUMN) };
#undef DEM_H5U_COUNT_COLUMN
extern const struct dem_h5u_energy_column
    dem_h5u_energy_columns[DEM_H5U_ENERGY_N];

/* Replaces HDF5's printing of its error stack by a handler that only
 * records the reason of the failing call (done at the start of every
 * public function; failures are reported through dem_fail instead). */
void dem_h5u_quiet(void);

/* dem_fail(DEM_ERR_IO, "PATH: WHAT (REASON)"), REASON being the most
 * specific text of the last failed HDF5 call since dem_h5u_quiet (the
 * operating system's message when HDF5 quoted one). */
dem_status dem_h5u_fail(const char *path, const char *what);

/* A variable-length UTF-8 string type (caller closes it), or < 0. */
hid_t dem_h5u_string_type(void);

/* Dataset transfer properties for writing: HDF5's buffers for type
 * conversion (the variable-length strings) at DEM_H5U_CONVERSION_BYTES
 * instead of its 1 MB default, which it allocates whole for the smallest
 * conversion and keeps on its free lists (caller closes it; < 0 on
 * failure). */
enum { DEM_H5U_CONVERSION_BYTES = 64 * 1024 };
hid_t dem_h5u_write_dxpl(void);

/* Dataset access properties of a series appended to and flushed at
 * every append (the energy and the walls' loads): a chunk cache of a few
 * chunks of chunk_bytes, since HDF5 visits every cached chunk of every
 * open dataset at each flush (with its 1 MB default the walls' series
 * kept hundreds, a third of the flushes' cost). Caller closes it; < 0
 * on failure. */
hid_t dem_h5u_series_dapl(size_t chunk_bytes);

/* File access properties for reading: file locking off where the
 * library allows it, so a file still being written can be inspected. */
hid_t dem_h5u_read_fapl(void);

/* Fill values of the /energy columns: what a row reads as when the chunk
 * holding it never reached the file (a run killed in the middle of a
 * flush). No row can hold them: steps are >= 0, and the NaN payload is
 * not one arithmetic produces. */
#define DEM_H5U_ENERGY_FILL_STEP INT64_MIN
double dem_h5u_energy_fill(void);

/* Reads the first n rows of the open /energy columns (step first, as
 * long; then doubles) into new arrays cols[] (NULL when no rows) and
 * sets *rows to the rows that were written: n less what a run killed in
 * the middle of a flush left behind, namely trailing chunks that lie past
 * the end of the file's allocated space ("addr overflow") and trailing
 * rows that read as fill values in some column. Chunks a torn index no
 * longer finds are read from the addresses it lists
 * (dem_h5u_read_lost_chunks); lost[c] (if lost is not NULL) counts them
 * for column c. A column whose ds is < 0 (an older file lacks it) reads
 * as zeros. Returns < 0 (cols freed) when a read fails otherwise. */
herr_t dem_h5u_energy_read(const hid_t ds[DEM_H5U_ENERGY_N], hsize_t n,
                           void *cols[DEM_H5U_ENERGY_N], hsize_t *rows,
                           long lost[DEM_H5U_ENERGY_N]);

/* Rows [0, n) of chunked series ds, already read into buf (mem_type, rows
 * along the first dimension): each chunk whose first row reads as the
 * fill value but that the chunk index lists inside the file's allocated
 * space is read again from the address listed (src/io/h5_lost_chunks.c:
 * a kill can tear an index node so that HDF5's lookups miss chunks that
 * are in the file). Returns the number of chunks so read (0 for a sound
 * file), -1 when a read fails. */
long dem_h5u_read_lost_chunks(hid_t ds, hid_t mem_type, hsize_t n, void *buf);

/* What a writer makes once and uses for every dataset of its snapshots:
 * the string type and scalar dataspace of the "unit" and "description"
 * attributes, the write transfer and the group creation properties (made
 * anew for each attribute, dataset and group they cost more than a tenth
 * of a snapshot). A NULL kit where one is taken: made for the call. */
struct dem_h5u_kit {
  hid_t string_type, scalar, dxpl, gcpl, dcpl;
};
/* Creation properties of plist_class (H5P_DATASET_CREATE,
 * H5P_GROUP_CREATE, or H5P_FILE_CREATE for the root group) without the
 * object's times, which HDF5 stores by default (the clock's second at
 * creation and at each change): the same run writes the same bytes. */
hid_t dem_h5u_untimed(hid_t plist_class);
/* Makes kit's parts (all < 0 and -1 returned on failure). */
herr_t dem_h5u_kit_open(struct dem_h5u_kit *kit);
/* Closes what kit holds (parts < 0 are skipped) and sets them to -1. */
void dem_h5u_kit_close(struct dem_h5u_kit *kit);

/* A group that keeps its links in its object header (new-style, compact):
 * nothing else to rewrite when it changes. name NULL: anonymous. */
hid_t dem_h5u_compact_group(const struct dem_h5u_kit *kit, hid_t loc,
                            const char *name);
/* Scalar attributes, and a dataset's "unit" and "description" (when
 * given). */
herr_t dem_h5u_attr(hid_t loc, const char *name, hid_t file_type,
                    hid_t mem_type, const void *value);
herr_t dem_h5u_string_attr(hid_t loc, const char *name, const char *value);
herr_t dem_h5u_doc(const struct dem_h5u_kit *kit, hid_t ds, const char *unit,
                   const char *description);

/* A fixed 1-D (cols 0) or rows x cols dataset `name` of g with its unit
 * and description, open (caller closes it), nothing written; < 0 on
 * failure. */
hid_t dem_h5u_create_array(const struct dem_h5u_kit *kit, hid_t g,
                           const char *name, hid_t file_type, size_t rows,
                           size_t cols, const char *unit,
                           const char *description);

/* Reads rows [start, start + n) of dataset ds (cols values a row; 0: a
 * 1-D dataset) into buf. */
herr_t dem_h5u_read_rows(hid_t ds, hsize_t start, hsize_t n, hsize_t cols,
                         hid_t mem_type, void *buf);

/* Writes rows [start, start + n) of dataset ds (cols values a row; 0: a
 * 1-D dataset) from buf. */
herr_t dem_h5u_write_rows(hid_t ds, hsize_t start, hsize_t n, hsize_t cols,
                          hid_t mem_type, const void *buf);

/* A fixed 1-D (cols 0) or rows x cols dataset `name` of g, written from
 * data (nothing to write when rows is 0), with its unit and
 * description. */
herr_t dem_h5u_write_array(const struct dem_h5u_kit *kit, hid_t g,
                           const char *name, hid_t file_type, hid_t mem_type,
                           size_t rows, size_t cols, const void *data,
                           const char *unit, const char *description);

/* Appends n rows (of cols values; 0: a 1-D series) to the extendible
 * dataset ds, which holds `start` rows: extends it and writes buf. */
herr_t dem_h5u_append(hid_t ds, hsize_t start, hsize_t n, hsize_t cols,
                      hid_t mem_type, const void *buf);

#endif
