/* The shapes section: clump templates from inline spheres or sphere files, and
 * their mass properties. */
#include <errno.h>
#include <float.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup/setup.h"

/* Path of `file` relative to the directory of the config file. */
char *dem_setup_relative_path(const char *config_path, const char *file) {
  if (file[0] == '/' || !config_path)
    return strdup(file);
  char *copy = strdup(config_path);
  if (!copy)
    return NULL;
  const char *dir = dirname(copy);
  size_t len = strlen(dir) + strlen(file) + 2;
  char *out = malloc(len);
  if (out)
    snprintf(out, len, "%s/%s", dir, file);
  free(copy);
  return out;
}

/* Reads "x, y, z, r" lines (commas or blanks; '#' starts a comment) from
 * a regular file of at most DEM_SHAPE_FILE_MAX_BYTES, holding at most
 * DEM_CLUMP_MAX_SPHERES spheres. */
static dem_status read_sphere_file(const struct dem_node *at, const char *path,
                                   double scale, struct dem_sphere_def **out,
                                   size_t *n_out) {
  char why[160];
  FILE *f =
      dem_open_input_file(path, DEM_SHAPE_FILE_MAX_BYTES, why, sizeof why);
  if (!f)
    return dem_cfg_error(at, "key 'file': cannot open '%s': %s", path, why);
  size_t n = 0, cap = 0;
  long long bytes = 0;
  struct dem_sphere_def *s = NULL;
  char line[1024];
  int lineno = 0;
  dem_status st = DEM_OK;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    size_t len = strlen(line);
    bytes += (long long)len;
    if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
      st = dem_cfg_error(at,
                         "key 'file': %s:%d: line longer than %zu characters",
                         path, lineno, sizeof line - 2);
      break;
    }
    if (bytes > DEM_SHAPE_FILE_MAX_BYTES) { /* it grew after it was opened */
      char limit[32];
      dem_format_bytes(DEM_SHAPE_FILE_MAX_BYTES, limit, sizeof limit);
      st = dem_cfg_error(at, "key 'file': '%s' is larger than the limit of %s",
                         path, limit);
      break;
    }
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    for (char *c = line; *c; c++)
      if (*c == ',')
        *c = ' ';
    double v[4];
    char extra;
    int got =
        sscanf(line, "%lf %lf %lf %lf %c", &v[0], &v[1], &v[2], &v[3], &extra);
    if (got == EOF || got == -1)
      continue; /* blank line */
    if (got != 4 || !(v[3] > 0)) {
      st = dem_cfg_error(at,
                         "key 'file': %s:%d: expected 'x, y, z, r' with r > "
                         "0",
                         path, lineno);
      break;
    }
    if (n == DEM_CLUMP_MAX_SPHERES) {
      st = dem_cfg_error(at,
                         "key 'file': '%s' holds more than %d spheres, the "
                         "limit for one shape",
                         path, DEM_CLUMP_MAX_SPHERES);
      break;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      struct dem_sphere_def *grown = realloc(s, cap * sizeof *s);
      if (!grown) {
        st = dem_fail(DEM_ERR_NOMEM, "out of memory reading %s", path);
        break;
      }
      s = grown;
    }
    for (int k = 0; k < 3; k++)
      s[n].center[k] = v[k] * scale;
    s[n].radius = v[3] * scale;
    n++;
  }
  if (!st && ferror(f))
    st = dem_cfg_error(at, "key 'file': cannot read '%s': %s", path,
                       strerror(errno));
  fclose(f);
  if (!st && n == 0)
    st = dem_cfg_error(at, "key 'file': '%s' holds no spheres", path);
  if (st) {
    free(s);
    return st;
  }
  *out = s;
  *n_out = n;
  return DEM_OK;
}

static dem_status read_inline_spheres(const struct dem_node *list,
                                      struct dem_sphere_def **out,
                                      size_t *n_out) {
  static const char *const keys[] = {"center", "radius", NULL};
  size_t n = dem_node_size(list);
  if (n == 0)
    return dem_cfg_error(list, "key 'spheres': the list is empty");
  if (n > DEM_CLUMP_MAX_SPHERES)
    return dem_cfg_error(list,
                         "key 'spheres': %zu spheres, more than the limit of "
                         "%d for one shape",
                         n, DEM_CLUMP_MAX_SPHERES);
  struct dem_sphere_def *s = calloc(n, sizeof *s);
  if (!s)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  dem_status st = DEM_OK;
  for (size_t i = 0; i < n && !st; i++) {
    const struct dem_node *item = dem_node_at(list, i);
    if (!(st = dem_cfg_check_keys(item, keys, "a sphere")) &&
        !(st = dem_cfg_vec(item, "center", 1, NULL, 3, DEM_ANY, s[i].center)))
      st = dem_cfg_double(item, "radius", 1, 0, DEM_POSITIVE, &s[i].radius);
  }
  if (st) {
    free(s);
    return st;
  }
  *out = s;
  *n_out = n;
  return DEM_OK;
}

