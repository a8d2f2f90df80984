/* The contact section: the contact law, the material-pair table and the
 * neighbour search's settings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "contact/model.h"
#include "core/names.h"
#include "setup/setup.h"

/* Mixing when no contact.pairs entry names the pair: the geometric mean
 * of the two materials' values. */
static struct dem_pair_props mixed(const struct dem_material *a,
                                   const struct dem_material *b) {
  return (struct dem_pair_props){
      sqrt(a->restitution * b->restitution), sqrt(a->friction * b->friction),
      sqrt(a->rolling_friction * b->rolling_friction), 0};
}

/* One contact.pairs entry: {materials: [a, b], restitution, friction,
 * rolling_friction}, each value optional (the mixed one otherwise). */
static dem_status read_pair(struct dem_sim *sim,
                            const struct dem_node *materials,
                            const struct dem_node *item,
                            struct dem_pair_props *table) {
  static const char *const keys[] = {"materials", "restitution", "friction",
                                     "rolling_friction", NULL};
  static const struct dem_range restitution = {0.0, 1.0, DEM_OPEN, DEM_CLOSED};
  const struct dem_node *names;
  int m[2];
  dem_status st;
  if ((st = dem_cfg_check_keys(item, keys, "contact.pairs")) ||
      (st = dem_cfg_sequence(item, "materials", 1, &names)))
    return st;
  if (dem_node_size(names) != 2)
    return dem_cfg_error(names, "key 'materials': expected two material "
                                "names, [a, b]");
  for (int k = 0; k < 2; k++) {
    const struct dem_node *n = dem_node_at(names, (size_t)k);
    const char *name = dem_node_scalar(n);
    if (!name)
      return dem_cfg_error(n, "key 'materials': expected a material name");
    if ((st = dem_setup_find_material(materials, n, name, &m[k])))
      return st;
  }
  size_t nm = sim->n_materials;
  struct dem_pair_props *p = &table[(size_t)m[0] * nm + (size_t)m[1]];
  if (p->given)
    return dem_cfg_error(item,
                         "contact.pairs: the pair [%s, %s] is given "
                         "twice",
                         sim->materials[m[0]].name, sim->materials[m[1]].name);
  if ((st = dem_cfg_double(item, "restitution", 0, p->restitution, restitution,
                           &p->restitution)) ||
      (st = dem_cfg_double(item, "friction", 0, p->friction, DEM_NONNEGATIVE,
                           &p->friction)) ||
      (st = dem_cfg_double(item, "rolling_friction", 0, p->rolling_friction,
                           DEM_NONNEGATIVE, &p->rolling_friction)))
    return st;
  p->given = 1;
  table[(size_t)m[1] * nm + (size_t)m[0]] = *p;
  return DEM_OK;
}

/* Every pair of materials: mixed, then the pairs given. */
static dem_status pair_table(struct dem_sim *sim,
                             const struct dem_node *materials,
                             const struct dem_node *pairs,
                             struct dem_pair_props **out) {
  size_t nm = sim->n_materials;
  struct dem_pair_props *t = calloc(nm > 0 ? nm * nm : 1, sizeof *t);
  dem_status st = DEM_OK;
  if (!t)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  for (size_t a = 0; a < nm; a++)
    for (size_t b = 0; b < nm; b++)
      t[a * nm + b] = mixed(&sim->materials[a], &sim->materials[b]);
  for (size_t i = 0; !st && i < dem_node_size(pairs); i++)
    st = read_pair(sim, materials, dem_node_at(pairs, i), t);
  if (st) {
    free(t);
    return st;
  }
  *out = t;
  return DEM_OK;
}

dem_status dem_setup_contact(const struct dem_node *root, struct dem_sim *sim) {
  static const char *const keys[] = {"model",       "skin",  "broad_phase",
                                     "sort_bodies", "pairs", NULL};
  /* In the order of enum dem_broad_phase and enum dem_sort_bodies. */
  static const char *const broad[] = {"auto", "on", "off", NULL};
  static const char *const sort[] = {"auto", "on", "off", NULL};
  const struct dem_node *m, *pairs = NULL;
  int model = 0;
  dem_status st;
  sim->nb.skin = -1;
  sim->nb.broad_phase = DEM_BROAD_AUTO;
  sim->nb.sort_bodies = DEM_SORT_AUTO;
  if ((st = dem_cfg_mapping(root, "contact", 0, &m)) ||
      (m && (st = dem_cfg_check_keys(m, keys, "contact"))))
    return st;
  const char **models =
      dem_table_names((const void *const *)dem_contact_models);
  if (!models)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  if (m && (st = dem_cfg_choice(m, "model", 0, 0, models, &model))) {
    free(models);
    return st;
  }
  free(models);
  if (m &&
      ((st = dem_cfg_choice(m, "broad_phase", 0, DEM_BROAD_AUTO, broad,
                            &sim->nb.broad_phase)) ||
       (st = dem_cfg_choice(m, "sort_bodies", 0, DEM_SORT_AUTO, sort,
                            &sim->nb.sort_bodies)) ||
       (st = dem_cfg_sequence(m, "pairs", 0, &pairs)) ||
       (dem_node_get(m, "skin") &&
        (st = dem_cfg_double(m, "skin", 1, 0, DEM_POSITIVE, &sim->nb.skin)))))
    return st;
  if (sim->nb.skin < 0) /* default: a tenth of the smallest radius */
    sim->nb.skin = 0.1 * sim->min_radius;
  struct dem_pair_props *table = NULL;
  if ((st = pair_table(sim, dem_node_get(root, "materials"), pairs, &table)))
    return st;
  st = dem_contact_law_init(sim, dem_contact_models[model], table);
  free(table);
  if (st && m)
    dem_error_locate(dem_node_file(m), dem_node_line(m), dem_node_col(m));
  return st;
}
