/* Top-level configuration sections: simulation, domain, contact, scheme,
 * output. */
#include "setup/setup.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "operators/pipeline.h"

static const char *const top_keys[] = {
    "simulation", "materials", "shapes", "particles", "domain",
    "contact",    "scheme",    "loads",  "output",    NULL};

static dem_status read_simulation(const struct dem_node *root,
                                  struct dem_sim *sim) {
  static const char *const keys[] = {"time_step", "end_time", "seed", "gravity",
                                     NULL};
  static const double no_gravity[3] = {0, 0, 0};
  const struct dem_node *m;
  long seed;
  dem_status st;
  if ((st = dem_cfg_mapping(root, "simulation", 1, &m)) ||
      (st = dem_cfg_check_keys(m, keys, "simulation")) ||
      (st = dem_cfg_double(m, "time_step", 1, 0, DEM_POSITIVE, &sim->dt)) ||
      (st = dem_cfg_double(m, "end_time", 1, 0, DEM_NONNEGATIVE,
                           &sim->end_time)) ||
      (st = dem_cfg_long(m, "seed", 0, 1, 0, 0x7fffffffffffffffL, &seed)) ||
      (st = dem_cfg_vec(m, "gravity", 0, no_gravity, 3, DEM_ANY, sim->gravity)))
    return st;
  sim->seed = (uint64_t)seed;
  double steps = sim->end_time / sim->dt;
  if (steps > 1e15)
    return dem_cfg_error(dem_node_get(m, "end_time"),
                         "end_time / time_step = %g steps is too many", steps);
  /* Round so that 20 s at 38 us gives the nearest whole number of steps. */
  sim->n_steps = (long)(steps + 0.5);
  return DEM_OK;
}

/* domain.periodic: a list of distinct axis names; it needs the box. */
static dem_status read_periodic(const struct dem_node *m,
                                struct dem_walls *wl) {
  const struct dem_node *seq;
  dem_status st = dem_cfg_sequence(m, "periodic", 0, &seq);
  if (st || !seq)
    return st;
  if (!dem_node_get(m, "box"))
    return dem_cfg_error(dem_node_get(m, "periodic"),
                         "key 'periodic': periodic axes need a box "
                         "(domain.box: {min, max}), the period along each");
  for (size_t i = 0; i < dem_node_size(seq); i++) {
    const struct dem_node *a = dem_node_at(seq, i);
    const char *name = dem_node_scalar(a);
    int k = !name || strlen(name) != 1 ? -1
            : name[0] == 'x'           ? 0
            : name[0] == 'y'           ? 1
            : name[0] == 'z'           ? 2
                                       : -1;
    if (k < 0)
      return dem_cfg_error(a,
                           "key 'periodic': '%s' is not an axis (x, y "
                           "or z)",
                           name ? name : "(a list or a mapping)");
    if (wl->periodic >> k & 1u)
      return dem_cfg_error(a, "key 'periodic': axis '%s' is listed twice",
                           name);
    wl->periodic |= 1u << k;
  }
  return DEM_OK;
}

/* A periodic axis at least twice the largest reach of a pair, 2 r_max +
 * skin, long: then every pair within reach has one nearest image. */
static dem_status check_periodic(const struct dem_node *root,
                                 struct dem_sim *sim) {
  struct dem_walls *wl = &sim->walls;
  const double reach = 2.0 * sim->max_radius + sim->nb.skin;
  for (int k = 0; k < 3; k++) {
    wl->period[k] = wl->inv_period[k] = 0.0;
    if (!(wl->periodic >> k & 1u))
      continue;
    wl->period[k] = wl->hi[k] - wl->lo[k];
    wl->inv_period[k] = 1.0 / wl->period[k];
    if (!(wl->period[k] >= 2.0 * reach))
      return dem_cfg_error(
          dem_node_get(dem_node_get(root, "domain"), "periodic"),
          "key 'periodic': the box is %g m long along %c, less than twice "
          "the largest reach of a pair, 2 (2 r_max + skin) = %g m (largest "
          "sphere radius %g m, contact.skin %g m): make the box longer "
          "along %c or the skin smaller",
          wl->period[k], "xyz"[k], 2.0 * reach, sim -> max_radius,
          sim -> nb.skin, "xyz"[k]);
  }
  return DEM_OK;
}

