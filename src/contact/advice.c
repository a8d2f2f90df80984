/* Time-step advice: the shortest collision among the shapes in use. */
#include "contact/advice.h"

#include <math.h>
#include <stdlib.h>

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

/* The fastest impact speed of one body on another or on a wall. */
static double fastest_speed(const struct dem_sim *sim, int *used) {
  const struct dem_bodies *b = &sim->b;
  double vmax = 0;
  for (size_t i = 0; i < b->n; i++) {
    const struct dem_shape *sh = &sim->shapes[b->shape[i]];
    double v = norm3(b->v[i]) + norm3(b->w[i]) * sh->props.bounding_radius;
    if (v > vmax)
      vmax = v;
    used[b->shape[i]]++;
  }
  double g = norm3(sim->gravity);
  if (g > 0 && sim->walls.enabled) {
    double span[3];
    for (int k = 0; k < 3; k++)
      span[k] = sim->walls.hi[k] - sim->walls.lo[k];
    vmax += sqrt(2.0 * g * norm3(span));
  }
  return vmax;
}

void dem_contact_time_advice(const struct dem_sim *sim, const char *law,
                             dem_contact_time_fn duration, int steps,
                             struct dem_dt_advice *out) {
  int *used = calloc(sim->n_shapes ? sim->n_shapes : 1, sizeof *used);
  *out = (struct dem_dt_advice){HUGE_VAL, 0, HUGE_VAL, steps, NULL, NULL, law};
  if (!used)
    return;
  double vmax = fastest_speed(sim, used);
  for (size_t p = 0; vmax > 0 && p < sim->n_shapes; p++) {
    if (!used[p])
      continue;
    const struct dem_shape *sp = &sim->shapes[p];
    double rp = smallest_radius(sp);
    for (size_t q = p; q <= sim->n_shapes; q++) {
      int wall = q == sim->n_shapes;
      double mstar, rstar, v;
      int other;
      if (wall) {
        if (!sim->walls.enabled)
          continue;
        mstar = sp->props.mass;
        rstar = rp;
        other = sim->walls.material;
        v = vmax;
      } else {
        const struct dem_shape *sq = &sim->shapes[q];
        if (!used[q] || (q == p && used[p] < 2))
          continue;
        double rq = smallest_radius(sq);
        mstar =
            sp->props.mass * sq->props.mass / (sp->props.mass + sq->props.mass);
        rstar = rp * rq / (rp + rq);
        other = sq->material;
        v = 2.0 * vmax;
      }
      double tc = duration(dem_law_params(&sim->law, sp->material, other),
                           mstar, rstar, v);
      if (tc < out->contact_time)
        *out = (struct dem_dt_advice){
            tc,    v,        tc / steps,
            steps, sp->name, wall ? "the walls" : sim->shapes[q].name,
            law};
    }
  }
  free(used);
}
