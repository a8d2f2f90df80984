/* The error constant of every rotation scheme on the SPIRAL paper's driven
 * cylinder: the time step that reaches a target error at t = 1 s. */
/* A convergence order (tests/test_rotation.c) does not see a scheme that
 * is wrong by a constant factor, nor a wrong higher-order term that only
 * matters at large steps. This pins the dt for an average error
 * (|q - q'| + |w - w'|)/2 of 1e-5 .. 1e-2 (Eq. 13, analytic w' of Eqs.
 * 11-12, Magnus-4 q') to within 10 % of the paper's Table 2 where dem
 * reproduces it, and to within 2 % of the value recorded in
 * docs/rotation_study.md where dem's reading of the paper differs or the
 * paper has no entry; docs/integrators.md ("Error constants") gives the
 * reason for each. The search is the one of `dem study rotation`
 * (src/cli/study_measure.c): dt = 1/N so that every run ends at 1 s exactly,
 * bisection on N to a bracket 0.2 % wide, then log dt interpolated
 * linearly in log error. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/quat.h"
#include "integrators/cylinder_analytic.h"
#include "integrators/rotation.h"
#include "integrators/rotation_drive.h"

/* Where a row's dt comes from: P, the paper's Table 2 (del Valle et al.,
 * Comput. Phys. Commun. 297 (2024) 109077), asserted within 10 %; R, the
 * value dem measured and docs/rotation_study.md records, within 2 %. */
enum { P, R };

static const double targets[4] = {1e-5, 1e-4, 1e-3, 1e-2};

struct scheme_row {
  const char *scheme;
  double dt[4]; /* for the targets 1e-5, 1e-4, 1e-3, 1e-2 */
  int source[4];
};

/* The 1e-2 target needs the largest steps, where the terms beyond a
 * scheme's leading error show (Buss's dt^2/12 term, a stage of Johnson's
 * RK4); the small targets pin the leading constant. */
static const struct scheme_row rows[] = {
    {"spiral_leapfrog", {3.044e-3, 8.372e-3, 2.329e-2, 6.167e-2}, {P, P, P, P}},
    {"omelyan", {2.943e-4, 9.319e-4, 2.952e-3, 9.400e-3}, {P, P, P, P}},
    /* paper at 1e-2: 5.529e-2 (-20 %) */
    {"buss", {2.650e-5, 2.663e-4, 2.890e-3, 4.420e-2}, {P, P, P, R}},
    {"velocity_verlet", {6.789e-6, 6.852e-5, 6.779e-4, 3.527e-3}, {P, P, P, P}},
    /* paper at 1e-2: 3.295e-3 (-14 %) */
    {"fincham", {3.069e-6, 3.071e-5, 3.091e-4, 2.826e-3}, {P, P, P, R}},
    {"direct_euler", {1.324e-6, 1.325e-5, 1.333e-4, 1.421e-3}, {P, P, P, P}},
    /* paper: 1.801e-6 .. 1.824e-3 (-11 % at every target) */
    {"johnson", {1.607e-6, 1.607e-5, 1.609e-4, 1.627e-3}, {R, R, R, R}},
    /* paper: 1.662e-7 .. 1.671e-4, which is pfc4 never normalised */
    {"pfc4", {1.311e-6, 1.312e-5, 1.322e-4, 1.451e-3}, {R, R, R, R}},
    /* not in the paper's Table 2 */
    {"spiral", {1.481e-3, 4.726e-3, 1.563e-2, 5.950e-2}, {R, R, R, R}},
    {"velocity_verlet_spiral",
     {3.342e-3, 1.027e-2, 3.048e-2, 9.235e-2},
     {R, R, R, R}},
    {"pcdm", {5.249e-4, 1.665e-3, 5.292e-3, 1.616e-2}, {R, R, R, R}},
    {"rk4", {7.163e-3, 1.277e-2, 2.297e-2, 4.280e-2}, {R, R, R, R}},
};
enum { NROWS = sizeof rows / sizeof rows[0] };

