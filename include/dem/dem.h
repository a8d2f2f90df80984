/* dem's public API: run or check a configuration. */
#ifndef DEM_DEM_H
#define DEM_DEM_H

#include <stddef.h>

#include "dem/status.h"

#define DEM_VERSION DEM_VERSION_STRING

struct dem_run_options {
  const char *config_path;
  const char *output;      /* NULL: output.file, else CONFIG basename .h5 */
  const char *const *sets; /* "path.key=value" overrides, applied in order */
  size_t n_sets;
  int threads;         /* 0: OpenMP's default */
  int force;           /* overwrite an existing output file */
  int quiet;           /* no progress line or summary */
  int check_only;      /* validate and report, write nothing */
  const char *restart; /* continue the run in this output file from
                          its last snapshot, appending to it */
};

/* Loads, checks, sets up and runs a configuration, writing the HDF5 file.
 * Everything is checked before the output file is created. */
dem_status dem_run(const struct dem_run_options *opt);

#endif
