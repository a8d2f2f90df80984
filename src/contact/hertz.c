/* The `hertz` contact model: frictionless, undamped Hertz normal force, the
 * conservative law of the SPIRAL paper's experiments. */
#include <math.h>

#include "contact/advice.h"
#include "contact/hertz_law.h"
#include "contact/loop.h"

/* A Hertz contact should last at least this many time steps. */
#define HERTZ_STEPS_PER_CONTACT 20

struct hertz_params {
  double estar; /* effective modulus E* */
};

static dem_status mix(const struct dem_material *a,
                      const struct dem_material *b,
                      const struct dem_pair_props *pair, void *params) {
  struct hertz_params *p = params;
  p->estar = dem_effective_modulus(a, b);
  return DEM_OK;
}

/* F = 4/3 E* sqrt(R*) d^(3/2) along the normal. */
static inline void kernel(const void *params, const struct dem_pair *g,
                          double *state, struct dem_pair_result *r) {
  const struct hertz_params *p = params;
  double fn =
      dem_hertz_force_k(dem_hertz_stiffness(p->estar, g->rstar), g->overlap);
  double a = fn / g->dist;
  r->f[0] = a * g->d[0];
  r->f[1] = a * g->d[1];
  r->f[2] = a * g->d[2];
}

static void pairs(struct dem_sim *sim, double dt) {
  dem_contact_pairs_loop(sim, dt, kernel, NULL, NULL, 0);
}

static void walls(struct dem_sim *sim, double dt) {
  dem_contact_walls_loop(sim, dt, kernel, NULL, NULL, 0);
}

static double energy(const void *params, const struct dem_pair *g,
                     const double *state) {
  const struct hertz_params *p = params;
  return dem_hertz_energy(p->estar, g->rstar, g->overlap);
}

/* Johnson's duration of a head-on collision,
 * 2.87 (m*^2 / (R* E*^2 v))^(1/5). */
static double duration(const void *params, double mstar, double rstar,
                       double v) {
  const struct hertz_params *p = params;
  return 2.87 * pow(mstar * mstar / (rstar * p->estar * p->estar), 0.2) *
         pow(v, -0.2);
}

static void time_step(const struct dem_sim *sim, struct dem_dt_advice *out) {
  dem_contact_time_advice(sim, "Hertz", duration, HERTZ_STEPS_PER_CONTACT, out);
}

const struct dem_contact_model dem_contact_hertz = {
    .name = "hertz",
    .doc = "Frictionless, undamped Hertz normal force F = 4/3 E* sqrt(R*) "
           "d^(3/2) between spheres of different bodies and between spheres "
           "and walls (1/E* = (1-nu1^2)/E1 + (1-nu2^2)/E2, R* = r1 r2/(r1 + "
           "r2), R* = r against a wall); elastic energy 8/15 E* sqrt(R*) "
           "d^(5/2). Conservative: no history, no dissipation. The law of the "
           "SPIRAL paper's experiments.",
    .params_size = sizeof(struct hertz_params),
    .mix = mix,
    .state_width = 0,
    .flags = 0,
    .pairs = pairs,
    .walls = walls,
    .energy = energy,
    .release = NULL,
    .time_step = time_step,
    .state_names = NULL,
};
