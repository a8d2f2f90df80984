/* /shapes: the run's clump templates, written once with the header so that
 * bodies/shape can be read without parsing /config. */
#include <stdint.h>
#include <stdlib.h>

#include "io/h5_writer.h"

/* The columns of the shape table, gathered from the shapes. */
struct shape_table {
  const char **name, **material;
  int64_t *n_spheres, *first;
  double *mass, *volume, *bounding, (*inertia)[3], (*com)[3], (*axes)[4];
  double (*offset)[3], *radius;
};

static void table_free(struct shape_table *t) {
  free(t->name), free(t->material), free(t->n_spheres), free(t->first);
  free(t->mass), free(t->volume), free(t->bounding), free(t->inertia);
  free(t->com), free(t->axes), free(t->offset), free(t->radius);
}

static int table_fill(struct shape_table *t, const struct dem_h5_shape *sh,
                      size_t n) {
  size_t total = 0, m = n ? n : 1;
  for (size_t k = 0; k < n; k++)
    total += sh[k].n_spheres;
  t->name = calloc(m, sizeof *t->name);
  t->material = calloc(m, sizeof *t->material);
  t->n_spheres = calloc(m, sizeof *t->n_spheres);
  t->first = calloc(n + 1, sizeof *t->first);
  t->mass = calloc(m, sizeof *t->mass);
  t->volume = calloc(m, sizeof *t->volume);
  t->bounding = calloc(m, sizeof *t->bounding);
  t->inertia = calloc(m, sizeof *t->inertia);
  t->com = calloc(m, sizeof *t->com);
  t->axes = calloc(m, sizeof *t->axes);
  t->offset = calloc(total ? total : 1, sizeof *t->offset);
  t->radius = calloc(total ? total : 1, sizeof *t->radius);
  if (!t->name || !t->material || !t->n_spheres || !t->first || !t->mass ||
      !t->volume || !t->bounding || !t->inertia || !t->com || !t->axes ||
      !t->offset || !t->radius)
    return -1;
  for (size_t k = 0; k < n; k++) {
    const struct dem_h5_shape *s = &sh[k];
    t->name[k] = s->name ? s->name : "";
    t->material[k] = s->material ? s->material : "";
    t->n_spheres[k] = (int64_t)s->n_spheres;
    t->first[k + 1] = t->first[k] + (int64_t)s->n_spheres;
    t->mass[k] = s->mass;
    t->volume[k] = s->volume;
    t->bounding[k] = s->bounding_radius;
    for (int c = 0; c < 3; c++) {
      t->inertia[k][c] = s->inertia[c];
      t->com[k][c] = s->centre_of_mass[c];
    }
    for (int c = 0; c < 4; c++)
      t->axes[k][c] = s->principal_axes[c];
    for (size_t i = 0; i < s->n_spheres; i++) {
      size_t row = (size_t)t->first[k] + i;
      for (int c = 0; c < 3; c++)
        t->offset[row][c] = s->offset ? s->offset[i][c] : 0.0;
      t->radius[row] = s->radius ? s->radius[i] : 0.0;
    }
  }
  return 0;
}

/* One dataset of /shapes: rows x width (0: 1-D) values of a kind. */
enum column_kind { REAL, INT, TEXT };
struct column {
  const char *name;
  enum column_kind kind;
  size_t rows, width;
  const void *data;
  const char *unit, *description;
};

static herr_t write_column(hid_t g, const struct column *c) {
  if (c->kind != TEXT)
    return dem_h5u_write_array(
        NULL, g, c->name, c->kind == INT ? H5T_STD_I64LE : H5T_IEEE_F64LE,
        c->kind == INT ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, c->rows,
        c->width, c->data, c->unit, c->description);
  hid_t t = dem_h5u_string_type();
  if (t < 0)
    return -1;
  herr_t rc = dem_h5u_write_array(NULL, g, c->name, t, t, c->rows, c->width,
                                  c->data, c->unit, c->description);
  H5Tclose(t);
  return rc;
}

herr_t dem_h5w_write_shapes(hid_t file, const struct dem_h5_shape *shapes,
                            size_t n) {
  struct shape_table t = {0};
  size_t total = 0;
  hid_t g;
  herr_t rc = 0;
  if (!shapes || n == 0)
    return 0;
  for (size_t k = 0; k < n; k++)
    total += shapes[k].n_spheres;
  if (table_fill(&t, shapes, n) < 0) {
    table_free(&t);
    return -1;
  }
  g = dem_h5u_compact_group(NULL, file, "shapes");
  if (g < 0) {
    table_free(&t);
    return -1;
  }
  const struct column cols[] = {
      {"name", TEXT, n, 0, t.name, "1",
       "shape name, as in the config's shapes; row k is the shape "
       "bodies/shape = k"},
      {"material", TEXT, n, 0, t.material, "1", "material name"},
      {"n_spheres", INT, n, 0, t.n_spheres, "1", "number of spheres"},
      {"mass", REAL, n, 0, t.mass, "kg", "mass"},
      {"volume", REAL, n, 0, t.volume, "m^3",
       "volume of the union of the spheres (overlaps once)"},
      {"inertia", REAL, n, 3, t.inertia, "kg m^2",
       "principal moments of inertia about the centre of mass, ascending"},
      {"centre_of_mass", REAL, n, 3, t.com, "m",
       "centre of mass in the shape's input frame (the config's sphere "
       "centres)"},
      {"principal_axes", REAL, n, 4, t.axes, "1",
       "unit quaternion (w, x, y, z) turning the principal frame into the "
       "input frame"},
      {"bounding_radius", REAL, n, 0, t.bounding, "m",
       "radius of the smallest sphere about the centre of mass that holds "
       "every sphere"},
      {"first_sphere", INT, n + 1, 0, t.first, "1",
       "shape k's spheres are rows first_sphere[k] to first_sphere[k+1]-1 "
       "of sphere_offset and sphere_radius"},
      {"sphere_offset", REAL, total, 3, t.offset, "m",
       "sphere centre in the principal frame: a sphere is at "
       "bodies/position + bodies/orientation turning it"},
      {"sphere_radius", REAL, total, 0, t.radius, "m", "sphere radius"},
  };
  for (size_t c = 0; c < sizeof cols / sizeof cols[0] && rc == 0; c++)
    if (write_column(g, &cols[c]) < 0)
      rc = -1;
  if (H5Gclose(g) < 0)
    rc = -1;
  table_free(&t);
  return rc;
}