/* Sizes whose volume, mass or moments of inertia overflow or underflow
 * (radius 1e-300, scale 1e300) cannot be computed with: each sphere's own
 * closed-form values, and the mass of all of them at the clump's extent,
 * must be normal finite numbers. Checked before the mass properties are. */
static dem_status check_sizes(const struct dem_node *def, const char *name,
                              const struct dem_sphere_def *s, size_t n,
                              double scale, double density) {
  char scaled[48] = "";
  if (scale != 1.0)
    snprintf(scaled, sizeof scaled, " after scaling by %g", scale);
  double lo[3], hi[3], total = 0;
  for (int k = 0; k < 3; k++)
    lo[k] = hi[k] = s[0].center[k];
  for (size_t i = 0; i < n; i++) {
    double r = s[i].radius, v = 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
    double m = density * v, inertia = 0.4 * m * r * r;
    const char *what = !isfinite(r)         ? "its radius"
                       : !isfinite(v)       ? "its volume"
                       : !isfinite(m)       ? "its mass"
                       : !isfinite(inertia) ? "its moment of inertia"
                                            : NULL;
    if (what)
      return dem_cfg_error(def,
                           "shape '%s': sphere %zu (radius %g m%s, density "
                           "%g kg/m^3) is too large: %s overflows",
                           name, i, r, scaled, density, what);
    what = !(v >= DBL_MIN)         ? "its volume"
           : !(m >= DBL_MIN)       ? "its mass"
           : !(inertia >= DBL_MIN) ? "its moment of inertia"
                                   : NULL;
    if (what)
      return dem_cfg_error(def,
                           "shape '%s': sphere %zu (radius %g m%s, density "
                           "%g kg/m^3) is too small: %s underflows to 0",
                           name, i, r, scaled, density, what);
    total += m;
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], s[i].center[k] - r);
      hi[k] = fmax(hi[k], s[i].center[k] + r);
    }
  }
  double span = 0;
  for (int k = 0; k < 3; k++)
    span = fmax(span, hi[k] - lo[k]);
  if (!isfinite(total) || !isfinite(total * span * span))
    return dem_cfg_error(def,
                         "shape '%s': its spheres span %g m: the mass or the "
                         "moments of inertia of the shape overflow",
                         name, span);
  return DEM_OK;
}

/* The mass properties as computed or given: normal finite numbers, so
 * that the integrators can divide by them. */
static dem_status check_props(const struct dem_node *def, const char *name,
                              const struct dem_clump_props *p) {
  const double q[5] = {p->volume, p->mass, p->inertia[0], p->inertia[1],
                       p->inertia[2]};
  static const char *const what[5] = {
      "volume", "mass", "smallest principal moment", "middle principal moment",
      "largest principal moment"};
  for (int k = 0; k < 5; k++)
    if (!(q[k] >= DBL_MIN && q[k] <= DBL_MAX))
      return dem_cfg_error(def,
                           "shape '%s': its %s is %g, out of the range of "
                           "numbers dem can compute with (%g to %g)",
                           name, what[k], q[k], DBL_MIN, DBL_MAX);
  if (!isfinite(p->bounding_radius) || !isfinite(p->com[0]) ||
      !isfinite(p->com[1]) || !isfinite(p->com[2]))
    return dem_cfg_error(def,
                         "shape '%s': its centre of mass or bounding "
                         "radius is not finite",
                         name);
  return DEM_OK;
}