static dem_status read_domain(const struct dem_node *root,
                              struct dem_sim *sim) {
  static const char *const keys[] = {"box", "wall_material", "meshes",
                                     "periodic", NULL};
  static const char *const box_keys[] = {"min", "max", NULL};
  const struct dem_node *m, *box;
  const char *material;
  dem_status st;
  if ((st = dem_cfg_mapping(root, "domain", 0, &m)) || !m)
    return st;
  if ((st = dem_cfg_check_keys(m, keys, "domain")) ||
      (st = read_periodic(m, &sim->walls)) ||
      (st = dem_cfg_mapping(m, "box", !dem_node_get(m, "meshes"), &box)) ||
      !box)
    return st;
  if ((st = dem_cfg_check_keys(box, box_keys, "domain.box")) ||
      (st = dem_cfg_vec(box, "min", 1, NULL, 3, DEM_ANY, sim->walls.lo)) ||
      (st = dem_cfg_vec(box, "max", 1, NULL, 3, DEM_ANY, sim->walls.hi)) ||
      (st = dem_cfg_string(m, "wall_material", 1, NULL, &material)) ||
      (st = dem_setup_find_material(dem_node_get(root, "materials"),
                                    dem_node_get(m, "wall_material"), material,
                                    &sim->walls.material)))
    return st;
  for (int k = 0; k < 3; k++) {
    if (!(sim->walls.lo[k] < sim->walls.hi[k]))
      return dem_cfg_error(dem_node_get(box, "max"),
                           "key 'max': must exceed 'min' in every coordinate "
                           "(axis %c: min %g, max %g)",
                           "xyz"[k], sim -> walls.lo[k], sim->walls.hi[k]);
    /* +-1e308 are finite, their difference is not. */
    if (!isfinite(sim->walls.hi[k] - sim->walls.lo[k]))
      return dem_cfg_error(dem_node_get(box, "max"),
                           "key 'max': the box's extent along %c, max - min, "
                           "overflows (min %g, max %g)",
                           "xyz"[k], sim -> walls.lo[k], sim->walls.hi[k]);
  }
  sim->walls.enabled = 1;
  return DEM_OK;
}

static dem_status read_output(const struct dem_config *cfg,
                              const struct dem_node *root,
                              struct dem_output_options *out) {
  static const char *const keys[] = {"file", "snapshot_interval",
                                     "energy_interval", "print_shapes", NULL};
  const struct dem_node *m;
  dem_status st;
  out->file = NULL;
  out->snapshot_interval = 0;
  out->energy_interval = 0;
  out->print_shapes = 1;
  if ((st = dem_cfg_mapping(root, "output", 0, &m)) || !m)
    return st;
  return (st = dem_cfg_check_keys(m, keys, "output")) ||
                 (st = dem_cfg_string(m, "file", 0, NULL, &out->file)) ||
                 (st = dem_cfg_double(m, "snapshot_interval", 0, 0,
                                      DEM_NONNEGATIVE,
                                      &out->snapshot_interval)) ||
                 (st =
                      dem_cfg_double(m, "energy_interval", 0, 0,
                                     DEM_NONNEGATIVE, &out->energy_interval)) ||
                 (st =
                      dem_cfg_bool(m, "print_shapes", 0, 1, &out->print_shapes))
             ? st
             : DEM_OK;
}

/* The time step must be within these multiples of the Rayleigh time step
 * when contacts can happen: far above it contacts are never resolved, far
 * below it nothing moves within the precision of the positions (both are
 * what sizes or moduli off by many orders of magnitude give). */
#define RAYLEIGH_MAX 1e3
#define RAYLEIGH_MIN 1e-9