static double qref[4], wref[3]; /* the reference at t = 1 s */

static void setup(void) {
  dem_cylinder_q_magnus4(1.0, 1e-5, qref);
  dem_cylinder_w(1.0, wref);
}

/* Average Eq. 13 error at t = 1 s with dt = 1/n, each scheme with its
 * default normalisation, stepped as the pipeline steps it. */
static double avg_error(const struct dem_rotation_integrator *r, long n) {
  struct dem_rot_drive d = {.scheme = r,
                            .dt = 1.0 / (double)n,
                            .torque = dem_cylinder_torque_fn,
                            .normalise_every = -1,
                            .use_step_fn = 1};
  struct dem_rot_state s = {{1.0, 0.0, 0.0, 0.0}, {0}, {0}};
  double w[3];
  memcpy(d.inertia, dem_cylinder_inertia, sizeof d.inertia);
  memcpy(s.w, dem_cylinder_w0, sizeof s.w);
  dem_rot_drive_run(&d, &s, 0.0, n, w);
  return 0.5 * (dem_rel_l1(s.q, qref, 4) + dem_rel_l1(w, wref, 3));
}

/* The dt for `target`, searched between 1/1.25 and 1.25 times dt_guess;
 * NAN (with the reason in *why) when the answer lies outside. */
static double dt_for_target(const struct dem_rotation_integrator *r,
                            double target, double dt_guess, char *why,
                            size_t why_size) {
  long n0 = lround(1.0 / dt_guess);
  long nb = (long)floor((double)n0 / 1.25), ng = (long)ceil((double)n0 * 1.25);
  if (nb < 1)
    nb = 1;
  double eb = avg_error(r, nb), eg = avg_error(r, ng);
  if (!(eb > target)) {
    snprintf(why, why_size, "error %.4g already at dt = %.4g (1.25 x)", eb,
             1.0 / (double)nb);
    return NAN;
  }
  if (!(eg <= target)) {
    snprintf(why, why_size, "error %.4g still at dt = %.4g (1/1.25 x)", eg,
             1.0 / (double)ng);
    return NAN;
  }
  while (ng - nb > 1 && (double)(ng - nb) > 2e-3 * (double)nb) {
    long nm = lround(sqrt((double)nb * (double)ng));
    if (nm <= nb)
      nm = nb + 1;
    if (nm >= ng)
      nm = ng - 1;
    double e = avg_error(r, nm);
    if (e > target) {
      nb = nm;
      eb = e;
    } else {
      ng = nm;
      eg = e;
    }
  }
  double lb = log(1.0 / (double)nb), lg = log(1.0 / (double)ng);
  double f = eb > eg ? (log(target) - log(eg)) / (log(eb) - log(eg)) : 0.0;
  return exp(lg + f * (lb - lg));
}

START_TEST(error_constant) {
  const struct scheme_row *row = &rows[_i / 4];
  const int k = _i % 4;
  const double target = targets[k], expected = row->dt[k];
  const int paper = row->source[k] == P;
  const struct dem_rotation_integrator *r = dem_rotation_find(row->scheme);
  ck_assert_msg(r != NULL, "no scheme %s", row->scheme);
  const double tol = paper ? 0.10 : 0.02;
  char why[160] = "";
  double dt = dt_for_target(r, target, expected, why, sizeof why);
  printf("%-24s target %.0e: dt %.4e, %s %.4e (%+.1f %%)\n", row->scheme,
         target, dt, paper ? "paper" : "recorded", expected,
         100.0 * (dt / expected - 1));
  ck_assert_msg(!isnan(dt), "%s, target %.0e: dt not within 25 %% of %.4e: %s",
                row->scheme, target, expected, why);
  ck_assert_msg(fabs(dt / expected - 1) < tol,
                "%s, target %.0e: dt %.4e, %s %.4e (%+.1f %%, allowed %.0f %%)",
                row->scheme, target, dt,
                paper ? "the paper's Table 2" : "recorded", expected,
                100.0 * (dt / expected - 1), 100.0 * tol);
}
END_TEST

