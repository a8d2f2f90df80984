/* The measurements of `dem study rotation`: its runs of every case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/study.h"
#include "core/quat.h"
#include "integrators/cylinder_analytic.h"
#include "integrators/rotation_drive.h"

enum {
  SAMPLES = 200, /* error-growth samples */
  COST_BODIES = 256,
  COST_STEPS = 400,
  COST_ROUNDS = 25
};

/* Once the average error is below this and has grown twice in a row as dt
 * shrinks, the sweep has reached the round-off floor; finer points are
 * skipped (left out of the CSV) to save time. */
static const double sweep_floor = 1e-8;
const double dem_study_targets[NTARGET] = {1e-5, 1e-4, 1e-3, 1e-2};
static const double growth_dt = 1e-5;

static void fixed_torque(void *ctx, double t, const double q[4],
                         const double w[3], double out[3]) {
  (void)t;
  (void)q;
  (void)w;
  v3_copy(out, ctx);
}

static void setup_drive(struct dem_rot_drive *d, const struct study_case *c,
                        double dt) {
  memset(d, 0, sizeof *d);
  d->scheme = c->r;
  memcpy(d->inertia, dem_cylinder_inertia, sizeof d->inertia);
  d->dt = dt;
  d->torque = dem_cylinder_torque_fn;
  d->normalise_every = c->normalise_every;
  d->use_step_fn = 1;
}

static void initial_state(struct dem_rot_state *s) {
  memset(s, 0, sizeof *s);
  q_set(s->q, 1.0, 0.0, 0.0, 0.0);
  memcpy(s->w, dem_cylinder_w0, sizeof s->w);
}

/* Eq. 13 errors of q and w at t = 1 s with dt = 1/N. */
static void errors_at_1s(const struct study *st, const struct study_case *c,
                         long n, double *eq, double *ew) {
  struct dem_rot_drive d;
  struct dem_rot_state s;
  double w[3];
  setup_drive(&d, c, 1.0 / (double)n);
  initial_state(&s);
  dem_rot_drive_run(&d, &s, 0.0, n, w);
  *eq = dem_rel_l1(s.q, st->qref1, 4);
  *ew = dem_rel_l1(w, st->wref1, 3);
}

static double avg_error(const struct study *st, const struct study_case *c,
                        long n) {
  double eq, ew;
  errors_at_1s(st, c, n, &eq, &ew);
  return 0.5 * (eq + ew);
}

/* ---- Fig. 2: error vs dt ---- */

void dem_study_sweep(struct study *st) {
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (int i = 0; i < st->ncases; i++) {
    struct study_case *c = &st->c[i];
    int rises = 0;
    double prev = INFINITY;
    for (int k = 0; k < NSWEEP; k++) {
      if (rises >= 2) {
        c->err_q[k] = c->err_w[k] = NAN;
        continue;
      }
      errors_at_1s(st, c, st->sweep_n[k], &c->err_q[k], &c->err_w[k]);
      double avg = 0.5 * (c->err_q[k] + c->err_w[k]);
      rises = avg < sweep_floor && avg > prev ? rises + 1 : 0;
      prev = avg;
    }
  }
}

/* ---- Table 2: dt for a target average error ---- */

/* Brackets the target on the sweep, starting from the finest dt (the
 * largest dt below which every sweep point meets the target), bisects on
 * the number of steps N (dt = 1/N, so every run ends at t = 1 s exactly)
 * until the bracket is 0.2 % wide, then interpolates log(dt) linearly in
 * log(error) between the bracket ends. */
