/* Rotation integrators over a block of bodies in SIMD lanes. */
#ifndef DEM_ROT_BLOCK_H
#define DEM_ROT_BLOCK_H

#include "core/isa.h"
#include "integrators/rotation.h"

/* Bodies per block: one AVX-512 vector of doubles, two AVX2 ones. */
enum { DEM_ROT_LANES = 8 };

/* DEM_ROT_LANES consecutive bodies, in arrays laid out as the field
 * table keeps them (one row per body). A block kernel transposes them into
 * a struct dem_rot_lanes, runs a scheme's per-body function on every lane
 * in a loop the compiler vectorises, and transposes the results back: the
 * same operations in the same order, so each lane's result is bitwise the
 * per-body one. */
struct dem_rot_block {
  double (*q)[4], (*w)[3];
  double (*aux)[DEM_ROT_AUX];
  double (*inertia)[3], (*torque)[3]; /* read only */
  double (*w_out)[3];                 /* sync's result */
  /* Set by a kernel: 1 where the lane met a rotation angle too large for
   * the series of exp (|v| >= 1e-2, rare); the kernel left that body as
   * it was, for the caller to run through the per-body function. Else 0.
   * (A double: SSE2 has no 64-bit integer select.) */
  double redo[DEM_ROT_LANES];
};

/* The block inside a kernel, structure of arrays: component c of lane l
 * is x[c][l], so that each operation of the lane loop is one vector
 * operation and no shuffle. */
struct dem_rot_lanes {
  double q[4][DEM_ROT_LANES], w[3][DEM_ROT_LANES];
  double aux[DEM_ROT_AUX][DEM_ROT_LANES];
  double inertia[3][DEM_ROT_LANES], torque[3][DEM_ROT_LANES];
  double w_out[3][DEM_ROT_LANES];
};

/* Rows for a block of fewer than DEM_ROT_LANES bodies, padded. */
struct dem_rot_rows {
  double q[DEM_ROT_LANES][4], w[DEM_ROT_LANES][3];
  double aux[DEM_ROT_LANES][DEM_ROT_AUX];
  double inertia[DEM_ROT_LANES][3], torque[DEM_ROT_LANES][3];
  double w_out[DEM_ROT_LANES][3];
};

/* A block kernel: every lane of k, dt as for the per-body function. */
typedef void (*dem_rot_block_fn)(struct dem_rot_block *k, double dt);

/* A scheme's block kernels, each one variant per enum dem_isa; NULL for
 * a function the scheme runs per body only. sync writes w_out and leaves
 * the state. */
struct dem_rot_block_kernels {
  const dem_rot_block_fn *start, *before_force, *after_force, *sync;
};

/* How a per-body function written for both uses treats exp((0, v)):
 * DEM_ROT_BODY exactly (the series for small angles, sin and cos
 * otherwise); DEM_ROT_LANE by the series only, with no branch, returning 0
 * when an angle was too large for it. */
enum dem_rot_mode { DEM_ROT_BODY, DEM_ROT_LANE };

/* The block's rows into lanes: q, w, n_aux aux values, inertia, torque.
 * Loops over the lanes, vectorised as loads and shuffles. */
static DEM_ALWAYS_INLINE void dem_rot_lanes_in(struct dem_rot_lanes *t,
                                               const struct dem_rot_block *k,
                                               int n_aux) {
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < 4; c++)
      t->q[c][l] = k->q[l][c];
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < 3; c++) {
      t->w[c][l] = k->w[l][c];
      t->inertia[c][l] = k->inertia[l][c];
      t->torque[c][l] = k->torque[l][c];
    }
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < n_aux; c++)
      t->aux[c][l] = k->aux[l][c];
}

/* The lanes' new q, w and n_aux aux values (u) back into the block's
 * rows; lanes marked redo get their old ones (t) back, which the caller
 * then runs per body. */
static DEM_ALWAYS_INLINE void dem_rot_lanes_out(struct dem_rot_block *k,
                                                const struct dem_rot_lanes *t,
                                                const struct dem_rot_lanes *u,
                                                const double *redo, int n_aux) {
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < 4; c++)
      k->q[l][c] = redo[l] != 0.0 ? t->q[c][l] : u->q[c][l];
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < 3; c++)
      k->w[l][c] = redo[l] != 0.0 ? t->w[c][l] : u->w[c][l];
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < n_aux; c++)
      k->aux[l][c] = redo[l] != 0.0 ? t->aux[c][l] : u->aux[c][l];
  for (int l = 0; l < DEM_ROT_LANES; l++)
    k->redo[l] = redo[l];
}

/* Lane l as a per-body state, its moments and its torque. */
static DEM_ALWAYS_INLINE void dem_rot_lane_get(const struct dem_rot_lanes *t,
                                               int l, int n_aux,
                                               struct dem_rot_state *s,
                                               double I[3], double T[3]) {
  for (int c = 0; c < 4; c++)
    s->q[c] = t->q[c][l];
  for (int c = 0; c < 3; c++) {
    s->w[c] = t->w[c][l];
    I[c] = t->inertia[c][l];
    T[c] = t->torque[c][l];
  }
  for (int c = 0; c < n_aux; c++)
    s->aux[c] = t->aux[c][l];
}

