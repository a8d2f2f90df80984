/* The table of rotation schemes, lookup by name, and Euler's equations. */
#include "integrators/rotation.h"

#include <string.h>

#include "integrators/rot_common.h"

extern const struct dem_rotation_integrator dem_rot_spiral_leapfrog;
extern const struct dem_rotation_integrator dem_rot_spiral;
extern const struct dem_rotation_integrator dem_rot_velocity_verlet_spiral;
extern const struct dem_rotation_integrator dem_rot_direct_euler;
extern const struct dem_rotation_integrator dem_rot_velocity_verlet;
extern const struct dem_rotation_integrator dem_rot_fincham;
extern const struct dem_rotation_integrator dem_rot_buss;
extern const struct dem_rotation_integrator dem_rot_omelyan;
extern const struct dem_rotation_integrator dem_rot_johnson;
extern const struct dem_rotation_integrator dem_rot_pfc4;
extern const struct dem_rotation_integrator dem_rot_pcdm;
extern const struct dem_rotation_integrator dem_rot_rk4;

const struct dem_rotation_integrator *const dem_rotation_integrators[] = {
    &dem_rot_spiral_leapfrog,
    &dem_rot_spiral,
    &dem_rot_velocity_verlet_spiral,
    &dem_rot_direct_euler,
    &dem_rot_velocity_verlet,
    &dem_rot_fincham,
    &dem_rot_buss,
    &dem_rot_omelyan,
    &dem_rot_johnson,
    &dem_rot_pfc4,
    &dem_rot_pcdm,
    &dem_rot_rk4,
    NULL,
};

const struct dem_rotation_integrator *dem_rotation_find(const char *name) {
  if (!name)
    return NULL;
  for (size_t i = 0; dem_rotation_integrators[i]; i++)
    if (strcmp(dem_rotation_integrators[i]->name, name) == 0)
      return dem_rotation_integrators[i];
  return NULL;
}

void dem_euler_wdot(const double inertia[3], const double w[3],
                    const double torque_body[3], double wdot[3]) {
  double r[3];
  rot_wdot(r, inertia, w, torque_body);
  v3_copy(wdot, r);
}
