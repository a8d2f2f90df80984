/* Sphere forces and torques gathered per body in member order (no atomics,
 * thread-count independent). */
#include "sim/forces.h"

#include "core/vec3.h"

/* Body bi's sum; `torques` (a constant in each caller's loop) says whether
 * spheres carry torques of their own. */
static inline __attribute__((always_inline)) void
gather_body(struct dem_bodies *b, struct dem_spheres *s, long bi,
            const double g[3], const int torques) {
  double f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
  for (size_t k = b->first_member[bi]; k < b->first_member[bi + 1]; k++) {
    double *fk = s->force[k];
    int turns = torques && (s->torque[k][0] != 0 || s->torque[k][1] != 0 ||
                            s->torque[k][2] != 0);
    /* Spheres without contact add nothing, bitwise: f and t start at +0
     * and never become -0, so adding +-0 leaves them as they are. */
    if (fk[0] == 0 && fk[1] == 0 && fk[2] == 0 && !turns)
      continue;
    double arm[3], c[3];
    v3_add(f, f, fk);
    v3_sub(arm, s->x[k], b->x[bi]);
    v3_cross(c, arm, fk);
    v3_add(t, t, c);
    if (turns) {
      v3_add(t, t, s->torque[k]);
      s->torque[k][0] = s->torque[k][1] = s->torque[k][2] = 0.0;
    }
    fk[0] = fk[1] = fk[2] = 0.0; /* moved */
  }
  v3_axpy(f, b->mass[bi], g);
  v3_add(b->force[bi], b->force[bi], f);
  v3_add(b->torque[bi], b->torque[bi], t);
}

void dem_forces_gather(struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  const double *g = sim->gravity;
  long n = (long)b->n;
  if (sim->pairs.has_torque) {
    DEM_PARALLEL_IF(n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
                    for (long bi = 0; bi < n; bi++)
                        gather_body(b, s, bi, g, 1););
  } else {
    DEM_PARALLEL_IF(n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
                    for (long bi = 0; bi < n; bi++)
                        gather_body(b, s, bi, g, 0););
  }
  s->forces_dirty = 0;
}