static DEM_ALWAYS_INLINE void dem_rot_lane_put(struct dem_rot_lanes *t, int l,
                                               int n_aux,
                                               const struct dem_rot_state *s) {
  for (int c = 0; c < 4; c++)
    t->q[c][l] = s->q[c];
  for (int c = 0; c < 3; c++)
    t->w[c][l] = s->w[c];
  for (int c = 0; c < n_aux; c++)
    t->aux[c][l] = s->aux[c];
}

/* The signature of every block kernel variant. */
#define DEM_ROT_BLOCK_PARAMS (struct dem_rot_block * k, double dt)

/* NAME[DEM_ISA_COUNT], the block kernels of a per-body step (start,
 * before_force or after_force) FN that uses n_aux aux values:
 *  DEM_ROT_BLOCK_STEP: int FN(struct dem_rot_state *, const double I[3],
 *    const double T[3], double dt, enum dem_rot_mode), 0 if a lane must
 *    be redone (see dem_rot_mode);
 *  DEM_ROT_BLOCK_PLAIN: a table function with no exp in it;
 *  DEM_ROT_BLOCK_SYNC: a table sync function.
 * FN must be static DEM_ALWAYS_INLINE, so that it is inlined into the
 * lane loop. */
#define DEM_ROT_BLOCK_STEP(name, fn, n_aux)                                    \
  DEM_ROT_BLOCK_LANE(name, n_aux, fn(&s, I, T, dt, DEM_ROT_LANE) ? 0.0 : 1.0)

#define DEM_ROT_BLOCK_PLAIN(name, fn, n_aux)                                   \
  DEM_ROT_BLOCK_LANE(name, n_aux, (fn(&s, I, T, dt), 0.0))

/* NAME_lane for STEP and PLAIN: lane l of t through CALL (of s, I, T and
 * dt; its value the lane's redo) into u. */
#define DEM_ROT_BLOCK_LANE(name, n_aux, call)                                  \
  static DEM_ALWAYS_INLINE void name##_lane(const struct dem_rot_lanes *t,     \
                                            struct dem_rot_lanes *u,           \
                                            double *redo, int l, double dt) {  \
    struct dem_rot_state s;                                                    \
    double I[3], T[3];                                                         \
    dem_rot_lane_get(t, l, n_aux, &s, I, T);                                   \
    redo[l] = call;                                                            \
    dem_rot_lane_put(u, l, n_aux, &s);                                         \
  }                                                                            \
  DEM_ROT_LANE_LOOP(name, n_aux, dem_rot_lanes_out(k, &t, &u, redo, n_aux))

#define DEM_ROT_BLOCK_SYNC(name, fn, n_aux)                                    \
  static DEM_ALWAYS_INLINE void name##_lane(const struct dem_rot_lanes *t,     \
                                            struct dem_rot_lanes *u,           \
                                            double *redo, int l, double dt) {  \
    struct dem_rot_state s;                                                    \
    double I[3], T[3], w[3];                                                   \
    dem_rot_lane_get(t, l, n_aux, &s, I, T);                                   \
    fn(&s, I, T, dt, w);                                                       \
    redo[l] = 0.0;                                                             \
    for (int c = 0; c < 3; c++)                                                \
      u->w_out[c][l] = w[c];                                                   \
  }                                                                            \
  DEM_ROT_LANE_LOOP(name, n_aux, dem_rot_lanes_w_out(k, &u))

/* The rows in (t), the lane loop over NAME_lane (vectorised) into u, the
 * results out (OUT), in each variant. The lane's locals live in NAME_lane,
 * not in the loop: OpenMP would make each an array over the lanes, which
 * gcc does not vectorise for a struct. */
#define DEM_ROT_LANE_LOOP(name, n_aux, out)                                    \
  static DEM_ALWAYS_INLINE void name##_lanes DEM_ROT_BLOCK_PARAMS {            \
    struct dem_rot_lanes t, u;                                                 \
    double redo[DEM_ROT_LANES]; /* local: k's arrays may alias k->redo */      \
    dem_rot_lanes_in(&t, k, n_aux);                                            \
    _Pragma("omp simd") for (int l = 0; l < DEM_ROT_LANES; l++)                \
        name##_lane(&t, &u, redo, l, dt);                                      \
    out;                                                                       \
  }                                                                            \
  DEM_ISA_DEFINE(name, name##_lanes, DEM_ROT_BLOCK_PARAMS, (k, dt))

/* The lanes' w_out (u) into the block's rows. */
static DEM_ALWAYS_INLINE void
dem_rot_lanes_w_out(struct dem_rot_block *k, const struct dem_rot_lanes *u) {
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < 3; c++)
      k->w_out[l][c] = u->w_out[c][l];
  for (int l = 0; l < DEM_ROT_LANES; l++)
    k->redo[l] = 0.0;
}

/* q <- q / |q| (normalise_every), as q_normalize, in every lane but
 * those marked redo. */
void dem_rot_block_normalise(struct dem_rot_block *k, enum dem_isa isa);

#endif
