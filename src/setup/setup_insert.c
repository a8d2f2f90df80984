/* The particles section's insert entries: regions, shape mixes, rates or
 * counts, and size distributions, read and checked into sim->insert. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "setup/setup.h"
#include "sim/insert.h"

/* Fractions must sum to 1 within 1e-9; cum gets the running sums. */
static dem_status check_sum(const struct dem_node *at, const char *key,
                            const double *f, size_t n, double *cum) {
  double sum = 0;
  for (size_t k = 0; k < n; k++) {
    sum += f[k];
    cum[k] = sum;
  }
  if (fabs(sum - 1.0) > 1e-9)
    return dem_cfg_error(at,
                         "key '%s': the fractions sum to %.12g, not 1 "
                         "(within 1e-9)",
                         key, sum);
  cum[n - 1] = 1.0;
  return DEM_OK;
}

static dem_status read_shapes(const struct dem_node *def,
                              const struct dem_node *shapes,
                              struct dem_insert_spec *e) {
  static const char *const keys[] = {"shape", "fraction", NULL};
  const struct dem_node *one = dem_node_get(def, "shape");
  const struct dem_node *mix;
  dem_status st = dem_cfg_sequence(def, "shapes", 0, &mix);
  if (st)
    return st;
  if (!!one == !!mix)
    return dem_cfg_error(one ? one : def,
                         "insert: give one of 'shape' (a "
                         "name) or 'shapes' (a list of "
                         "{shape, fraction}), not %s",
                         one ? "both" : "neither");
  e->n_shapes = one ? 1 : dem_node_size(mix);
  if (e->n_shapes == 0)
    return dem_cfg_error(mix, "key 'shapes': the list is empty");
  e->shape = calloc(e->n_shapes, sizeof *e->shape);
  e->cum = calloc(e->n_shapes, sizeof *e->cum);
  double *f = calloc(e->n_shapes, sizeof *f);
  if (!e->shape || !e->cum || !f) {
    free(f);
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  }
  if (one) {
    e->cum[0] = 1.0;
    st = dem_setup_find_shape(shapes, def, &e->shape[0]);
  }
  for (size_t k = 0; !one && k < e->n_shapes && !st; k++) {
    const struct dem_node *m = dem_node_at(mix, k);
    if (!(st = dem_cfg_check_keys(m, keys, "particles.insert.shapes")) &&
        !(st = dem_setup_find_shape(shapes, m, &e->shape[k])))
      st = dem_cfg_double(m, "fraction", 1, 0, DEM_NONNEGATIVE, &f[k]);
  }
  if (!one && !st)
    st = check_sum(mix, "shapes", f, e->n_shapes, e->cum);
  free(f);
  return st;
}

/* One of uniform, normal, lognormal, table, or a plain number. */
dem_status dem_setup_read_scale(const struct dem_node *def, const char *where,
                                struct dem_size_dist *d) {
  static const char *const kinds[] = {"uniform", "normal", "lognormal", "table",
                                      NULL};
  static const char *const keys[][6] = {
      {"distribution", "min", "max", NULL},
      {"distribution", "mean", "std", "min", "max", NULL},
      {"distribution", "median", "sigma", "min", "max", NULL},
      {"distribution", "sizes", "fractions", NULL}};
  const struct dem_node *m = dem_node_get(def, "scale");
  int kind;
  dem_status st;
  d->kind = DEM_SIZE_FIXED;
  if (!m || dem_node_kind(m) == DEM_NODE_SCALAR) {
    if ((st = dem_cfg_double(def, "scale", 0, 1.0, DEM_POSITIVE, &d->a)))
      return st;
    d->min = d->max = d->a;
    return DEM_OK;
  }
  if ((st = dem_cfg_choice(m, "distribution", 1, 0, kinds, &kind)) ||
      (st = dem_cfg_check_keys(m, keys[kind], where)))
    return st;
  d->kind = DEM_SIZE_UNIFORM + kind;
  if (d->kind == DEM_SIZE_TABLE) {
    const struct dem_node *sizes, *fr;
    if ((st = dem_cfg_sequence(m, "sizes", 1, &sizes)) ||
        (st = dem_cfg_sequence(m, "fractions", 1, &fr)))
      return st;
    d->n = dem_node_size(sizes);
    if (d->n == 0 || dem_node_size(fr) != d->n)
      return dem_cfg_error(fr,
                           "key 'fractions': expected one fraction per size "
                           "(%zu sizes, %zu fractions)",
                           d->n, dem_node_size(fr));
    d->sizes = calloc(d->n, sizeof *d->sizes);
    d->cum = calloc(d->n, sizeof *d->cum);
    double *f = calloc(d->n, sizeof *f);
    if (!d->sizes || !d->cum || !f) {
      free(f);
      return dem_fail(DEM_ERR_NOMEM, "out of memory");
    }
    if (!(st =
              dem_cfg_vec(m, "sizes", 1, NULL, d->n, DEM_POSITIVE, d->sizes)) &&
        !(st = dem_cfg_vec(m, "fractions", 1, NULL, d->n, DEM_NONNEGATIVE, f)))
      st = check_sum(fr, "fractions", f, d->n, d->cum);
    free(f);
    d->min = d->max = d->n ? d->sizes[0] : 1;
    for (size_t k = 0; k < d->n; k++) {
      d->min = fmin(d->min, d->sizes[k]);
      d->max = fmax(d->max, d->sizes[k]);
    }
    return st;
  }
  const char *ka = kind == 1 ? "mean" : "median",
             *kb = kind == 1 ? "std" : "sigma";
  if ((st = dem_cfg_double(m, "min", 1, 0, DEM_POSITIVE, &d->min)) ||
      (st = dem_cfg_double(m, "max", 1, 0, DEM_POSITIVE, &d->max)) ||
      (kind > 0 && ((st = dem_cfg_double(m, ka, 1, 0, DEM_POSITIVE, &d->a)) ||
                    (st = dem_cfg_double(m, kb, 1, 0, DEM_POSITIVE, &d->b)))))
    return st;
  if (!(d->min <= d->max) || (kind > 0 && !(d->min < d->max)))
    return dem_cfg_error(dem_node_get(m, "max"),
                         "key 'max': must exceed 'min' (min %g, max %g)",
                         d->min, d->max);
  if (kind > 0) { /* the share of the distribution within [min, max] */
    double za = kind == 1 ? (d->min - d->a) / d->b : log(d->min / d->a) / d->b;
    double zb = kind == 1 ? (d->max - d->a) / d->b : log(d->max / d->a) / d->b;
    double p = 0.5 * (erfc(-zb / sqrt(2.0)) - erfc(-za / sqrt(2.0)));
    if (!(p >= 1e-3))
      return dem_cfg_error(m,
                           "key 'scale': [min, max] = [%g, %g] holds a "
                           "share %.3g of the distribution, less than 1e-3",
                           d->min, d->max, p);
  }
  return DEM_OK;
}