/* The smallest Rayleigh time step of any sphere of any shape,
 * pi R sqrt(rho / G) / (0.1631 nu + 0.8766), and where it is. */
static double rayleigh_time_step(const struct dem_sim *sim, size_t *shape,
                                 double *radius) {
  double best = HUGE_VAL;
  for (size_t k = 0; k < sim->n_shapes; k++) {
    const struct dem_shape *sh = &sim->shapes[k];
    const struct dem_material *m = &sim->materials[sh->material];
    double g = m->young_modulus / (2.0 * (1.0 + m->poisson_ratio));
    for (size_t i = 0; i < sh->n_spheres; i++) {
      double dt = 3.14159265358979323846 * sh->radius[i] *
                  sqrt(m->density / g) / (0.1631 * m->poisson_ratio + 0.8766);
      if (dt < best) {
        best = dt;
        *shape = k;
        *radius = sh->radius[i];
      }
    }
  }
  return best;
}

static dem_status check_time_step(const struct dem_node *root,
                                  const struct dem_sim *sim) {
  /* One body and no walls: nothing ever touches. */
  if (sim->b.n < 2 && !sim->walls.enabled && !sim->mw)
    return DEM_OK;
  size_t shape = 0;
  double radius = 0, dtr = rayleigh_time_step(sim, &shape, &radius);
  double ratio = sim->dt / dtr;
  const struct dem_node *at =
      dem_node_get(dem_node_get(root, "simulation"), "time_step");
  if (!(dtr > 0) || !isfinite(dtr))
    return dem_cfg_error(at,
                         "key 'time_step': the Rayleigh time step of shape "
                         "'%s' (radius %g m) is %g s: the material's "
                         "density and moduli are out of range",
                         sim->shapes[shape].name, radius, dtr);
  if (ratio > RAYLEIGH_MAX)
    return dem_cfg_error(at,
                         "key 'time_step': %g s is %.3g times the Rayleigh "
                         "time step %.6g s (shape '%s', radius %g m), more "
                         "than %g times: no contact would be resolved; use "
                         "a time step near the Rayleigh one, or check the "
                         "sizes and the materials",
                         sim->dt, ratio, dtr, sim->shapes[shape].name, radius,
                         RAYLEIGH_MAX);
  if (ratio < RAYLEIGH_MIN)
    return dem_cfg_error(at,
                         "key 'time_step': %g s is %.3g times the Rayleigh "
                         "time step %.6g s (shape '%s', radius %g m), less "
                         "than %g times: nothing would move within the "
                         "precision of the positions; check the sizes and "
                         "the materials",
                         sim->dt, ratio, dtr, sim->shapes[shape].name, radius,
                         RAYLEIGH_MIN);
  return DEM_OK;
}

dem_status dem_setup(const struct dem_config *cfg, struct dem_sim *sim,
                     struct dem_output_options *out) {
  const struct dem_node *root = cfg->root;
  dem_status st;
  if ((st = dem_cfg_check_keys(root, top_keys, "the top level")) ||
      (st = read_simulation(root, sim)) ||
      (st = dem_setup_materials(root, sim)) || (st = read_domain(root, sim)) ||
      (st = dem_setup_meshes(cfg, root, sim)) ||
      (st = dem_setup_shapes(cfg, root, sim)) ||
      (st = dem_setup_particles(root, sim)) ||
      (st = read_output(cfg, root, out)) ||
      (st = dem_setup_contact(root, sim)) || (st = check_periodic(root, sim)) ||
      (st = dem_setup_mesh_copies(root, sim)) ||
      (st = check_time_step(root, sim)))
    return st;
  return DEM_OK;
}

dem_status dem_setup_pipeline(const struct dem_config *cfg, struct dem_sim *sim,
                              struct dem_pipeline **out) {
  const struct dem_node *loads = NULL;
  dem_status st = dem_cfg_sequence(cfg->root, "loads", 0, &loads);
  if (!st)
    st = dem_pipeline_build(dem_node_get(cfg->root, "scheme"), loads, sim, out);
  return st;
}
