/* Rotation integrators: pure per-body step functions behind one const table. */
#ifndef DEM_ROTATION_H
#define DEM_ROTATION_H

#include <stddef.h>

/* Scratch each scheme may keep per body between steps (e.g. the lab-frame
 * angular momentum of Fincham, Buss, Johnson, PFC4 and PCDM). Stored in
 * HDF5 so a restarted run continues bitwise. */
enum { DEM_ROT_AUX = 8 };

/* One body's rotational state.
 * q: orientation, body principal frame -> lab, (w, x, y, z).
 * w: angular velocity in the body principal frame; for leapfrog schemes it
 *    is w(t - dt/2) at a step boundary, otherwise w(t). Every scheme keeps
 *    it current (also those that integrate angular momentum). */
struct dem_rot_state {
  double q[4];
  double w[3];
  double aux[DEM_ROT_AUX];
};

/* A load that can be evaluated at any time and orientation (for RK4 and for
 * tests); writes the lab-frame torque. */
struct dem_rot_block_kernels; /* integrators/rot_block.h */

typedef void (*dem_torque_fn)(void *ctx, double t, const double q[4],
                              const double w[3], double torque_lab[3]);

/* A rotation scheme. Torques passed in are lab-frame, at the time named.
 * `inertia` is the principal moments (Ix, Iy, Iz). `dt` already includes
 * any dt_scale. The pipeline calls, per body:
 *   start(torque(t0))                               once, before step 1
 *   each step: before_force(torque(t)); [forces]; after_force(torque(t+dt))
 *   sync(torque(t)) at a step boundary to report w(t) (energy, snapshots)
 * One-stage schemes do all their work in before_force and leave
 * after_force NULL. */
struct dem_rotation_integrator {
  const char *name;       /* as used in YAML: spiral_leapfrog, omelyan, ... */
  const char *doc;        /* one paragraph: source, order, what it stores */
  int leapfrog;           /* w lags half a step at step boundaries */
  int normalise;          /* default: normalise q every step (1) or never (0) */
  int torque_evaluations; /* per step: 1, or 4 for rk4 */
  int aux_size;           /* how many aux doubles it uses (copied per step) */
  void (*start)(struct dem_rot_state *s, const double inertia[3],
                const double torque_lab[3], double dt);
  void (*before_force)(struct dem_rot_state *s, const double inertia[3],
                       const double torque_lab[3], double dt);
  void (*after_force)(struct dem_rot_state *s, const double inertia[3],
                      const double torque_lab[3], double dt);
  void (*sync)(const struct dem_rot_state *s, const double inertia[3],
               const double torque_lab[3], double dt, double w_out[3]);
  /* Schemes needing the load at intermediate times (rk4) use this instead
   * of before_force when given a torque function; NULL otherwise. */
  void (*step_fn)(struct dem_rot_state *s, const double inertia[3], double t,
                  double dt, dem_torque_fn torque, void *ctx);
  /* The same functions over a block of bodies in SIMD lanes, bitwise equal
   * to them (integrators/rot_block.h); NULL: per body only. */
  const struct dem_rot_block_kernels *block;
};

/* NULL-terminated table of every scheme. */
extern const struct dem_rotation_integrator *const dem_rotation_integrators[];

/* Looks a scheme up by name; NULL if unknown. */
const struct dem_rotation_integrator *dem_rotation_find(const char *name);

/* Euler's equations in the principal frame: wdot = (M + (I w) x w) / I. */
void dem_euler_wdot(const double inertia[3], const double w[3],
                    const double torque_body[3], double wdot[3]);

#endif
