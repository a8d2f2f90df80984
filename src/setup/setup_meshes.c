/* The domain's meshes: triangle-mesh walls read from STL files, placed
 * (scale, rotation, translation) and given a prescribed motion. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/wall_loads.h"
#include "core/quat.h"
#include "geometry/stl.h"
#include "setup/setup.h"
#include "sim/mesh_walls.h"

/* At most this many triangles in one mesh file. */
#define DEM_MESH_MAX_TRIANGLES 20000000

static const double zero3[3] = {0, 0, 0};

/* The rotation of `rotate: {axis, angle_deg}` as a quaternion (none: the
 * identity). */
static dem_status read_rotation(const struct dem_node *mesh, double q[4]) {
  static const char *const keys[] = {"axis", "angle_deg", NULL};
  const struct dem_node *r;
  double axis[3], angle;
  dem_status st;
  q[0] = 1, q[1] = q[2] = q[3] = 0;
  if ((st = dem_cfg_mapping(mesh, "rotate", 0, &r)) || !r)
    return st;
  if ((st = dem_cfg_check_keys(r, keys, "rotate")) ||
      (st = dem_cfg_vec(r, "axis", 1, NULL, 3, DEM_ANY, axis)) ||
      (st = dem_cfg_double(r, "angle_deg", 1, 0, DEM_ANY, &angle)))
    return st;
  if (!(v3_norm(axis) > 0) || !isfinite(v3_norm(axis)))
    return dem_cfg_error(dem_node_get(r, "axis"),
                         "key 'axis': must be a nonzero, finite vector");
  q_from_axis_angle(q, axis, angle * (3.14159265358979323846 / 180.0));
  return DEM_OK;
}

static dem_status read_motion(const struct dem_node *mesh,
                              struct dem_motion *mo) {
  static const char *const keys[] = {"velocity", "angular_velocity", "center",
                                     "start", NULL};
  const struct dem_node *m;
  dem_status st;
  memset(mo, 0, sizeof *mo);
  if ((st = dem_cfg_mapping(mesh, "motion", 0, &m)) || !m)
    return st;
  if ((st = dem_cfg_check_keys(m, keys, "motion")) ||
      (st = dem_cfg_vec(m, "velocity", 0, zero3, 3, DEM_ANY, mo->velocity)) ||
      (st = dem_cfg_vec(m, "angular_velocity", 0, zero3, 3, DEM_ANY,
                        mo->angular_velocity)) ||
      (st = dem_cfg_vec(m, "center", 0, zero3, 3, DEM_ANY, mo->center)) ||
      (st = dem_cfg_double(m, "start", 0, 0, DEM_ANY, &mo->start)))
    return st;
  for (int k = 0; k < 3; k++)
    mo->moving |= mo->velocity[k] != 0 || mo->angular_velocity[k] != 0;
  return DEM_OK;
}

/* Reads the STL file of `mesh` (relative to the config's directory) and
 * places its triangles: x' = R (scale x) + translate. */
static dem_status read_triangles(const struct dem_config *cfg,
                                 const struct dem_node *mesh,
                                 double (**tri)[3][3], size_t *n) {
  const char *file;
  double scale, shift[3], q[4];
  dem_status st;
  if ((st = dem_cfg_string(mesh, "file", 1, NULL, &file)) ||
      (st = dem_cfg_double(mesh, "scale", 0, 1.0, DEM_POSITIVE, &scale)) ||
      (st = dem_cfg_vec(mesh, "translate", 0, zero3, 3, DEM_ANY, shift)) ||
      (st = read_rotation(mesh, q)))
    return st;
  const struct dem_node *at = dem_node_get(mesh, "file");
  char *path = dem_setup_relative_path(cfg->path, file);
  if (!path)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  char why[160];
  FILE *f =
      dem_open_input_file(path, DEM_SHAPE_FILE_MAX_BYTES, why, sizeof why);
  if (!f) {
    st = dem_cfg_error(at, "key 'file': cannot open '%s': %s", path, why);
    free(path);
    return st;
  }
  st = dem_stl_read(f, path, DEM_MESH_MAX_TRIANGLES, tri, n);
  fclose(f);
  free(path);
  if (st) {
    dem_error_locate(dem_node_file(at), dem_node_line(at), dem_node_col(at));
    return st;
  }
  for (size_t t = 0; t < *n; t++)
    for (int v = 0; v < 3; v++) {
      double x[3];
      v3_scale(x, (*tri)[t][v], scale);
      q_rotate(x, q, x);
      v3_add((*tri)[t][v], x, shift);
      for (int k = 0; k < 3; k++)
        if (!isfinite((*tri)[t][v][k]))
          return dem_cfg_error(mesh,
                               "mesh triangle %zu: placed (scale, rotate, "
                               "translate), a coordinate is not finite",
                               t + 1);
    }
  return DEM_OK;
}

