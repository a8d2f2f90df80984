/* Moving sphere forces and torques onto their bodies, with gravity. */
#ifndef DEM_FORCES_H
#define DEM_FORCES_H

#include "sim/sim.h"

/* Adds to each body the sum of its member spheres' forces, in member
 * order, their torques (x_s - x_b) x f_s + t_s about its centre of mass,
 * and gravity; the sphere forces and torques are moved, not copied: they
 * are zero after. */
void dem_forces_gather(struct dem_sim *sim);

#endif
