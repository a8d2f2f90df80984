/* Sphere forces and torques gathered per body in member order (no atomics,
 * thread-count independent). */
#include "sim/forces.h"

#include "core/vec3.h"
#include "sim/near.h"

/* Sphere k's force and torque added to its body's sums f and t (about
 * the body's centre xb), and zeroed; `torques` (a constant in each
 * caller's loop) says whether spheres carry torques of their own. */
static inline __attribute__((always_inline)) void
add_sphere(struct dem_spheres *s, const double xb[3], size_t k, double f[3],
           double t[3], const int torques) {
  double *fk = s->force[k];
  int turns = torques && (s->torque[k][0] != 0 || s->torque[k][1] != 0 ||
                          s->torque[k][2] != 0);
  /* Spheres without contact add nothing, bitwise: f and t start at +0
   * and never become -0, so adding +-0 leaves them as they are. */
  if (fk[0] == 0 && fk[1] == 0 && fk[2] == 0 && !turns)
    return;
  double arm[3], c[3];
  v3_add(f, f, fk);
  v3_sub(arm, s->x[k], xb);
  v3_cross(c, arm, fk);
  v3_add(t, t, c);
  if (turns) {
    v3_add(t, t, s->torque[k]);
    s->torque[k][0] = s->torque[k][1] = s->torque[k][2] = 0.0;
  }
  fk[0] = fk[1] = fk[2] = 0.0; /* moved */
}

/* Body bi's sum, over its members in order; with the near path
 * (sim/near.h) over its active members only, in the same order: the
 * others have no force, so the sums are the same, bitwise. */
static inline __attribute__((always_inline)) void
gather_body(struct dem_bodies *b, struct dem_spheres *s, long bi,
            const double g[3], const size_t *act, const int *active,
            const int torques) {
  double f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
  if (act)
    for (size_t a = act[bi]; a < act[bi + 1]; a++)
      add_sphere(s, b->x[bi], (size_t)active[a], f, t, torques);
  else
    for (size_t k = b->first_member[bi]; k < b->first_member[bi + 1]; k++)
      add_sphere(s, b->x[bi], k, f, t, torques);
  v3_axpy(f, b->mass[bi], g);
  v3_add(b->force[bi], b->force[bi], f);
  v3_add(b->torque[bi], b->torque[bi], t);
}

/* Every body's sum; `act` and `torques` are constants in each call, so
 * that each of the four loops is compiled without their tests. */
static inline __attribute__((always_inline)) void
gather_all(struct dem_sim *sim, const size_t *act, const int torques) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  const double *g = sim->gravity;
  const int *active = sim->nb.active;
  long n = (long)b->n;
  /* The work is per sphere: 2,000 rods (6,000 spheres) are worth two
   * threads. */
  const long work = act ? (long)sim->nb.n_active : (long)s->n;
  DEM_PARALLEL_IF(work > DEM_PARALLEL_MIN, omp parallel for schedule(static),
                  for (long bi = 0; bi < n; bi++)
                      gather_body(b, s, bi, g, act, active, torques););
}

void dem_forces_gather(struct dem_sim *sim) {
  const struct dem_near *nr = dem_near_on(sim);
  const int torques = sim->pairs.has_torque;
  if (nr && torques)
    gather_all(sim, nr->act, 1);
  else if (nr)
    gather_all(sim, nr->act, 0);
  else if (torques)
    gather_all(sim, NULL, 1);
  else
    gather_all(sim, NULL, 0);
  sim->s.forces_dirty = 0;
}