static dem_status read_mesh(const struct dem_config *cfg,
                            const struct dem_node *root,
                            const struct dem_node *mesh, struct dem_mesh *m) {
  static const char *const keys[] = {"name",      "file",   "material", "scale",
                                     "translate", "rotate", "motion",   NULL};
  const char *name, *material;
  double(*tri)[3][3] = NULL;
  size_t n = 0;
  dem_status st;
  if ((st = dem_cfg_check_keys(mesh, keys, "domain.meshes")) ||
      (st = dem_cfg_string(mesh, "name", 1, NULL, &name)) ||
      (st = dem_cfg_string(mesh, "material", 1, NULL, &material)) ||
      (st = dem_setup_find_material(dem_node_get(root, "materials"),
                                    dem_node_get(mesh, "material"), material,
                                    &m->material)) ||
      (st = read_motion(mesh, &m->motion)))
    return st;
  /* The name is the mesh's group in /walls, beside the box's walls. */
  int box_wall = 0;
  for (int k = 0; k < DEM_N_WALLS; k++)
    box_wall |= strcmp(name, dem_box_wall_names[k]) == 0;
  if (!name[0] || strcmp(name, "box") == 0 || box_wall || strchr(name, '/'))
    return dem_cfg_error(dem_node_get(mesh, "name"),
                         "key 'name': '%s' cannot name a mesh (empty, 'box', "
                         "a box wall's 'box_xmin' ... 'box_zmax', or with a "
                         "'/')",
                         name);
  if ((st = read_triangles(cfg, mesh, &tri, &n))) {
    free(tri);
    return st;
  }
  st = dem_mesh_build(m, name, (const double(*)[3][3])tri, n);
  free(tri);
  if (st) {
    const struct dem_node *at = dem_node_get(mesh, "file");
    dem_error_locate(dem_node_file(at), dem_node_line(at), dem_node_col(at));
    return st;
  }
  m->name = strdup(name);
  if (!m->name)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  return DEM_OK;
}

/* With periodic axes, the mesh joined to its copies a period away
 * (dem_mesh_join_periodic). */
static dem_status join_copies(const struct dem_sim *sim,
                              const struct dem_node *mesh, struct dem_mesh *m) {
  const struct dem_walls *wl = &sim->walls;
  double period[3];
  if (!wl->periodic)
    return DEM_OK;
  for (int k = 0; k < 3; k++)
    period[k] = wl->periodic >> k & 1u ? wl->hi[k] - wl->lo[k] : 0.0;
  dem_status st = dem_mesh_join_periodic(m, wl->lo, period);
  if (st) {
    const struct dem_node *at = dem_node_get(mesh, "file");
    dem_error_locate(dem_node_file(at), dem_node_line(at), dem_node_col(at));
  }
  return st;
}

/* The extent along axis k of each patch of m (its vertices at rest), or,
 * when `turning`, the diagonal of its box (what any turn keeps it in). */
static void patch_extents(const struct dem_mesh *m, int k, int turning,
                          double (*lo)[3], double (*hi)[3], double *ext) {
  for (size_t p = 0; p < m->n_patches; p++)
    for (int j = 0; j < 3; j++)
      lo[p][j] = HUGE_VAL, hi[p][j] = -HUGE_VAL;
  for (size_t t = 0; t < m->n_tri; t++)
    for (int v = 0; v < 3; v++)
      for (int j = 0; j < 3; j++) {
        double x = m->rest[m->tri[t][v]][j];
        int p = m->patch[t];
        lo[p][j] = x < lo[p][j] ? x : lo[p][j];
        hi[p][j] = x > hi[p][j] ? x : hi[p][j];
      }
  for (size_t p = 0; p < m->n_patches; p++) {
    double d[3];
    v3_sub(d, hi[p], lo[p]);
    ext[p] = turning ? v3_norm(d) : d[k];
  }
}

