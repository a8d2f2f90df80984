/* The load on each wall: the force and torque the spheres exert on the
 * box's walls and on each mesh, from the wall contacts' forces. */
#ifndef DEM_WALL_LOADS_H
#define DEM_WALL_LOADS_H

#include <stddef.h>

#include "sim/sim.h"

/* The walls that carry a load, by slot: the box's walls that exist (not
 * on a periodic axis) in wall order (x min, x max, y min, ... z max), then
 * the meshes in config order. */
size_t dem_wall_load_count(const struct dem_sim *sim);

/* The box's walls' names, in wall order: "box_xmin" ... "box_zmax" (no
 * mesh may take them). */
extern const char *const dem_box_wall_names[DEM_N_WALLS];

/* The name of slot k: a box wall's, or the mesh's name. */
const char *dem_wall_load_name(const struct dem_sim *sim, size_t slot);

/* The point slot k's torque is taken about at time t: the centre of a box
 * wall's face; a mesh's motion centre (`motion.center`, the origin when
 * not given), moved with the mesh's velocity after its start. */
void dem_wall_load_point(const struct dem_sim *sim, size_t slot, double t,
                         double out[3]);

/* Each slot's load at the last force evaluation (the positions now):
 * load[k][0..2] the force the spheres exert on it (minus the sum of its
 * contacts' forces on the spheres), load[k][3..5] the torque of those
 * forces at the contact points about point[k] (set here, at the meshes'
 * time t_eval) plus the wall's share of the contacts' rolling torques.
 * Summed sphere by sphere in id order: the same, bitwise, for any thread
 * count. Call before anything rebuilds the contact lists after the
 * evaluation (their forces do not follow a rebuild). */
void dem_contact_wall_loads(const struct dem_sim *sim, double (*point)[3],
                            double (*load)[6]);

#endif