static dem_status read_region(const struct dem_node *def,
                              const struct dem_sim *sim,
                              struct dem_insert_spec *e) {
  static const char *const kinds[] = {"box", "cylinder", NULL};
  static const char *const box_keys[] = {"min", "max", NULL};
  static const char *const cyl_keys[] = {"center", "axis", "radius", "height",
                                         NULL};
  const struct dem_node *region, *m;
  dem_status st;
  if ((st = dem_cfg_mapping(def, "region", 1, &region)) ||
      (st = dem_cfg_check_keys(region, kinds, "particles.insert.region")))
    return st;
  if (dem_node_size(region) != 1)
    return dem_cfg_error(region, "key 'region': one 'box' or one 'cylinder'");
  e->region = strcmp(dem_node_key_at(region, 0), "box") == 0
                  ? DEM_REGION_BOX
                  : DEM_REGION_CYLINDER;
  if (e->region == DEM_REGION_BOX) {
    if ((st = dem_cfg_mapping(region, "box", 1, &m)) ||
        (st = dem_cfg_check_keys(m, box_keys, "particles.insert.region.box")) ||
        (st = dem_cfg_vec(m, "min", 1, NULL, 3, DEM_ANY, e->lo)) ||
        (st = dem_cfg_vec(m, "max", 1, NULL, 3, DEM_ANY, e->hi)))
      return st;
    for (int k = 0; k < 3; k++)
      if (!(e->lo[k] < e->hi[k]))
        return dem_cfg_error(dem_node_get(m, "max"),
                             "key 'max': must exceed 'min' in every "
                             "coordinate (axis %c: min %g, max %g)",
                             "xyz"[k], e -> lo[k], e -> hi[k]);
  } else {
    if ((st = dem_cfg_mapping(region, "cylinder", 1, &m)) ||
        (st = dem_cfg_check_keys(m, cyl_keys,
                                 "particles.insert.region.cylinder")) ||
        (st = dem_cfg_vec(m, "center", 1, NULL, 3, DEM_ANY, e->center)) ||
        (st = dem_cfg_vec(m, "axis", 1, NULL, 3, DEM_ANY, e->axis)) ||
        (st = dem_cfg_double(m, "radius", 1, 0, DEM_POSITIVE, &e->radius)) ||
        (st = dem_cfg_double(m, "height", 1, 0, DEM_POSITIVE, &e->height)))
      return st;
    double n = sqrt(e->axis[0] * e->axis[0] + e->axis[1] * e->axis[1] +
                    e->axis[2] * e->axis[2]);
    if (!(n > 0) || !isfinite(n))
      return dem_cfg_error(dem_node_get(m, "axis"),
                           "key 'axis': expected a nonzero vector");
    for (int k = 0; k < 3; k++)
      e->axis[k] /= n;
    for (int k = 0; k < 3; k++) { /* the cylinder's bounding box */
      double a = fabs(e->axis[k]);
      double ext = 0.5 * e->height * a + e->radius * sqrt(fmax(0, 1 - a * a));
      e->lo[k] = e->center[k] - ext;
      e->hi[k] = e->center[k] + ext;
    }
  }
  for (int k = 0; sim->walls.enabled && k < 3; k++)
    if (e->lo[k] < sim->walls.lo[k] || e->hi[k] > sim->walls.hi[k])
      return dem_cfg_error(m,
                           "insert: the region is not inside the domain box "
                           "(along %c it spans [%g, %g], the box [%g, %g])",
                           "xyz"[k], e -> lo[k], e -> hi[k], sim -> walls.lo[k],
                           sim->walls.hi[k]);
  return DEM_OK;
}

