/* Time-step advice: the shortest collision among the shapes in use. */
#include "contact/advice.h"

#include <math.h>
#include <stdlib.h>

#include "geometry/mesh.h"
#include "sim/insert.h"
#include "sim/mesh_walls.h"

/* |x| without overflow for huge components. */
static double norm3(const double x[3]) {
  double m = fmax(fabs(x[0]), fmax(fabs(x[1]), fabs(x[2])));
  if (!(m > 0) || !isfinite(m))
    return m;
  double a = x[0] / m, b = x[1] / m, c = x[2] / m;
  return m * sqrt(a * a + b * b + c * c);
}

static double smallest_radius(const struct dem_shape *sh) {
  double r = HUGE_VAL;
  for (size_t i = 0; i < sh->n_spheres; i++)
    r = fmin(r, sh->radius[i]);
  return r;
}

/* The extent of the scene: the box, the meshes, the insert regions and
 * the bodies; the longest fall is across it. */
static double scene_size(const struct dem_sim *sim) {
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3];
  for (int k = 0; k < 3; k++)
    hi[k] = -HUGE_VAL;
#define GROW(p)                                                                \
  for (int k = 0; k < 3; k++)                                                  \
    lo[k] = fmin(lo[k], (p)[k]), hi[k] = fmax(hi[k], (p)[k]);
  if (sim->walls.enabled) {
    GROW(sim->walls.lo);
    GROW(sim->walls.hi);
  }
  for (size_t m = 0; sim->mw && m < sim->mw->n; m++)
    for (size_t v = 0; v < sim->mw->mesh[m].n_vert; v++)
      GROW(sim->mw->mesh[m].rest[v]);
  for (size_t e = 0; sim->insert && e < sim->insert->n; e++) {
    GROW(sim->insert->spec[e].lo);
    GROW(sim->insert->spec[e].hi);
  }
  for (size_t i = 0; i < sim->b.n; i++)
    GROW(sim->b.x[i]);
#undef GROW
  double span[3];
  for (int k = 0; k < 3; k++)
    span[k] = hi[k] > lo[k] ? hi[k] - lo[k] : 0;
  return norm3(span);
}

/* The fastest impact speed of one body on another or on a wall: bodies
 * present and those insert entries will bring, plus a fall across the
 * scene. */
static double fastest_speed(const struct dem_sim *sim) {
  const struct dem_bodies *b = &sim->b;
  double vmax = 0;
  for (size_t i = 0; i < b->n; i++) {
    const struct dem_shape *sh = &sim->shapes[b->shape[i]];
    double v = norm3(b->v[i]) +
               norm3(b->w[i]) * sh->props.bounding_radius * b->scale[i];
    vmax = fmax(vmax, v);
  }
  for (size_t e = 0; sim->insert && e < sim->insert->n; e++)
    vmax = fmax(vmax, norm3(sim->insert->spec[e].v));
  double g = norm3(sim->gravity);
  if (g > 0)
    vmax += sqrt(2.0 * g * scene_size(sim));
  return vmax;
}

/* A wall bodies can hit: the box or a mesh, its material and the fastest
 * its surface moves (a mesh turning about its centre: |v| + |w| times its
 * farthest vertex). */
static int wall_at(const struct dem_sim *sim, size_t w, int *material,
                   double *speed) {
  if (w == 0) {
    *material = sim->walls.material, *speed = 0;
    return sim->walls.enabled;
  }
  const struct dem_mesh *m = &sim->mw->mesh[w - 1];
  double far = 0;
  for (size_t v = 0; v < m->n_vert; v++) {
    double d[3];
    for (int k = 0; k < 3; k++)
      d[k] = m->rest[v][k] - m->motion.center[k];
    far = fmax(far, norm3(d));
  }
  *material = m->material;
  *speed = norm3(m->motion.velocity) + norm3(m->motion.angular_velocity) * far;
  return 1;
}

void dem_contact_time_advice(const struct dem_sim *sim, const char *law,
                             dem_contact_time_fn duration, int steps,
                             struct dem_dt_advice *out) {
  size_t ns = sim->n_shapes ? sim->n_shapes : 1;
  long *used = calloc(ns, sizeof *used);
  double *smin = calloc(ns, sizeof *smin);
  *out = (struct dem_dt_advice){HUGE_VAL, 0, HUGE_VAL, steps, NULL, NULL, law};
  if (!used || !smin) {
    free(used), free(smin);
    return;
  }
  dem_shape_scales(sim, used, smin);
  double vmax = fastest_speed(sim);
  size_t n_walls = 1 + (sim->mw ? sim->mw->n : 0);
  for (size_t p = 0; vmax > 0 && p < sim->n_shapes; p++) {
    if (!used[p])
      continue;
    /* The smallest of a shape's sizes makes its shortest contact (Hertz:
     * t_c grows as the size). */
    const struct dem_shape *sp = &sim->shapes[p];
    double s = smin[p], mp = sp->props.mass * s * s * s;
    double rp = smallest_radius(sp) * s;
    for (size_t q = p; q < sim->n_shapes + n_walls; q++) {
      int wall = q >= sim->n_shapes;
      double mstar, rstar, v, wall_speed;
      int other;
      if (wall) {
        if (!wall_at(sim, q - sim->n_shapes, &other, &wall_speed))
          continue;
        mstar = mp;
        rstar = rp;
        v = vmax + wall_speed;
      } else {
        const struct dem_shape *sq = &sim->shapes[q];
        if (!used[q] || (q == p && used[p] < 2))
          continue;
        double mq = sq->props.mass * smin[q] * smin[q] * smin[q];
        double rq = smallest_radius(sq) * smin[q];
        mstar = mp * mq / (mp + mq);
        rstar = rp * rq / (rp + rq);
        other = sq->material;
        v = 2.0 * vmax;
      }
      double tc = duration(dem_law_params(&sim->law, sp->material, other),
                           mstar, rstar, v);
      const char *with = !wall ? sim->shapes[q].name
                         : q == sim->n_shapes
                             ? "the walls"
                             : sim->mw->mesh[q - sim->n_shapes - 1].name;
      if (tc < out->contact_time)
        *out = (struct dem_dt_advice){tc,       v,    tc / steps, steps,
                                      sp->name, with, law};
    }
  }
  free(used);
  free(smin);
}
