/* Whether bodies hold a value that is not finite: dem run's check after
 * each step (run/integrate.c), over all bodies or in the pipeline's tiles. */
#ifndef DEM_SIM_FINITE_H
#define DEM_SIM_FINITE_H

#include <stddef.h>

#include "sim/sim.h"

/* Bodies [i0, i1): one has a position, orientation, velocity or angular
 * velocity that is not finite. */
int dem_bodies_motion_suspect(const struct dem_bodies *b, size_t i0, size_t i1);

/* Bodies [i0, i1): one has a force or a torque that is not finite. */
int dem_bodies_loads_suspect(const struct dem_bodies *b, size_t i0, size_t i1);

#endif
