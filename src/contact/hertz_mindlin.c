/* The `hertz_mindlin` contact model: Hertz with Tsuji damping set from the
 * restitution, Mindlin tangential stiffness with an incremental force
 * history and Coulomb sliding, elastic-plastic rolling resistance (Ai et
 * al. type C), and the work each mechanism dissipates. */
#include <math.h>
#include <stdlib.h>

#include "contact/advice.h"
#include "contact/hertz_law.h"
#include "contact/loop.h"
#include "contact/restitution.h"

/* A contact should last at least this many time steps. */
#define STEPS_PER_CONTACT 20
/* The rolling dashpot's damping ratio: Ai et al. (Powder Technol. 206
 * (2011) 269) recommend 0.3 for model C. */
#define ROLLING_DAMPING_RATIO 0.3

struct hm_params {
  double estar;       /* 1/E* = (1-nu1^2)/E1 + (1-nu2^2)/E2 */
  double gstar;       /* 1/G* = (2-nu1)/G1 + (2-nu2)/G2 */
  double restitution; /* what alpha is found from */
  double alpha;       /* dashpots: c = alpha sqrt(m* k), k the stiffness */
  double mu, mu_r;    /* sliding and rolling friction coefficients */
  double kt_kn;       /* k_t / k_n = 4 G* / E* */
};

/* The history of one contact. */
enum {
  H_TOUCHING = 0, /* 1 while the spheres touch */
  H_FS = 1,       /* tangential spring force (3), lab frame */
  H_MS = 4,       /* rolling spring torque (3) */
  H_FND = 7,      /* normal dashpot force at the last evaluation (3) */
  H_FTD = 10,     /* tangential dashpot force (3; 0 while sliding) */
  H_MRD = 13,     /* rolling dashpot torque (3; 0 at the rolling limit) */
  H_UT = 16,      /* energy in the tangential spring */
  H_UR = 17,      /* energy in the rolling spring */
  H_WIDTH = 18
};

