/* The materials section. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup/setup.h"

dem_status dem_setup_find_material(const struct dem_node *materials,
                                   const struct dem_node *at, const char *name,
                                   int *out) {
  size_t k = dem_node_find(materials, name);
  if (k != SIZE_MAX) {
    *out = (int)k;
    return DEM_OK;
  }
  const char *near = dem_node_closest_key(materials, name);
  return dem_cfg_error(at, "unknown material '%s'%s%s%s", name,
                       near ? " (did you mean '" : "", near ? near : "",
                       near ? "'?)" : "");
}

dem_status dem_setup_materials(const struct dem_node *root,
                               struct dem_sim *sim) {
  static const char *const keys[] = {
      "density",     "young_modulus", "poisson_ratio",
      "restitution", "friction",      "rolling_friction",
      NULL};
  static const struct dem_range poisson = {-1.0, 0.5, DEM_OPEN, DEM_OPEN};
  static const struct dem_range restitution = {0.0, 1.0, DEM_OPEN, DEM_CLOSED};
  const struct dem_node *m;
  dem_status st;
  if ((st = dem_cfg_mapping(root, "materials", 1, &m)))
    return st;
  size_t n = dem_node_size(m);
  if (n == 0)
    return dem_cfg_error(m, "key 'materials': define at least one material");
  if (n > DEM_MAX_MATERIALS)
    return dem_cfg_error(m,
                         "key 'materials': %zu materials, more than the "
                         "limit of %d",
                         n, DEM_MAX_MATERIALS);
  sim->materials = calloc(n, sizeof *sim->materials);
  if (!sim->materials)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    struct dem_material *mat = &sim->materials[i];
    const struct dem_node *def = dem_node_at(m, i);
    char where[160];
    snprintf(where, sizeof where, "materials.%s", dem_node_key_at(m, i));
    if (!(mat->name = strdup(dem_node_key_at(m, i))))
      return dem_fail(DEM_ERR_NOMEM, "out of memory");
    sim->n_materials = i + 1;
    if ((st = dem_cfg_check_keys(def, keys, where)) ||
        (st = dem_cfg_double(def, "density", 1, 0, DEM_POSITIVE,
                             &mat->density)) ||
        (st = dem_cfg_double(def, "young_modulus", 1, 0, DEM_POSITIVE,
                             &mat->young_modulus)) ||
        (st = dem_cfg_double(def, "poisson_ratio", 1, 0, poisson,
                             &mat->poisson_ratio)) ||
        (st = dem_cfg_double(def, "restitution", 0, 1.0, restitution,
                             &mat->restitution)) ||
        (st = dem_cfg_double(def, "friction", 0, 0.0, DEM_NONNEGATIVE,
                             &mat->friction)) ||
        (st = dem_cfg_double(def, "rolling_friction", 0, 0.0, DEM_NONNEGATIVE,
                             &mat->rolling_friction)))
      return st;
  }
  return DEM_OK;
}
