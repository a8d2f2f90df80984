/* Sphere forces and torques gathered per body in member order (no atomics,
 * thread-count independent). */
#include "sim/forces.h"

#include "core/vec3.h"

void dem_forces_gather(struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  const double *g = sim->gravity;
  const int torques = sim->pairs.has_torque;
  long n = (long)b->n;
#pragma omp parallel for schedule(static) if (n > DEM_PARALLEL_MIN)
  for (long bi = 0; bi < n; bi++) {
    double f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
    for (size_t k = b->first_member[bi]; k < b->first_member[bi + 1]; k++) {
      double *fk = s->force[k], *tk = s->torque[k];
      /* Spheres without contact add nothing, bitwise: f and t start at
       * +0 and never become -0, so adding +-0 leaves them as they are. */
      int has_torque = torques && (tk[0] != 0 || tk[1] != 0 || tk[2] != 0);
      if (fk[0] == 0 && fk[1] == 0 && fk[2] == 0 && !has_torque)
        continue;
      double arm[3], c[3];
      v3_add(f, f, fk);
      v3_sub(arm, s->x[k], b->x[bi]);
      v3_cross(c, arm, fk);
      v3_add(t, t, c);
      if (has_torque) {
        v3_add(t, t, tk);
        tk[0] = tk[1] = tk[2] = 0.0;
      }
      fk[0] = fk[1] = fk[2] = 0.0; /* moved */
    }
    v3_axpy(f, b->mass[bi], g);
    v3_add(b->force[bi], b->force[bi], f);
    v3_add(b->torque[bi], b->torque[bi], t);
  }
  s->forces_dirty = 0;
}
