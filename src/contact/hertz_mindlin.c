/* The `hertz_mindlin` contact model: Hertz with Tsuji damping set from the
 * restitution, Mindlin tangential stiffness with an incremental force
 * history and Coulomb sliding, elastic-plastic rolling resistance (Ai et
 * al. type C), and the work each mechanism dissipates. */
#include <math.h>
#include <stdlib.h>

#include "contact/hertz_mindlin.h"

#include "contact/advice.h"
#include "contact/hertz_law.h"
#include "contact/restitution.h"
#include "core/isa.h"
#include "core/vec3.h"

/* A contact should last at least this many time steps. */
#define STEPS_PER_CONTACT 20

static dem_status mix(const struct dem_material *a,
                      const struct dem_material *b,
                      const struct dem_pair_props *pair, void *params) {
  struct dem_hm_params *p = params;
  double ga = a->young_modulus / (2 * (1 + a->poisson_ratio));
  double gb = b->young_modulus / (2 * (1 + b->poisson_ratio));
  p->estar = dem_effective_modulus(a, b);
  p->gstar = 1.0 / ((2 - a->poisson_ratio) / ga + (2 - b->poisson_ratio) / gb);
  p->restitution = pair->restitution;
  p->mu = pair->friction;
  p->mu_r = pair->rolling_friction;
  p->alpha = NAN; /* prepare() solves for it */
  p->kt_kn = 4.0 * p->gstar / p->estar;
  p->sqrt_kt_kn = sqrt(p->kt_kn);
  return DEM_OK;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The dashpots' alpha from each pair's restitution: the collision is
 * integrated once per distinct restitution (contact/restitution.c). The
 * damping force c d' with c = alpha sqrt(m* 2 E* sqrt(R* d)) is
 * beta sqrt(m* k) d^(1/4) d' with k = 4/3 E* sqrt(R*): alpha = beta /
 * sqrt(3/2). */
static dem_status prepare(struct dem_contact_law *law) {
  size_t n = law->n_materials * law->n_materials;
  double *e = malloc((n ? n : 1) * sizeof *e);
  double *beta = malloc((n ? n : 1) * sizeof *beta);
  if (!e || !beta) {
    free(e), free(beta);
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  }
  struct dem_hm_params *p = law->params;
  for (size_t k = 0; k < n; k++)
    e[k] = p[k].restitution;
  qsort(e, n, sizeof *e, by_value);
  size_t m = 0;
  for (size_t k = 0; k < n; k++)
    if (m == 0 || e[k] != e[m - 1])
      e[m++] = e[k];
  for (size_t k = 0; k < m; k++)
    beta[k] = dem_restitution_beta(e[k]);
  for (size_t k = 0; k < n; k++) {
    const double *at = bsearch(&p[k].restitution, e, m, sizeof *e, by_value);
    p[k].alpha = beta[at - e] / sqrt(1.5);
  }
  free(e), free(beta);
  return DEM_OK;
}

/* The step in which the spheres part: every force goes from its last
 * value to zero, and the springs give up what they held. */
void dem_hm_release(const void *params, const struct dem_pair *g,
                    const double *h, double work[DEM_N_DISSIPATION]) {
  const double half = 0.5 * g->dt;
  work[DEM_DISSIPATION_DAMPING] = -half * (v3_dot(h + DEM_HM_FND, g->v_move) +
                                           v3_dot(h + DEM_HM_FTD, g->v_move) +
                                           v3_dot(h + DEM_HM_MRD, g->w_move));
  work[DEM_DISSIPATION_FRICTION] =
      h[DEM_HM_UT] - half * v3_dot(h + DEM_HM_FS, g->v_move);
  work[DEM_DISSIPATION_ROLLING] =
      h[DEM_HM_UR] - half * v3_dot(h + DEM_HM_MS, g->w_move);
}

/* The force law is hertz_mindlin_lanes.h's, on several contacts at once,
 * compiled for AVX2 and AVX-512 too: the loops of the variant core/isa.h
 * chooses for this processor (DEM_ISA caps it, as it does the body
 * kernels), among those this build compiled. */
struct hm_loops {
  void (*pairs)(struct dem_sim *sim, double dt);
  void (*walls)(struct dem_sim *sim, double dt);
};

static struct hm_loops loops(void) {
  const enum dem_isa best = dem_isa_best();
#ifdef DEM_HAVE_AVX512
  if (best >= DEM_ISA_AVX512)
    return (struct hm_loops){dem_hm_pairs_avx512, dem_hm_walls_avx512};
#endif
#ifdef DEM_HAVE_AVX2
  if (best >= DEM_ISA_AVX2)
    return (struct hm_loops){dem_hm_pairs_avx2, dem_hm_walls_avx2};
#endif
  (void)best;
  return (struct hm_loops){dem_hm_pairs, dem_hm_walls};
}

static void pairs(struct dem_sim *sim, double dt) { loops().pairs(sim, dt); }

static void walls(struct dem_sim *sim, double dt) { loops().walls(sim, dt); }

/* Hertz's normal energy and what the two springs hold. */
static double energy(const void *params, const struct dem_pair *g,
                     const double *h) {
  const struct dem_hm_params *p = params;
  return dem_hertz_energy(p->estar, g->rstar, g->overlap) + h[DEM_HM_UT] +
         h[DEM_HM_UR];
}

/* The Hertz duration of an undamped collision (damping shortens it a
 * little). */
static double duration(const void *params, double mstar, double rstar,
                       double v) {
  const struct dem_hm_params *p = params;
  return 2.87 * pow(mstar * mstar / (rstar * p->estar * p->estar), 0.2) *
         pow(v, -0.2);
}

static void time_step(const struct dem_sim *sim, struct dem_dt_advice *out) {
  dem_contact_time_advice(sim, "Hertz", duration, STEPS_PER_CONTACT, out);
}

static const char *const state_names[DEM_HM_WIDTH + 1] = {
    "touching",
    "spring_force_x",
    "spring_force_y",
    "spring_force_z",
    "rolling_torque_x",
    "rolling_torque_y",
    "rolling_torque_z",
    "normal_dashpot_x",
    "normal_dashpot_y",
    "normal_dashpot_z",
    "tangential_dashpot_x",
    "tangential_dashpot_y",
    "tangential_dashpot_z",
    "rolling_dashpot_x",
    "rolling_dashpot_y",
    "rolling_dashpot_z",
    "tangential_energy",
    "rolling_energy",
    NULL};

const struct dem_contact_model dem_contact_hertz_mindlin = {
    .name = "hertz_mindlin",
    .doc =
        "Hertz normal force with Tsuji's dashpot (Tsuji, Tanaka & Ishida, "
        "Powder Technol. 71 (1992) 239) c = alpha sqrt(m* k_n), "
        "k_n = 2 E* sqrt(R* d), alpha found from the pair's restitution by "
        "integrating the collision once (the restitution does not depend on "
        "the impact speed), the total normal force never attractive; "
        "Mindlin's tangential stiffness (Mindlin, J. Appl. Mech. 16 (1949) "
        "259) k_t = 8 G* sqrt(R* d) (1/G* = "
        "(2-nu1)/G1 + (2-nu2)/G2) with an incremental force history turned "
        "into the tangent plane each step, a tangential dashpot c = alpha "
        "sqrt(m* k_t), Coulomb's limit mu F_n; rolling resistance of Ai, "
        "Chen, Rotter & Ooi (Powder Technol. 206 (2011) 269), their model C: "
        "spring k_r = 2.25 k_n "
        "mu_r^2 R*^2, plastic limit mu_r R* F_n, dashpot (damping ratio 0.3) "
        "below it. Contact forces act at the contact point (torques on "
        "clumps). The springs' energy is elastic; the work of dashpots, "
        "sliding and rolling is reported as dissipated.",
    .params_size = sizeof(struct dem_hm_params),
    .mix = mix,
    .prepare = prepare,
    .state_width = DEM_HM_WIDTH,
    .flags = DEM_HM_FLAGS,
    .pairs = pairs,
    .walls = walls,
    .energy = energy,
    .release = dem_hm_release,
    .time_step = time_step,
    .state_names = state_names,
};
