/* The table of every operator a scheme can name. Adding one: a file and a line
 * here. */
#include <string.h>

#include "operators/pipeline.h"

extern const struct dem_operator_type dem_op_reset_forces,
    dem_op_update_spheres, dem_op_neighbor_update, dem_op_contact_forces,
    dem_op_hertz_contacts, dem_op_gather_forces, dem_op_prescribed_load,
    dem_op_push_velocity, dem_op_push_position, dem_op_push_rotation;

const struct dem_operator_type *const dem_operator_types[] = {
    &dem_op_reset_forces,
    &dem_op_update_spheres,
    &dem_op_neighbor_update,
    &dem_op_contact_forces,
    &dem_op_hertz_contacts,
    &dem_op_gather_forces,
    &dem_op_prescribed_load,
    &dem_op_push_velocity,
    &dem_op_push_position,
    &dem_op_push_rotation,
    NULL};

const struct dem_operator_type *dem_operator_find(const char *name) {
  for (size_t i = 0; dem_operator_types[i]; i++)
    if (strcmp(dem_operator_types[i]->name, name) == 0)
      return dem_operator_types[i];
  return NULL;
}