static void find_dt(const struct study *st, struct study_case *c, int it) {
  const double target = dem_study_targets[it];
  double avg[NSWEEP];
  for (int k = 0; k < NSWEEP; k++) {
    avg[k] = 0.5 * (c->err_q[k] + c->err_w[k]);
    if (isnan(avg[k])) /* skipped: at the round-off floor */
      avg[k] = avg[k - 1];
  }
  if (!(avg[NSWEEP - 1] <= target)) {
    c->status[it] = NOT_REACHED;
    c->dt_target[it] = NAN;
    return;
  }
  int j = NSWEEP - 2;
  while (j >= 0 && avg[j] <= target)
    j--;
  if (j < 0) {
    c->status[it] = ABOVE_SWEEP;
    c->dt_target[it] = 1.0 / (double)st->sweep_n[0];
    return;
  }
  long nb = st->sweep_n[j], ng = st->sweep_n[j + 1];
  double eb = avg[j], eg = avg[j + 1];
  while (ng - nb > 1 && (double)(ng - nb) > 2e-3 * (double)nb) {
    long nm = (long)llround(sqrt((double)nb * (double)ng));
    if (nm <= nb)
      nm = nb + 1;
    if (nm >= ng)
      nm = ng - 1;
    double e = avg_error(st, c, nm);
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
  c->status[it] = FOUND;
  c->dt_target[it] = exp(lg + f * (lb - lg));
}

/* Each case's search is independent: one thread per case. */
void dem_study_find_dts(struct study *st) {
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (int i = 0; i < st->ncases; i++)
    for (int it = 0; it < NTARGET; it++)
      find_dt(st, &st->c[i], it);
}

/* ---- Fig. 3: error growth at dt = 1e-5 ---- */

struct growth {
  double (*qref)[4];
  long every;
  double *eq, *ew; /* SAMPLES each */
};

static void observe_growth(void *ctx, long step, double t,
                           const struct dem_rot_state *s, const double w[3]) {
  struct growth *g = ctx;
  long k = step / g->every - 1;
  double wref[3];
  if (k < 0 || k >= SAMPLES)
    return;
  dem_cylinder_w(t, wref);
  g->eq[k] = dem_rel_l1(s->q, g->qref[k], 4);
  g->ew[k] = dem_rel_l1(w, wref, 3);
}

dem_status dem_study_growth(struct study *st, FILE *csv, double t_end) {
  const long n = (long)llround(t_end / growth_dt), every = n / SAMPLES;
  double(*qref)[4] = malloc(sizeof(double[4]) * SAMPLES);
  double *err = malloc(sizeof(double) * SAMPLES * 2 * (size_t)st->ncases);
  if (!qref || !err) {
    free(qref);
    free(err);
    return dem_fail(DEM_ERR_NOMEM, "error growth: out of memory");
  }
  /* the reference by Magnus-4 at half the step, sampled in passing */
  double q[4] = {1.0, 0.0, 0.0, 0.0};
  const double h = 0.5 * growth_dt;
  for (long i = 0, k = 0; k < SAMPLES; i++) {
    dem_cylinder_q_step_magnus4(q, (double)i * h, h);
    if ((i + 1) % (2 * every) == 0)
      q_copy(qref[k++], q);
  }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (int i = 0; i < st->ncases; i++) {
    struct growth g = {qref, every, err + 2 * SAMPLES * i,
                       err + 2 * SAMPLES * i + SAMPLES};
    struct dem_rot_drive d;
    struct dem_rot_state s;
    double w[3];
    setup_drive(&d, &st->c[i], growth_dt);
    d.observe = observe_growth;
    d.observe_ctx = &g;
    d.observe_every = every;
    initial_state(&s);
    dem_rot_drive_run(&d, &s, 0.0, every * SAMPLES, w);
  }
  fprintf(csv, "scheme,t,err_q,err_w\n");
  printf("\nError growth at dt = %.0e s (Fig. 3): error at t = %.3g s\n",
         growth_dt, (double)(every * SAMPLES) * growth_dt);
  printf("  %-28s %11s %11s\n", "scheme", "err_q", "err_w");
  for (int i = 0; i < st->ncases; i++) {
    const double *eq = err + 2 * SAMPLES * i, *ew = eq + SAMPLES;
    for (int k = 0; k < SAMPLES; k++)
      fprintf(csv, "%s,%.6g,%.6e,%.6e\n", st->c[i].label,
              (double)((k + 1) * every) * growth_dt, eq[k], ew[k]);
    printf("  %-28s %11.3e %11.3e\n", st->c[i].label, eq[SAMPLES - 1],
           ew[SAMPLES - 1]);
  }
  free(qref);
  free(err);
  return DEM_OK;
}

/* ---- Fig. 4: cost per step ---- */

/* CPU time of this thread: immune to being descheduled on a busy host. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One timed batch: COST_STEPS steps over COST_BODIES bodies under a
 * constant lab torque (no force computation), as the pipeline calls the
 * scheme; ns per body step. rk4 runs its step_fn with a constant-torque
 * function (four calls per step). */
static double time_batch(const struct dem_rotation_integrator *r, int normalise,
                         struct dem_rot_state *bodies, double *sink) {
  static const double tau[3] = {0.5, -0.2, 0.1};
  const double dt = 1e-5;
  for (int b = 0; b < COST_BODIES; b++) {
    struct dem_rot_state *s = &bodies[b];
    double axis[3] = {1.0, 0.01 * b, -0.02 * b};
    memset(s, 0, sizeof *s);
    q_from_axis_angle(s->q, axis, 0.01 * b);
    v3_set(s->w, 0.3 + 0.001 * b, -0.9, 0.6);
    r->start(s, dem_cylinder_inertia, tau, dt);
  }
  double t0 = cpu_s();
  for (int n = 0; n < COST_STEPS; n++)
    for (int b = 0; b < COST_BODIES; b++) {
      struct dem_rot_state *s = &bodies[b];
      if (r->step_fn)
        r->step_fn(s, dem_cylinder_inertia, n * dt, dt, fixed_torque,
                   (void *)tau);
      else
        r->before_force(s, dem_cylinder_inertia, tau, dt);
      if (normalise)
        q_normalize(s->q);
      if (r->after_force)
        r->after_force(s, dem_cylinder_inertia, tau, dt);
    }
  double el = cpu_s() - t0;
  for (int b = 0; b < COST_BODIES; b++)
    *sink += bodies[b].q[0];
  return el / ((double)COST_STEPS * COST_BODIES) * 1e9;
}

/* Every scheme with and without normalisation, in COST_ROUNDS interleaved
 * rounds (so slow phases of the host hit all schemes alike); the best
 * round of each. */
dem_status dem_study_cost(struct study *st, FILE *csv) {
  struct dem_rot_state *bodies = malloc(sizeof *bodies * COST_BODIES);
  if (!bodies)
    return dem_fail(DEM_ERR_NOMEM, "cost: out of memory");
  const struct dem_rotation_integrator *de = dem_rotation_find("direct_euler");
  double ref = INFINITY, sink = 0.0;
  for (int i = 0; i < st->ncases; i++)
    st->cost_norm[i] = st->cost_nonorm[i] = INFINITY;
  for (int round = 0; round < COST_ROUNDS; round++) {
    ref = fmin(ref, time_batch(de, 1, bodies, &sink));
    for (int i = 0; i < st->ncases; i++) {
      const struct dem_rotation_integrator *r = st->c[i].r;
      st->cost_norm[i] =
          fmin(st->cost_norm[i], time_batch(r, 1, bodies, &sink));
      st->cost_nonorm[i] =
          fmin(st->cost_nonorm[i], time_batch(r, 0, bodies, &sink));
    }
  }
  free(bodies);
  if (sink == 12345.678) /* keep the work observable */
    printf(" ");
  for (int i = 0; i < st->ncases; i++) {
    struct study_case *c = &st->c[i];
    int norm = c->normalise_every < 0 ? c->r->normalise : c->normalise_every;
    c->cost_ns = norm ? st->cost_norm[i] : st->cost_nonorm[i];
    if (strcmp(c->label, "direct_euler") == 0)
      c->cost_ns = ref;
  }
  fprintf(csv, "scheme,default_normalise,ns_per_step_normalised,"
               "ns_per_step_not_normalised,ratio_normalised,"
               "ratio_not_normalised,ratio_as_used\n");
  printf("\nCost per step relative to Direct Euler with normalisation "
         "(Fig. 4; %.2f ns per body step, best of %d rounds)\n",
         ref, COST_ROUNDS);
  printf("  %-28s %9s %9s %9s %9s\n", "scheme", "ns+norm", "ns", "ratio+n",
         "ratio");
  for (int i = 0; i < st->ncases; i++) {
    struct study_case *c = &st->c[i];
    int norm = c->normalise_every < 0 ? c->r->normalise : c->normalise_every;
    fprintf(csv, "%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f\n", c->label, norm,
            st->cost_norm[i], st->cost_nonorm[i], st->cost_norm[i] / ref,
            st->cost_nonorm[i] / ref, c->cost_ns / ref);
    printf("  %-28s %9.2f %9.2f %9.2f %9.2f%s\n", c->label, st->cost_norm[i],
           st->cost_nonorm[i], st->cost_norm[i] / ref, st->cost_nonorm[i] / ref,
           norm ? "  (normalises)" : "");
  }
  return DEM_OK;
}
