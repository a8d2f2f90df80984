/* Block kernels every scheme shares: normalising q in every lane. */
#include "integrators/rot_common.h"

static DEM_ALWAYS_INLINE void normalise_lane(const double (*t)[DEM_ROT_LANES],
                                             double (*u)[DEM_ROT_LANES],
                                             int l) {
  double q[4] = {t[0][l], t[1][l], t[2][l], t[3][l]};
  q_normalize(q);
  for (int c = 0; c < 4; c++)
    u[c][l] = q[c];
}

/* Lanes marked redo keep their q: the caller runs them per body. */
static DEM_ALWAYS_INLINE void normalise_lanes DEM_ROT_BLOCK_PARAMS {
  double t[4][DEM_ROT_LANES], u[4][DEM_ROT_LANES], redo[DEM_ROT_LANES];
  (void)dt;
  for (int l = 0; l < DEM_ROT_LANES; l++) {
    redo[l] = k->redo[l]; /* local: k->q may alias k->redo */
    for (int c = 0; c < 4; c++)
      t[c][l] = k->q[l][c];
  }
#pragma omp simd
  for (int l = 0; l < DEM_ROT_LANES; l++)
    normalise_lane((const double(*)[DEM_ROT_LANES])t, u, l);
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < 4; c++)
      k->q[l][c] = redo[l] != 0.0 ? t[c][l] : u[c][l];
}
DEM_ISA_DEFINE(normalise, normalise_lanes, DEM_ROT_BLOCK_PARAMS, (k, dt));

void dem_rot_block_normalise(struct dem_rot_block *k, enum dem_isa isa) {
  normalise[isa](k, 0.0);
}