static void no_torque(void *ctx, double t, const double q[4], const double w[3],
                      double out[3]) {
  (void)ctx;
  (void)t;
  (void)q;
  (void)w;
  out[0] = out[1] = out[2] = 0.0;
}

/* A steady spin about a principal axis n: w stays w0 = |w0| n, so the
 * orientation update of johnson (and of rk4) is RK4 on the linear equation
 * qdot = q (0, w0)/2. One RK4 step multiplies q by
 * 1 - th^2/2 + th^4/24 + (th - th^3/6) n (th = |w0| dt/2); normalised,
 * that is a turn by phi = atan2(th - th^3/6, 1 - th^2/2 + th^4/24) per
 * step (th - th^5/120 + ...), so q(N dt) = q0 (cos N phi, sin N phi n)
 * to round-off. A wrong stage changes phi at O(th^4) or lower: at
 * th = 0.1 over 500 steps that is ~1e-3, far above 1e-12. (The cylinder
 * cannot see a wrong fourth stage: there Johnson's frozen w dominates.) */
START_TEST(rk4_phase_on_a_steady_spin) {
  const char *names[] = {"johnson", "rk4"};
  const double dt = 0.02, spin = 10.0, th = 0.5 * spin * dt;
  const long n = 500;
  const double phi =
      atan2(th - th * th * th / 6, 1 - th * th / 2 + th * th * th * th / 24);
  double q0[4] = {0.9, 0.1, -0.3, 0.2}, turn[4], expect[4];
  q_normalize(q0);
  q_set(turn, cos((double)n * phi), sin((double)n * phi), 0.0, 0.0);
  q_mul(expect, q0, turn);
  for (int k = 0; k < 2; k++) {
    const struct dem_rotation_integrator *r = dem_rotation_find(names[k]);
    ck_assert_msg(r != NULL, "no scheme %s", names[k]);
    struct dem_rot_drive d = {.scheme = r,
                              .dt = dt,
                              .torque = no_torque,
                              .normalise_every = -1,
                              .use_step_fn = 1};
    struct dem_rot_state s = {{0}, {spin, 0.0, 0.0}, {0}};
    double w[3];
    memcpy(d.inertia, dem_cylinder_inertia, sizeof d.inertia);
    q_copy(s.q, q0);
    dem_rot_drive_run(&d, &s, 0.0, n, w);
    double e = dem_rel_l1(s.q, expect, 4);
    printf("%s: steady spin, q differs from RK4's phase by %.2g\n", names[k],
           e);
    ck_assert_msg(e < 1e-12,
                  "%s: q after %ld steps differs by %.3g from RK4's turn "
                  "(phase %.12g per step)",
                  names[k], n, e, phi);
    ck_assert_msg(fabs(w[0] - spin) < 1e-12 && fabs(w[1]) < 1e-12 &&
                      fabs(w[2]) < 1e-12,
                  "%s: w drifted from (%g, 0, 0) to (%.3g, %.3g, %.3g)",
                  names[k], spin, w[0], w[1], w[2]);
  }
}
END_TEST

/* Every scheme of the table has a row, so a new scheme cannot be left
 * out silently. */
START_TEST(every_scheme_pinned) {
  for (int i = 0; dem_rotation_integrators[i]; i++) {
    int found = 0;
    for (int k = 0; k < NROWS; k++)
      found += strcmp(rows[k].scheme, dem_rotation_integrators[i]->name) == 0;
    ck_assert_msg(found == 1, "scheme %s has %d rows of error constants",
                  dem_rotation_integrators[i]->name, found);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("scheme_constants");
  TCase *tc = tcase_create("cylinder");
  tcase_set_timeout(tc, 300);
  tcase_add_unchecked_fixture(tc, setup, NULL);
  tcase_add_test(tc, every_scheme_pinned);
  tcase_add_loop_test(tc, error_constant, 0, 4 * NROWS);
  tcase_add_test(tc, rk4_phase_on_a_steady_spin);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed != 0;
}
