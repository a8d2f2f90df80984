/* The one place where all workers agree on a decision: rebuild the
 * neighbour lists now, stop on a suspect state, stop on an error. */
#ifndef DEM_AGREE_H
#define DEM_AGREE_H

#include "dem/status.h"

/* Each caller has already reduced its value over the threads of this
 * process (an OpenMP reduction in its loop); these reduce it over the
 * processes of the run. Today a run is one process, so they return the
 * value as it is; a distributed version (domain decomposition, as LAMMPS,
 * LIGGGHTS and exaDEM have) replaces these bodies with an all-reduce and
 * leaves every caller as it is. */

/* Whether any worker says yes. */
static inline int dem_agree_any(int local) { return local != 0; }

/* The largest value any worker holds. */
static inline double dem_agree_max(double local) { return local; }

/* The first failure of any worker (DEM_OK when none failed). */
static inline dem_status dem_agree_status(dem_status local) { return local; }

#endif