static dem_status read_shape(const struct dem_config *cfg,
                             const struct dem_node *def, const char *name,
                             struct dem_sim *sim, struct dem_shape *shape) {
  static const char *const keys[] = {
      "material", "spheres",          "file", "scale", "mass",
      "inertia",  "volume_tolerance", NULL};
  static const struct dem_range tolerance = {0, 0.1, DEM_OPEN, DEM_CLOSED};
  char where[160];
  const char *material;
  const struct dem_node *spheres_node = NULL;
  double scale, tol;
  dem_status st;
  snprintf(where, sizeof where, "shapes.%s", name);
  if ((st = dem_cfg_check_keys(def, keys, where)) ||
      (st = dem_cfg_string(def, "material", 1, NULL, &material)) ||
      (st = dem_setup_find_material(dem_node_get(cfg->root, "materials"),
                                    dem_node_get(def, "material"), material,
                                    &shape->material)) ||
      (st = dem_cfg_double(def, "scale", 0, 1.0, DEM_POSITIVE, &scale)) ||
      (st =
           dem_cfg_double(def, "volume_tolerance", 0, 1e-4, tolerance, &tol)) ||
      (st = dem_cfg_sequence(def, "spheres", 0, &spheres_node)))
    return st;
  const struct dem_node *file_node = dem_node_get(def, "file");
  if (!!spheres_node == !!file_node)
    return dem_cfg_error(def,
                         "shape '%s': give exactly one of 'spheres' "
                         "(a list) or 'file' (x, y, z, r lines)",
                         name);
  struct dem_sphere_def *defs = NULL;
  size_t n = 0;
  if (file_node) {
    const char *file;
    if ((st = dem_cfg_string(def, "file", 1, NULL, &file)))
      return st;
    char *path = dem_setup_relative_path(cfg->path, file);
    if (!path)
      return dem_fail(DEM_ERR_NOMEM, "out of memory");
    st = read_sphere_file(file_node, path, scale, &defs, &n);
    free(path);
  } else {
    st = read_inline_spheres(spheres_node, &defs, &n);
    for (size_t i = 0; !st && i < n; i++) {
      for (int k = 0; k < 3; k++)
        defs[i].center[k] *= scale;
      defs[i].radius *= scale;
    }
  }
  if (st)
    return st;
  /* Explicit mass properties (a body whose inertia is known, e.g. the
   * paper's cylinder) replace the computed ones. */
  const struct dem_node *mass_node = dem_node_get(def, "mass");
  const struct dem_node *inertia_node = dem_node_get(def, "inertia");
  double mass = 0, inertia[3] = {0, 0, 0};
  if (!!mass_node != !!inertia_node)
    st = dem_cfg_error(def,
                       "shape '%s': give both 'mass' and 'inertia' "
                       "or neither",
                       name);
  else if (mass_node &&
           !(st = dem_cfg_double(def, "mass", 1, 0, DEM_POSITIVE, &mass)))
    st = dem_cfg_vec(def, "inertia", 1, NULL, 3, DEM_POSITIVE, inertia);
  if (st) {
    free(defs);
    return st;
  }
  double density = sim->materials[shape->material].density;
  if ((st = check_sizes(def, name, defs, n, scale, density))) {
    free(defs);
    return st;
  }
  st = dem_shape_build(shape, defs, n, density, tol, mass, inertia);
  if (st && st != DEM_ERR_NOMEM) {
    free(defs);
    dem_refail(st, "shape '%s': %s", name, dem_error_current()->message);
    dem_error_locate(dem_node_file(def), dem_node_line(def), dem_node_col(def));
    return st;
  }
  free(defs);
  return st ? st : check_props(def, name, &shape->props);
}

dem_status dem_setup_shapes(const struct dem_config *cfg,
                            const struct dem_node *root, struct dem_sim *sim) {
  const struct dem_node *m;
  dem_status st;
  if ((st = dem_cfg_mapping(root, "shapes", 1, &m)))
    return st;
  size_t n = dem_node_size(m);
  if (n == 0)
    return dem_cfg_error(m, "key 'shapes': define at least one shape");
  sim->shapes = calloc(n, sizeof *sim->shapes);
  if (!sim->shapes)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  sim->min_radius = HUGE_VAL;
  sim->max_radius = 0;
  for (size_t i = 0; i < n; i++) {
    struct dem_shape *shape = &sim->shapes[i];
    sim->n_shapes = i + 1;
    if (!(shape->name = strdup(dem_node_key_at(m, i))))
      return dem_fail(DEM_ERR_NOMEM, "out of memory");
    if ((st = read_shape(cfg, dem_node_at(m, i), shape->name, sim, shape)))
      return st;
    for (size_t k = 0; k < shape->n_spheres; k++) {
      if (shape->radius[k] < sim->min_radius)
        sim->min_radius = shape->radius[k];
      if (shape->radius[k] > sim->max_radius)
        sim->max_radius = shape->radius[k];
    }
  }
  return DEM_OK;
}