static dem_status mix(const struct dem_material *a,
                      const struct dem_material *b,
                      const struct dem_pair_props *pair, void *params) {
  struct hm_params *p = params;
  double ga = a->young_modulus / (2 * (1 + a->poisson_ratio));
  double gb = b->young_modulus / (2 * (1 + b->poisson_ratio));
  p->estar = dem_effective_modulus(a, b);
  p->gstar = 1.0 / ((2 - a->poisson_ratio) / ga + (2 - b->poisson_ratio) / gb);
  p->restitution = pair->restitution;
  p->mu = pair->friction;
  p->mu_r = pair->rolling_friction;
  p->alpha = NAN; /* prepare() solves for it */
  p->kt_kn = 4.0 * p->gstar / p->estar;
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
  struct hm_params *p = law->params;
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

/* The part of a along the unit normal n removed. */
static inline void tangential(double out[3], const double a[3],
                              const double n[3]) {
  double an = v3_dot(a, n);
  out[0] = a[0] - an * n[0];
  out[1] = a[1] - an * n[1];
  out[2] = a[2] - an * n[2];
}

/* A spring's history (force or torque) turned into the current tangent
 * plane, its magnitude kept. */
static inline void into_plane(double h[3], const double n[3]) {
  if (h[0] == 0 && h[1] == 0 && h[2] == 0)
    return;
  double before = sqrt(v3_dot(h, h));
  tangential(h, h, n);
  double after = sqrt(v3_dot(h, h));
  if (after > 0)
    v3_scale(h, h, before / after);
}

/* Caps |a| at limit; returns whether it was capped. */
static inline int cap(double a[3], double limit) {
  double len = sqrt(v3_dot(a, a));
  if (len <= limit)
    return 0;
  v3_scale(a, a, len > 0 ? limit / len : 0.0);
  return 1;
}

/* Rolling inertia of the pair, Ai et al.: 1/I = 1/(I_i + m_i r_i^2) +
 * 1/(I_j + m_j r_j^2), with the spheres' I = 2/5 m r^2 (a wall: 0). */
static inline double rolling_inertia(const struct dem_pair *g) {
  double ii = 1.4 * g->mi * g->ri * g->ri;
  if (g->mj == 0)
    return ii;
  double ij = 1.4 * g->mj * g->rj * g->rj;
  return ii * ij / (ii + ij);
}

/* The force law: forces at the time of evaluation from the predicted
 * velocities, spring increments and work from the motion over the step. */
static DEM_ALWAYS_INLINE void kernel(const void *params,
                                     const struct dem_pair *g, double *h,
                                     struct dem_pair_result *r) {
  const struct hm_params *p = params;
  const double dt = g->dt, d = g->overlap;
  double n[3];
  v3_scale(n, g->d, 1.0 / g->dist);
  const double sqrt_rd = sqrt(g->rstar * d);

  /* Normal: Hertz and the Tsuji dashpot, never attractive. */
  const double kn = 2.0 * p->estar * sqrt_rd; /* dF/dd */
  const double fe = (2.0 / 3.0) * kn * d;     /* 4/3 E* sqrt(R*) d^1.5 */
  const double cn = p->alpha * sqrt(g->mstar * kn);
  double fd = -cn * v3_dot(g->v, n);
  if (fe + fd < 0)
    fd = -fe;
  const double fn = fe + fd;
  double fnd[3];
  v3_scale(fnd, n, fd);

  /* Tangential: the spring's force turned into the plane, increased by
   * the motion of the step, a dashpot, Coulomb's limit. */
  const double kt = p->kt_kn * kn; /* 8 G* sqrt(R* d) */
  double fs[3], fs_old[3], vt[3], ut[3], ftd[3], ft[3];
  v3_copy(fs_old, h + H_FS);
  v3_copy(fs, fs_old);
  into_plane(fs, n);
  tangential(ut, g->v_move, n);
  v3_axpy(fs, -kt * dt, ut);
  tangential(vt, g->v, n);
  v3_scale(ftd, vt, -cn * sqrt(p->kt_kn)); /* alpha sqrt(m* k_t) */
  v3_add(ft, fs, ftd);
  if (cap(ft, p->mu * fn)) { /* sliding: all of it is friction */
    v3_copy(fs, ft);
    ftd[0] = ftd[1] = ftd[2] = 0.0;
  }
  const double ut_energy = kt > 0 ? v3_dot(fs, fs) / (2 * kt) : 0.0;

  /* Rolling: a spring with a plastic limit and a dashpot below it. */
  double ms[3] = {0, 0, 0}, ms_old[3], mrd[3] = {0, 0, 0}, mr[3];
  double ur_energy = 0.0;
  v3_copy(ms_old, h + H_MS);
  if (p->mu_r > 0) {
    const double kr = 2.25 * kn * p->mu_r * p->mu_r * g->rstar * g->rstar;
    double wr[3], wr_move[3];
    v3_copy(ms, ms_old);
    into_plane(ms, n);
    tangential(wr_move, g->w_move, n);
    v3_axpy(ms, -kr * dt, wr_move);
    if (!cap(ms, p->mu_r * g->rstar * fn)) {
      tangential(wr, g->w, n);
      v3_scale(mrd, wr,
               -ROLLING_DAMPING_RATIO * 2 * sqrt(rolling_inertia(g) * kr));
    }
    ur_energy = kr > 0 ? v3_dot(ms, ms) / (2 * kr) : 0.0;
  }
  v3_add(mr, ms, mrd);

  /* On the owner, and on the partner through the contact point. */
  double nxft[3];
  v3_cross(nxft, n, ft);
  for (int k = 0; k < 3; k++) {
    r->f[k] = fn * n[k] + ft[k];
    r->t[k] = -g->arm_i * nxft[k] + mr[k];
    r->t[3 + k] = -g->arm_j * nxft[k] - mr[k];
  }

  /* The work of each mechanism over the step: its force's mean over the
   * step (as the integrator applies it) times the step's motion; the
   * springs' change of stored energy is not dissipated. */
  double fnd_sum[3], ftd_sum[3], mrd_sum[3], fs_sum[3], ms_sum[3];
  v3_add(fnd_sum, fnd, h + H_FND);
  v3_add(ftd_sum, ftd, h + H_FTD);
  v3_add(mrd_sum, mrd, h + H_MRD);
  v3_add(fs_sum, fs, fs_old);
  v3_add(ms_sum, ms, ms_old);
  const double half = 0.5 * dt;
  r->work[DEM_DISSIPATION_DAMPING] =
      -half * (v3_dot(fnd_sum, g->v_move) + v3_dot(ftd_sum, g->v_move) +
               v3_dot(mrd_sum, g->w_move));
  r->work[DEM_DISSIPATION_FRICTION] =
      -(ut_energy - h[H_UT]) - half * v3_dot(fs_sum, g->v_move);
  r->work[DEM_DISSIPATION_ROLLING] =
      -(ur_energy - h[H_UR]) - half * v3_dot(ms_sum, g->w_move);

  h[H_TOUCHING] = 1.0;
  v3_copy(h + H_FS, fs);
  v3_copy(h + H_MS, ms);
  v3_copy(h + H_FND, fnd);
  v3_copy(h + H_FTD, ftd);
  v3_copy(h + H_MRD, mrd);
  h[H_UT] = ut_energy;
  h[H_UR] = ur_energy;
}

/* The step in which the spheres part: every force goes from its last
 * value to zero, and the springs give up what they held. */
static void release(const void *params, const struct dem_pair *g,
                    const double *h, double work[DEM_N_DISSIPATION]) {
  const double half = 0.5 * g->dt;
  work[DEM_DISSIPATION_DAMPING] =
      -half * (v3_dot(h + H_FND, g->v_move) + v3_dot(h + H_FTD, g->v_move) +
               v3_dot(h + H_MRD, g->w_move));
  work[DEM_DISSIPATION_FRICTION] = h[H_UT] - half * v3_dot(h + H_FS, g->v_move);
  work[DEM_DISSIPATION_ROLLING] = h[H_UR] - half * v3_dot(h + H_MS, g->w_move);
}

enum { FLAGS = DEM_MODEL_VELOCITY | DEM_MODEL_TORQUE | DEM_MODEL_DISSIPATIVE };

static void pairs(struct dem_sim *sim, double dt) {
  dem_contact_pairs_loop(sim, dt, kernel, release, FLAGS);
}

static void walls(struct dem_sim *sim, double dt) {
  dem_contact_walls_loop(sim, dt, kernel, release, FLAGS);
}

/* Hertz's normal energy and what the two springs hold. */
static double energy(const void *params, const struct dem_pair *g,
                     const double *h) {
  const struct hm_params *p = params;
  return dem_hertz_energy(p->estar, g->rstar, g->overlap) + h[H_UT] + h[H_UR];
}

/* The Hertz duration of an undamped collision (damping shortens it a
 * little). */
static double duration(const void *params, double mstar, double rstar,
                       double v) {
  const struct hm_params *p = params;
  return 2.87 * pow(mstar * mstar / (rstar * p->estar * p->estar), 0.2) *
         pow(v, -0.2);
}

static void time_step(const struct dem_sim *sim, struct dem_dt_advice *out) {
  dem_contact_time_advice(sim, "Hertz", duration, STEPS_PER_CONTACT, out);
}

static const char *const state_names[H_WIDTH + 1] = {"touching",
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
    .params_size = sizeof(struct hm_params),
    .mix = mix,
    .prepare = prepare,
    .state_width = H_WIDTH,
    .flags = FLAGS,
    .pairs = pairs,
    .walls = walls,
    .energy = energy,
    .release = release,
    .time_step = time_step,
    .state_names = state_names,
};
