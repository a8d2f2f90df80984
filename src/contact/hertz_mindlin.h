/* The `hertz_mindlin` contact model's parameters and history, shared by
 * the model (hertz_mindlin.c) and its lane kernel (hertz_mindlin_lanes.c). */
#ifndef DEM_HERTZ_MINDLIN_H
#define DEM_HERTZ_MINDLIN_H

#include "contact/model.h"

/* The rolling dashpot's damping ratio: Ai et al. (Powder Technol. 206
 * (2011) 269) recommend 0.3 for model C. */
#define DEM_HM_ROLLING_DAMPING_RATIO 0.3

struct dem_hm_params {
  double estar;       /* 1/E* = (1-nu1^2)/E1 + (1-nu2^2)/E2 */
  double gstar;       /* 1/G* = (2-nu1)/G1 + (2-nu2)/G2 */
  double restitution; /* what alpha is found from */
  double alpha;       /* dashpots: c = alpha sqrt(m* k), k the stiffness */
  double mu, mu_r;    /* sliding and rolling friction coefficients */
  double kt_kn;       /* k_t / k_n = 4 G* / E* */
  double sqrt_kt_kn;  /* its square root (the tangential dashpot's) */
};

/* The history of one contact. */
enum {
  DEM_HM_TOUCHING = 0, /* 1 while the spheres touch */
  DEM_HM_FS = 1,       /* tangential spring force (3), lab frame */
  DEM_HM_MS = 4,       /* rolling spring torque (3) */
  DEM_HM_FND = 7,      /* normal dashpot force at the last evaluation (3) */
  DEM_HM_FTD = 10,     /* tangential dashpot force (3; 0 while sliding) */
  DEM_HM_MRD = 13,     /* rolling dashpot torque (3; 0 at the rolling limit) */
  DEM_HM_UT = 16,      /* energy in the tangential spring */
  DEM_HM_UR = 17,      /* energy in the rolling spring */
  DEM_HM_WIDTH = 18
};

enum {
  DEM_HM_FLAGS = DEM_MODEL_VELOCITY | DEM_MODEL_TORQUE | DEM_MODEL_DISSIPATIVE
};

/* The step in which the spheres part (the model's `release`). */
void dem_hm_release(const void *params, const struct dem_pair *g,
                    const double *h, double work[DEM_N_DISSIPATION]);

/* The model's `pairs` and `walls` (hertz_mindlin_lanes.h), and with
 * DEM_HAVE_AVX2 and DEM_HAVE_AVX512 the same for processors with AVX2 and
 * with AVX-512. */
void dem_hm_pairs(struct dem_sim *sim, double dt);
void dem_hm_walls(struct dem_sim *sim, double dt);
void dem_hm_pairs_avx2(struct dem_sim *sim, double dt);
void dem_hm_walls_avx2(struct dem_sim *sim, double dt);
void dem_hm_pairs_avx512(struct dem_sim *sim, double dt);
void dem_hm_walls_avx512(struct dem_sim *sim, double dt);

#endif
