/* Contact forces on spheres, their gathering onto bodies, and elastic energy.
 */
#ifndef DEM_FORCES_H
#define DEM_FORCES_H

#include "sim/sim.h"

/* Adds each sphere's Hertz forces (other bodies' spheres from its neighbour
 * list, then the walls) to s->force. Each sphere writes only its own
 * force: gathered, never scattered. */
void dem_forces_hertz(struct dem_sim *sim);

/* Adds to each body the sum of its member spheres' forces, in member
 * order, the torque (x_s - x_b) x f_s about its centre of mass, and
 * gravity; the sphere forces are moved, not copied: they are zero after. */
void dem_forces_gather(struct dem_sim *sim);

/* Hertz elastic energy of every sphere-sphere and sphere-wall contact
 * (each pair counted once). Needs current neighbour lists and a scratch
 * array of one double per sphere. */
double dem_energy_elastic(const struct dem_sim *sim, double *scratch);

#endif