dem_status dem_setup_mesh_copies(const struct dem_node *root,
                                 const struct dem_sim *sim) {
  const struct dem_walls *wl = &sim->walls;
  const struct dem_mesh_walls *mw = sim->mw;
  if (!mw || !wl->periodic)
    return DEM_OK;
  const struct dem_node *list =
      dem_node_get(dem_node_get(root, "domain"), "meshes");
  /* Two copies of a patch touch one sphere at once only if they come
   * within a sphere's diameter of each other. */
  const double diameter = 2.0 * sim->max_radius;
  for (size_t i = 0; i < mw->n; i++) {
    const struct dem_mesh *m = &mw->mesh[i];
    const struct dem_node *node = dem_node_at(list, i);
    const double *w = m->motion.angular_velocity;
    size_t np = m->n_patches ? m->n_patches : 1;
    double(*lo)[3] = malloc(np * sizeof *lo),
    (*hi)[3] = malloc(np * sizeof *hi);
    double *ext = malloc(np * sizeof *ext);
    size_t *first = malloc(np * sizeof *first);
    dem_status st = DEM_OK;
    if (!lo || !hi || !ext || !first)
      st = dem_fail(DEM_ERR_NOMEM, "out of memory");
    for (size_t t = m->n_tri; !st && t-- > 0;)
      first[m->patch[t]] = t;
    for (int k = 0; k < 3 && !st; k++) {
      if (!(wl->periodic >> k & 1u))
        continue;
      /* A turn about axis k keeps the extents and normals along k, and
       * the joins across the boundaries normal to k. */
      const int turning = w[(k + 1) % 3] != 0 || w[(k + 2) % 3] != 0;
      if (turning && (m->joined >> k & 1u)) {
        st = dem_cfg_error(
            dem_node_get(dem_node_get(node, "motion"), "angular_velocity"),
            "key 'angular_velocity': mesh '%s' meets its own copy across "
            "the periodic boundary along %c, and it turns about an axis "
            "that is not along %c: the join would come apart as it turns "
            "(turn it about %c only, or keep it off that boundary)",
            m->name, "xyz"[k], "xyz"[k], "xyz"[k]);
        break;
      }
      patch_extents(m, k, turning, lo, hi, ext);
      for (size_t p = 0; p < m->n_patches && !st; p++) {
        /* A patch whose plane holds axis k is one plane with its copies
         * along k: one region, touched at its nearest point. */
        const int along = !turning && fabs(m->normal[first[p]][k]) <= 1e-9;
        const double room = wl->hi[k] - wl->lo[k] - diameter;
        if (along || ext[p] <= room)
          continue;
        const double period = wl->hi[k] - wl->lo[k];
        const struct dem_node *at = dem_node_get(node, "file");
        if (turning)
          st = dem_cfg_error(
              at,
              "mesh '%s' turns (motion.angular_velocity) about an axis "
              "not along the periodic axis %c, and its flat patch of "
              "triangle %zu is up to %g m across (its box's diagonal), more "
              "than the period %g m less a sphere's diameter (2 r_max = %g "
              "m): one sphere could touch two of its copies a period apart, "
              "which dem does not model; make the patch smaller",
              m->name, "xyz"[k], first[p] + 1, ext[p], period, diameter);
        else
          st = dem_cfg_error(
              at,
              "mesh '%s': its flat patch of triangle %zu is tilted against "
              "the periodic axis %c and %g m long along it, more than the "
              "period %g m less a sphere's diameter (2 r_max = %g m): one "
              "sphere could touch two of its copies a period apart, which "
              "dem does not model; make the patch shorter, or parallel to %c",
              m->name, first[p] + 1, "xyz"[k], ext[p], period, diameter,
              "xyz"[k]);
      }
    }
    free(lo), free(hi), free(ext), free(first);
    if (st)
      return st;
  }
  return DEM_OK;
}

dem_status dem_setup_meshes(const struct dem_config *cfg,
                            const struct dem_node *root, struct dem_sim *sim) {
  const struct dem_node *list;
  dem_status st =
      dem_cfg_sequence(dem_node_get(root, "domain"), "meshes", 0, &list);
  if (st || !list || dem_node_size(list) == 0)
    return st;
  struct dem_mesh_walls *mw = calloc(1, sizeof *mw);
  if (!mw)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  sim->mw = mw;
  mw->t_placed = NAN; /* placed at the first time asked for */
  mw->n = dem_node_size(list);
  mw->mesh = calloc(mw->n, sizeof *mw->mesh);
  mw->patch_base = calloc(mw->n + 1, sizeof *mw->patch_base);
  if (!mw->mesh || !mw->patch_base)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  for (size_t k = 0; k < mw->n; k++) {
    const struct dem_node *mesh = dem_node_at(list, k);
    if (dem_node_kind(mesh) != DEM_NODE_MAPPING)
      return dem_cfg_error(mesh,
                           "domain.meshes[%zu]: expected a mapping "
                           "{name, file, material, ...}",
                           k);
    if ((st = read_mesh(cfg, root, mesh, &mw->mesh[k])) ||
        (st = join_copies(sim, mesh, &mw->mesh[k])))
      return st;
    for (size_t j = 0; j < k; j++)
      if (strcmp(mw->mesh[j].name, mw->mesh[k].name) == 0)
        return dem_cfg_error(dem_node_get(mesh, "name"),
                             "key 'name': mesh '%s' is named twice",
                             mw->mesh[k].name);
    if (mw->mesh[k].n_patches > (size_t)(0x3fffffff) - mw->n_patches)
      return dem_cfg_error(mesh, "too many mesh patches");
    mw->patch_base[k + 1] = mw->patch_base[k] + (int)mw->mesh[k].n_patches;
    mw->n_patches += mw->mesh[k].n_patches;
    mw->moving |= mw->mesh[k].motion.moving;
  }
  mw->patch_mesh =
      malloc((mw->n_patches ? mw->n_patches : 1) * sizeof *mw->patch_mesh);
  if (!mw->patch_mesh)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  for (size_t k = 0; k < mw->n; k++)
    for (int p = mw->patch_base[k]; p < mw->patch_base[k + 1]; p++)
      mw->patch_mesh[p] = (int)k;
  return DEM_OK;
}
