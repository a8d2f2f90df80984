/* The loops a contact model's `pairs` and `walls` functions run: geometry
 * of each contact, then the model's kernel, inlined (static inline: a
 * model passes its kernel as a constant and the compiler inlines it). */
#ifndef DEM_CONTACT_LOOP_H
#define DEM_CONTACT_LOOP_H

#include <math.h>
#include <string.h>

#include "contact/model.h"
#include "core/vec3.h"

/* A kernel: the result for one touching contact, its history updated. */
typedef void (*dem_pair_kernel)(const void *params, const struct dem_pair *g,
                                double *state, struct dem_pair_result *r);

#define DEM_ALWAYS_INLINE inline __attribute__((always_inline))

/* Velocity of body b's material at point p, lab frame. */
static DEM_ALWAYS_INLINE void dem_point_velocity(const struct dem_sim *sim,
                                                 int b, const double p[3],
                                                 double out[3]) {
  double arm[3], wxr[3];
  v3_sub(arm, p, sim->b.x[b]);
  v3_cross(wxr, sim->b.w_contact[b], arm);
  v3_add(out, sim->b.v_contact[b], wxr);
}

/* The kinematics a velocity-reading kernel needs: the owner's contact
 * point relative velocity, the relative angular velocity, the effective
 * mass. `pj` is the partner body (-1: a wall at rest). The contact point
 * is the middle of the overlap: at r_i - overlap/2 from the owner's
 * centre along -n. */
static DEM_ALWAYS_INLINE void dem_pair_kinematics(const struct dem_sim *sim,
                                                  int i, int pj,
                                                  struct dem_pair *g) {
  const struct dem_spheres *s = &sim->s;
  const int bi = s->body[i];
  double p[3], vi[3];
  v3_copy(p, s->x[i]);
  v3_axpy(p, -(g->ri - 0.5 * g->overlap) / g->dist, g->d);
  dem_point_velocity(sim, bi, p, vi);
  if (pj >= 0) {
    const int bj = s->body[pj];
    double vj[3];
    dem_point_velocity(sim, bj, p, vj);
    v3_sub(g->v, vi, vj);
    v3_sub(g->w, sim->b.w_contact[bi], sim->b.w_contact[bj]);
    double mi = sim->b.mass[bi], mj = sim->b.mass[bj];
    g->mstar = mi * mj / (mi + mj);
  } else {
    v3_copy(g->v, vi);
    v3_copy(g->w, sim->b.w_contact[bi]);
    g->mstar = sim->b.mass[bi];
  }
}

/* The geometry of pair contact k; 0 when its spheres do not touch. */
static DEM_ALWAYS_INLINE int dem_pair_touch(const struct dem_sim *sim, size_t k,
                                            struct dem_pair *g) {
  const struct dem_contact_list *c = &sim->pairs;
  const double(*x)[3] = (const double(*)[3])sim->s.x;
  const int i = c->ij[k][0], j = c->ij[k][1];
  const double rsum = c->rsum[k];
  g->d[0] = x[i][0] - x[j][0];
  g->d[1] = x[i][1] - x[j][1];
  g->d[2] = x[i][2] - x[j][2];
  const double dist2 =
      g->d[0] * g->d[0] + g->d[1] * g->d[1] + g->d[2] * g->d[2];
  if (dist2 >= rsum * rsum)
    return 0;
  g->dist = sqrt(dist2);
  g->overlap = rsum - g->dist;
  g->ri = sim->s.radius[i];
  g->rj = sim->s.radius[j];
  g->rstar = g->ri * g->rj / rsum;
  return 1;
}

/* The geometry of wall contact k (the box's flat walls, wall = 2 axis +
 * side); 0 when the sphere does not touch the wall. */