static dem_status read_when(const struct dem_node *def,
                            const struct dem_sim *sim,
                            struct dem_insert_spec *e) {
  const struct dem_node *rate = dem_node_get(def, "rate");
  const struct dem_node *count = dem_node_get(def, "count");
  dem_status st;
  if (!!rate == !!count)
    return dem_cfg_error(rate ? rate : def,
                         "insert: give one of 'rate' (bodies per second) or "
                         "'count' (bodies), not %s",
                         rate ? "both" : "neither");
  if ((st = dem_cfg_double(def, "start", 0, 0, DEM_NONNEGATIVE, &e->start)) ||
      (st = dem_cfg_double(def, "end", 0, sim->end_time, DEM_NONNEGATIVE,
                           &e->end)))
    return st;
  if (e->end < e->start)
    return dem_cfg_error(dem_node_get(def, "end"),
                         "key 'end': %g s is before 'start' (%g s)", e->end,
                         e->start);
  if (count)
    return dem_cfg_long(def, "count", 1, 0, 1, DEM_MAX_SPHERES, &e->count);
  if ((st = dem_cfg_double(def, "rate", 1, 0, DEM_POSITIVE, &e->rate)))
    return st;
  double n = floor(e->rate * (e->end - e->start) + 1e-9);
  if (!(n <= (double)DEM_MAX_SPHERES))
    return dem_cfg_error(rate,
                         "key 'rate': %g bodies per second over %g s is more "
                         "than the limit of %ld bodies",
                         e->rate, e->end - e->start, DEM_MAX_SPHERES);
  e->count = (long)n;
  return DEM_OK;
}

static dem_status read_one(const struct dem_node *def,
                           const struct dem_node *shapes, struct dem_sim *sim,
                           struct dem_insert_spec *e) {
  static const char *const keys[] = {
      "region", "shape", "shapes", "rate",         "count", "velocity",
      "scale",  "start", "end",    "max_attempts", NULL};
  static const double zero[3] = {0, 0, 0};
  dem_status st;
  if ((st = dem_cfg_check_keys(def, keys, "particles.insert")) ||
      (st = read_region(def, sim, e)) || (st = read_shapes(def, shapes, e)) ||
      (st = read_when(def, sim, e)) ||
      (st = dem_setup_read_scale(def, "particles.insert.scale", &e->size)) ||
      (st = dem_cfg_vec(def, "velocity", 0, zero, 3, DEM_ANY, e->v)) ||
      (st = dem_cfg_long(def, "max_attempts", 0, 1000, 1, 100000000,
                         &e->max_attempts)))
    return st;
  /* Sizes the neighbour grid and the default skin must know of. */
  for (size_t k = 0; k < e->n_shapes; k++) {
    const struct dem_shape *sh = &sim->shapes[e->shape[k]];
    e->reach = fmax(e->reach, sh->props.bounding_radius * e->size.max);
    for (size_t i = 0; i < sh->n_spheres; i++) {
      sim->max_radius = fmax(sim->max_radius, sh->radius[i] * e->size.max);
      sim->min_radius = fmin(sim->min_radius, sh->radius[i] * e->size.min);
    }
  }
  return DEM_OK;
}

dem_status dem_setup_insert(const struct dem_node *list,
                            const struct dem_node *shapes,
                            struct dem_sim *sim) {
  size_t n = 0;
  for (size_t i = 0; i < dem_node_size(list); i++)
    n += dem_node_get(dem_node_at(list, i), "insert") != NULL;
  if (n == 0)
    return DEM_OK;
  struct dem_inserter *ins = calloc(1, sizeof *ins);
  if (ins)
    ins->spec = calloc(n, sizeof *ins->spec);
  if (!ins || !ins->spec) {
    free(ins);
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  }
  sim->insert = ins;
  dem_status st = DEM_OK;
  for (size_t i = 0; i < dem_node_size(list) && !st; i++) {
    const struct dem_node *def = dem_node_get(dem_node_at(list, i), "insert");
    if (def && !(st = dem_cfg_mapping(dem_node_at(list, i), "insert", 1, &def)))
      st = read_one(def, shapes, sim, &ins->spec[ins->n++]);
  }
  return st;
}
