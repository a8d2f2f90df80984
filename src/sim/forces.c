/* Hertz contact forces gathered per sphere and per body (no atomics,
 * thread-count independent). */
#include "sim/forces.h"

#include "core/vec3.h"
#include "sim/hertz.h"

/* Overlap of sphere x (radius r) with the six walls, as signed normal
 * forces: f[k] += F for the low wall, -= F for the high one. */
static inline double wall_terms(const struct dem_walls *w, const double x[3],
                                double r, double estar, double f[3],
                                int want_energy) {
  double energy = 0.0;
  for (int k = 0; k < 3; k++) {
    double d_lo = r - (x[k] - w->lo[k]);
    double d_hi = r - (w->hi[k] - x[k]);
    if (d_lo > 0) {
      f[k] += dem_hertz_force(estar, r, d_lo);
      if (want_energy)
        energy += dem_hertz_energy(estar, r, d_lo);
    }
    if (d_hi > 0) {
      f[k] -= dem_hertz_force(estar, r, d_hi);
      if (want_energy)
        energy += dem_hertz_energy(estar, r, d_hi);
    }
  }
  return energy;
}

/* The same forces, from the wall stiffness k = 4/3 E* sqrt(r). */
static inline void wall_forces(const struct dem_walls *w, const double x[3],
                               double r, double k_wall, double f[3]) {
  for (int k = 0; k < 3; k++) {
    double d_lo = r - (x[k] - w->lo[k]);
    double d_hi = r - (w->hi[k] - x[k]);
    if (d_lo > 0)
      f[k] += dem_hertz_force_k(k_wall, d_lo);
    if (d_hi > 0)
      f[k] -= dem_hertz_force_k(k_wall, d_hi);
  }
}

void dem_forces_hertz(struct dem_sim *sim) {
  struct dem_spheres *s = &sim->s;
  const struct dem_neighbors *nb = &sim->nb;
  const struct dem_walls *walls = &sim->walls;
  const int *list = nb->list;
  const double *rsum = nb->pair_rsum, *stiff = nb->pair_k;
  const struct dem_nb_active *active = nb->active;
  const double(*x)[3] = (const double(*)[3])s->x;
  double(*force)[3] = s->force;
  long n = (long)nb->n_active;
  /* Only spheres with a listed neighbour or a wall within reach: the
   * others have no force to add. Everything but the positions is read in
   * order. */
#pragma omp parallel for schedule(static) if (n > DEM_PARALLEL_MIN / 4)
  for (long a = 0; a < n; a++) {
    const struct dem_nb_active *A = &active[a];
    const int i = A->i;
    const double xi = x[i][0], yi = x[i][1], zi = x[i][2];
    double f[3] = {0, 0, 0};
    const size_t end = A->first + (size_t)A->n;
    for (size_t k = A->first; k < end; k++) {
      const int j = list[k];
      double d[3] = {xi - x[j][0], yi - x[j][1], zi - x[j][2]};
      double dist2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (dist2 >= rsum[k] * rsum[k])
        continue;
      double dist = sqrt(dist2);
      double fn = dem_hertz_force_k(stiff[k], rsum[k] - dist);
      v3_axpy(f, fn / dist, d);
    }
    if (walls->enabled)
      wall_forces(walls, x[i], A->r, A->k_wall, f);
    v3_add(force[i], force[i], f);
  }
  s->forces_dirty = 1;
}

void dem_forces_gather(struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  const double *g = sim->gravity;
  long n = (long)b->n;
#pragma omp parallel for schedule(static) if (n > DEM_PARALLEL_MIN)
  for (long bi = 0; bi < n; bi++) {
    double f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
    for (size_t m = b->first_member[bi]; m < b->first_member[bi + 1]; m++) {
      size_t k = b->member_slot[m];
      /* Spheres without contact add nothing, bitwise: f and t start at
       * +0 and never become -0, so adding +-0 leaves them as they are. */
      if (s->force[k][0] == 0 && s->force[k][1] == 0 && s->force[k][2] == 0)
        continue;
      double arm[3], c[3];
      v3_add(f, f, s->force[k]);
      v3_sub(arm, s->x[k], b->x[bi]);
      v3_cross(c, arm, s->force[k]);
      v3_add(t, t, c);
      s->force[k][0] = s->force[k][1] = s->force[k][2] = 0.0; /* moved */
    }
    v3_axpy(f, b->mass[bi], g);
    v3_add(b->force[bi], b->force[bi], f);
    v3_add(b->torque[bi], b->torque[bi], t);
  }
  s->forces_dirty = 0;
}

double dem_energy_elastic(const struct dem_sim *sim, double *scratch) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_neighbors *nb = &sim->nb;
  const size_t nm = sim->n_materials;
  long n = (long)s->n;
  if (!nb->start)
    return 0.0;
    /* Each pair appears twice in full lists: count it from its lower id.
     * Per-sphere terms, summed serially in id order, so the total depends
     * on neither the thread count nor the current sphere order. */
#pragma omp parallel for schedule(static) if (n > DEM_PARALLEL_MIN)
  for (long i = 0; i < n; i++) {
    double sum = 0.0;
    const double *estar_i = sim->estar + (size_t)s->material[i] * (nm + 1);
    for (size_t k = nb->start[i]; k < nb->start[i + 1]; k++) {
      long j = nb->list[k];
      if (s->id[j] < s->id[i])
        continue;
      double d[3];
      v3_sub(d, s->x[i], s->x[j]);
      double rsum = s->radius[i] + s->radius[j];
      double dist2 = v3_dot(d, d);
      if (dist2 >= rsum * rsum)
        continue;
      double rstar = s->radius[i] * s->radius[j] / rsum;
      sum +=
          dem_hertz_energy(estar_i[s->material[j]], rstar, rsum - sqrt(dist2));
    }
    if (sim->walls.enabled) {
      double f[3] = {0, 0, 0};
      sum += wall_terms(&sim->walls, s->x[i], s->radius[i], estar_i[nm], f, 1);
    }
    scratch[s->id[i]] = sum;
  }
  double total = 0.0;
  for (long i = 0; i < n; i++)
    total += scratch[i];
  return total;
}