static DEM_ALWAYS_INLINE int dem_wall_touch(const struct dem_sim *sim, size_t k,
                                            struct dem_pair *g) {
  const struct dem_contact_list *c = &sim->wall_contacts;
  const struct dem_walls *wl = &sim->walls;
  const int i = c->ij[k][0], wall = c->ij[k][1];
  const int axis = wall / 2, high = wall % 2;
  const double r = c->rsum[k], xa = sim->s.x[i][axis];
  g->overlap = high ? r - (wl->hi[axis] - xa) : r - (xa - wl->lo[axis]);
  if (!(g->overlap > 0))
    return 0;
  g->d[0] = g->d[1] = g->d[2] = 0.0;
  g->d[axis] = high ? -1.0 : 1.0;
  g->dist = 1.0;
  g->ri = g->rstar = r;
  g->rj = 0.0;
  return 1;
}

/* No force, no torque, and a cleared history for contact k of c: its
 * spheres do not touch (the history starts afresh at the next touch). */
static DEM_ALWAYS_INLINE void dem_contact_open(struct dem_contact_list *c,
                                               size_t k, unsigned flags) {
  const size_t w = (size_t)c->state_width;
  c->force[k][0] = c->force[k][1] = c->force[k][2] = 0.0;
  if (flags & DEM_MODEL_TORQUE)
    memset(c->torque[k], 0, sizeof c->torque[k]);
  if (w)
    memset(c->state + k * w, 0, w * sizeof *c->state);
}

static DEM_ALWAYS_INLINE void
dem_contact_store(struct dem_contact_list *c, size_t k, unsigned flags,
                  const struct dem_pair_result *r) {
  v3_copy(c->force[k], r->f);
  if (flags & DEM_MODEL_TORQUE)
    memcpy(c->torque[k], r->t, sizeof r->t);
}

/* Every sphere-sphere contact, through `kernel`. */
static DEM_ALWAYS_INLINE void dem_contact_pairs_loop(struct dem_sim *sim,
                                                     double dt,
                                                     dem_pair_kernel kernel,
                                                     unsigned flags) {
  struct dem_contact_list *c = &sim->pairs;
  const int *material = sim->s.material;
  const size_t w = (size_t)c->state_width;
  const long n = (long)c->n;
#pragma omp parallel for schedule(static) if (n > DEM_PARALLEL_MIN / 4)
  for (long k = 0; k < n; k++) {
    struct dem_pair g;
    if (!dem_pair_touch(sim, (size_t)k, &g)) {
      dem_contact_open(c, (size_t)k, flags);
      continue;
    }
    const int i = c->ij[k][0], j = c->ij[k][1];
    g.dt = dt;
    if (flags & DEM_MODEL_VELOCITY)
      dem_pair_kinematics(sim, i, j, &g);
    struct dem_pair_result r;
    kernel(dem_law_params(&sim->law, material[i], material[j]), &g,
           w ? c->state + (size_t)k * w : NULL, &r);
    dem_contact_store(c, (size_t)k, flags, &r);
  }
}

/* Every sphere-wall contact, through `kernel`. */
static DEM_ALWAYS_INLINE void dem_contact_walls_loop(struct dem_sim *sim,
                                                     double dt,
                                                     dem_pair_kernel kernel,
                                                     unsigned flags) {
  struct dem_contact_list *c = &sim->wall_contacts;
  const int *material = sim->s.material;
  const size_t w = (size_t)c->state_width;
  const long n = (long)c->n;
#pragma omp parallel for schedule(static) if (n > DEM_PARALLEL_MIN / 4)
  for (long k = 0; k < n; k++) {
    struct dem_pair g;
    if (!dem_wall_touch(sim, (size_t)k, &g)) {
      dem_contact_open(c, (size_t)k, flags);
      continue;
    }
    const int i = c->ij[k][0];
    g.dt = dt;
    if (flags & DEM_MODEL_VELOCITY)
      dem_pair_kinematics(sim, i, -1, &g);
    struct dem_pair_result r;
    kernel(dem_law_params(&sim->law, material[i], sim->walls.material), &g,
           w ? c->state + (size_t)k * w : NULL, &r);
    dem_contact_store(c, (size_t)k, flags, &r);
  }
}

#endif
