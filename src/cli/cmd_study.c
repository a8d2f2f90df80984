/* `dem study rotation`: the paper's Figs. 2-5 and Table 2 for every scheme. */
/* On the driven cylinder of del Valle et al. (2024): error vs dt (Fig. 2), dt
 * per target error (Table 2), error growth (Fig. 3), cost per step (Fig. 4)
 * and speedup (Fig. 5). */
#include "cli/commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/quat.h"
#include "dem/status.h"
#include "integrators/cylinder_analytic.h"
#include "integrators/rotation.h"
#include "integrators/rotation_drive.h"

enum {
  NSWEEP = 25,   /* N = 10^(1 + k/4) steps to t = 1 s: dt = 1e-1 .. 1e-7 */
  NTARGET = 4,   /* target average errors 1e-5 .. 1e-2 */
  VARIANTS = 1,  /* labelled variants added to the schemes (add_case) */
  SAMPLES = 200, /* error-growth samples */
  COST_BODIES = 256,
  COST_STEPS = 400,
  COST_ROUNDS = 25
};
/* Once the average error is below this and has grown twice in a row as dt
 * shrinks, the sweep has reached the round-off floor; finer points are
 * skipped (left out of the CSV) to save time. */
static const double sweep_floor = 1e-8;
static const double targets[NTARGET] = {1e-5, 1e-4, 1e-3, 1e-2};
static const double growth_dt = 1e-5;

/* THE PAPER'S Table 2 (del Valle et al., Comput. Phys. Commun. 297 (2024)
 * 109077): dt for the targets 1e-5, 1e-4, 1e-3, 1e-2. Printed and saved
 * only as the comparison column; nothing here is computed from it. */
static const struct {
  const char *scheme, *paper_name;
  double dt[NTARGET];
} paper_table2[] = {
    {"spiral_leapfrog", "Spiral", {3.044e-03, 8.372e-03, 2.329e-02, 6.167e-02}},
    {"omelyan", "Omelyan", {2.943e-04, 9.319e-04, 2.952e-03, 9.400e-03}},
    {"buss", "Buss", {2.650e-05, 2.663e-04, 2.890e-03, 5.529e-02}},
    {"velocity_verlet",
     "Velocity Verlet",
     {6.789e-06, 6.852e-05, 6.779e-04, 3.527e-03}},
    {"fincham", "Fincham", {3.069e-06, 3.071e-05, 3.091e-04, 3.295e-03}},
    {"direct_euler",
     "Direct Euler",
     {1.324e-06, 1.325e-05, 1.333e-04, 1.421e-03}},
    {"johnson", "Johnson et al.", {1.801e-06, 1.801e-05, 1.804e-04, 1.824e-03}},
    {"pfc4", "PFC4", {1.662e-07, 1.662e-06, 1.663e-05, 1.671e-04}},
};
enum { NPAPER = sizeof paper_table2 / sizeof paper_table2[0] };

/* Table 2 search outcome. */
enum { FOUND = 0, ABOVE_SWEEP = 1, NOT_REACHED = 2 };
static const char *const status_name[] = {"ok", "dt>=0.1", "not_reached"};

struct study_case {
  char label[48];
  const struct dem_rotation_integrator *r;
  int normalise_every; /* -1: the scheme's default */
  double err_q[NSWEEP], err_w[NSWEEP];
  double dt_target[NTARGET];
  int status[NTARGET];
  double cost_ns; /* per body step, with this case's normalisation */
};

struct study {
  const char *out;
  int long_run;
  long sweep_n[NSWEEP];
  double qref1[4], wref1[3]; /* reference at t = 1 s */
  /* The schemes plus labelled variants: as many as the table of rotation
   * integrators holds, so a new scheme can never overflow a fixed array. */
  struct study_case *c;
  int ncases, cap;
  double *cost_norm, *cost_nonorm; /* cap entries each */
};

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

static void run_sweep(struct study *st) {
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
  const double target = targets[it];
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

/* The paper's row for a case: by scheme, so that a variant (e.g. pfc4
 * never normalised) is compared with the scheme it varies. */
static int paper_row(const struct study_case *c) {
  for (int i = 0; i < NPAPER; i++)
    if (strcmp(paper_table2[i].scheme, c->r->name) == 0)
      return i;
  return -1;
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

static dem_status run_growth(struct study *st, FILE *csv, double t_end) {
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

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
static dem_status run_cost(struct study *st, FILE *csv) {
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

/* ---- output ---- */

static FILE *open_out(const struct study *st, const char *name,
                      dem_status *status) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", st->out, name);
  FILE *f = fopen(path, "w");
  if (!f)
    *status =
        dem_fail(DEM_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  return f;
}

static dem_status close_out(FILE *f, const struct study *st, const char *name) {
  if (fclose(f) != 0)
    return dem_fail(DEM_ERR_IO, "cannot write %s/%s", st->out, name);
  return DEM_OK;
}

static void write_sweep(const struct study *st, FILE *f) {
  fprintf(f, "scheme,steps,dt,err_q,err_w,err_avg\n");
  for (int i = 0; i < st->ncases; i++)
    for (int k = 0; k < NSWEEP; k++) {
      const struct study_case *c = &st->c[i];
      if (isnan(c->err_q[k]))
        continue;
      fprintf(f, "%s,%ld,%.6e,%.6e,%.6e,%.6e\n", c->label, st->sweep_n[k],
              1.0 / (double)st->sweep_n[k], c->err_q[k], c->err_w[k],
              0.5 * (c->err_q[k] + c->err_w[k]));
    }
}

static void print_table2(const struct study *st, FILE *csv) {
  fprintf(csv, "scheme,target,dt_measured,status,dt_paper,rel_diff\n");
  printf("\nTable 2: dt for the average error (|q-q'| + |w-w'|)/2 at t = 1 s "
         "(Eq. 13)\n");
  printf("  measured here / THE PAPER'S Table 2 (del Valle et al. 2024) / "
         "difference (measured - paper)/paper\n");
  printf("  %-28s", "scheme");
  for (int it = 0; it < NTARGET; it++)
    printf(" | %-31s", it == 0   ? "target 1e-5"
                       : it == 1 ? "target 1e-4"
                       : it == 2 ? "target 1e-3"
                                 : "target 1e-2");
  printf("\n");
  for (int i = 0; i < st->ncases; i++) {
    const struct study_case *c = &st->c[i];
    int p = paper_row(c);
    printf("  %-28s", c->label);
    for (int it = 0; it < NTARGET; it++) {
      char m[32], pp[16] = "", dd[16] = "";
      double rel = NAN;
      if (c->status[it] == FOUND)
        snprintf(m, sizeof m, "%.3e", c->dt_target[it]);
      else if (c->status[it] == ABOVE_SWEEP)
        snprintf(m, sizeof m, ">=%.0e", c->dt_target[it]);
      else
        snprintf(m, sizeof m, "n/r");
      if (p >= 0) {
        snprintf(pp, sizeof pp, "%.3e", paper_table2[p].dt[it]);
        if (c->status[it] == FOUND) {
          rel = c->dt_target[it] / paper_table2[p].dt[it] - 1.0;
          snprintf(dd, sizeof dd, "%+.0f%%", 100.0 * rel);
        }
      }
      printf(" | %-9s / %-9s %7s", m, p >= 0 ? pp : "-", dd);
      fprintf(csv, "%s,%.0e,%.6e,%s,", c->label, targets[it], c->dt_target[it],
              status_name[c->status[it]]);
      if (p >= 0)
        fprintf(csv, "%.4e,%.4f\n", paper_table2[p].dt[it], rel);
      else
        fprintf(csv, ",\n");
    }
    printf("\n");
  }
}

/* Fig. 5: time(Direct Euler)/time(scheme) to reach each target at 1 s,
 * time = (1 s / dt) x cost per step. */
static void print_speedup(const struct study *st, FILE *csv) {
  const struct study_case *de = NULL;
  for (int i = 0; i < st->ncases; i++)
    if (strcmp(st->c[i].label, "direct_euler") == 0)
      de = &st->c[i];
  fprintf(csv, "scheme,target,dt,steps,cost_ratio,speedup\n");
  printf("\nSpeedup over Direct Euler to reach a target error at 1 s "
         "(Fig. 5): steps x cost per step\n");
  printf("  %-28s %10s %10s %10s %10s\n", "scheme", "1e-5", "1e-4", "1e-3",
         "1e-2");
  for (int i = 0; i < st->ncases; i++) {
    const struct study_case *c = &st->c[i];
    printf("  %-28s", c->label);
    for (int it = 0; it < NTARGET; it++) {
      double sp = NAN;
      if (de && c->status[it] == FOUND && de->status[it] == FOUND)
        sp =
            (de->cost_ns / de->dt_target[it]) / (c->cost_ns / c->dt_target[it]);
      printf(" %10.3g", sp);
      fprintf(csv, "%s,%.0e,%.6e,%.6e,%.4f,%.6g\n", c->label, targets[it],
              c->dt_target[it], 1.0 / c->dt_target[it],
              de ? c->cost_ns / de->cost_ns : NAN, sp);
    }
    printf("\n");
  }
}

enum { OUT, LONG, HELP };

static const struct dem_cli_option study_options[] = {
    {"out", 0, "DIR", "output directory (default: .); created if missing", OUT},
    {"long", 0, NULL, "error growth over 20 s as in the paper (default 2 s)",
     LONG},
    {"help", 'h', NULL, "this text", HELP},
    {0}};

static void usage(FILE *f) {
  fputs("usage: dem study rotation [--out DIR] [--long]\n"
        "\n"
        "Validation of the rotation schemes on the driven cylinder of del "
        "Valle et al.\n"
        "(2024), Sec. 3: writes DIR/study_error_vs_dt.csv (Fig. 2), "
        "study_table2.csv\n"
        "(Table 2), study_error_growth.csv (Fig. 3), study_cost.csv (Fig. 4)"
        " and\n"
        "study_speedup.csv (Fig. 5); tools/plot_rotation_study.py draws "
        "them.\n"
        "\n",
        f);
  dem_cli_options_print(f, study_options);
}

static dem_status add_case(struct study *st, const char *label,
                           const char *scheme, int normalise_every) {
  if (st->ncases == st->cap)
    return dem_fail(DEM_ERR_INTERNAL, "more study cases than the %d planned",
                    st->cap);
  struct study_case *c = &st->c[st->ncases++];
  memset(c, 0, sizeof *c);
  snprintf(c->label, sizeof c->label, "%s", label);
  c->r = dem_rotation_find(scheme);
  c->normalise_every = normalise_every;
  return DEM_OK;
}

static dem_status study_rotation(struct study *st) {
  dem_status status = DEM_OK;
  FILE *f;
  if (mkdir(st->out, 0777) != 0 && errno != EEXIST)
    return dem_fail(DEM_ERR_IO, "cannot create %s: %s", st->out,
                    strerror(errno));
  for (int i = 0; dem_rotation_integrators[i]; i++)
    if ((status = add_case(st, dem_rotation_integrators[i]->name,
                           dem_rotation_integrators[i]->name, -1)))
      return status;
  /* evidence for the PFC4 row of Table 2 (see docs/rotation_study.md) */
  if ((status = add_case(st, "pfc4_not_normalised", "pfc4", 0)))
    return status;
  for (int k = 0; k < NSWEEP; k++)
    st->sweep_n[k] = (long)llround(pow(10.0, 1.0 + 0.25 * k));
  dem_cylinder_q_magnus4(1.0, 1e-5, st->qref1);
  dem_cylinder_w(1.0, st->wref1);
  {
    double qr[4];
    dem_cylinder_q(1.0, 1e-5, qr);
    printf("Reference q'(1 s): Magnus-4 (h = 1e-5) vs RK4 (h = 1e-5): "
           "relative L1 difference %.1e\n",
           dem_rel_l1(qr, st->qref1, 4));
  }

  double t0 = now_s();
  run_sweep(st);
  if (!(f = open_out(st, "study_error_vs_dt.csv", &status)))
    return status;
  write_sweep(st, f);
  if ((status = close_out(f, st, "study_error_vs_dt.csv")))
    return status;
  printf("Error vs dt (Fig. 2): %d schemes x %d time steps, %.1f s\n",
         st->ncases, NSWEEP, now_s() - t0);

  t0 = now_s();
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (int i = 0; i < st->ncases; i++)
    for (int it = 0; it < NTARGET; it++)
      find_dt(st, &st->c[i], it);
  if (!(f = open_out(st, "study_table2.csv", &status)))
    return status;
  print_table2(st, f);
  if ((status = close_out(f, st, "study_table2.csv")))
    return status;
  printf("  (bisection %.1f s; n/r: not reached down to dt = 1e-7)\n",
         now_s() - t0);

  if (!(f = open_out(st, "study_error_growth.csv", &status)))
    return status;
  status = run_growth(st, f, st->long_run ? 20.0 : 2.0);
  dem_status s2 = close_out(f, st, "study_error_growth.csv");
  if (status || (status = s2))
    return status;

  if (!(f = open_out(st, "study_cost.csv", &status)))
    return status;
  status = run_cost(st, f);
  s2 = close_out(f, st, "study_cost.csv");
  if (status || (status = s2))
    return status;

  if (!(f = open_out(st, "study_speedup.csv", &status)))
    return status;
  print_speedup(st, f);
  if ((status = close_out(f, st, "study_speedup.csv")))
    return status;
  printf("\nWrote %s/study_{error_vs_dt,table2,error_growth,cost,speedup}"
         ".csv; plot with tools/plot_rotation_study.py %s\n",
         st->out, st->out);
  return DEM_OK;
}

int dem_cmd_study(int argc, char **argv) {
  struct study *st;
  struct dem_cli_parser p;
  const char *out = ".", *study = NULL, *v;
  int long_run = 0, c;
  dem_cli_parser_init(&p, "dem study", study_options, argc, argv);
  while ((c = dem_cli_parser_next(&p, &v)) != DEM_CLI_END) {
    switch (c) {
    case DEM_CLI_BAD:
      return dem_status_exit_code(DEM_ERR_USAGE);
    case HELP:
      usage(stdout);
      return 0;
    case OUT:
      out = v;
      break;
    case LONG:
      long_run = 1;
      break;
    case DEM_CLI_OPERAND:
      if (study) {
        dem_cli_usage_error(&p, "one study expected, found '%s' too", v);
        return dem_status_exit_code(DEM_ERR_USAGE);
      }
      study = v;
      break;
    }
  }
  if (!study || strcmp(study, "rotation") != 0) {
    if (study)
      fprintf(stderr, "dem study: unknown study '%s' (known: rotation)\n",
              study);
    else
      usage(stderr);
    return dem_status_exit_code(DEM_ERR_USAGE);
  }
  st = calloc(1, sizeof *st);
  if (st) {
    while (dem_rotation_integrators[st->cap])
      st->cap++;
    st->cap += VARIANTS;
    st->c = calloc((size_t)st->cap, sizeof *st->c);
    st->cost_norm = calloc((size_t)st->cap, sizeof *st->cost_norm);
    st->cost_nonorm = calloc((size_t)st->cap, sizeof *st->cost_nonorm);
  }
  if (!st || !st->c || !st->cost_norm || !st->cost_nonorm) {
    if (st) {
      free(st->c);
      free(st->cost_norm);
      free(st->cost_nonorm);
    }
    free(st);
    fprintf(stderr, "dem study: out of memory\n");
    return dem_status_exit_code(DEM_ERR_NOMEM);
  }
  st->out = out;
  st->long_run = long_run;
  dem_status s = study_rotation(st);
  free(st->c);
  free(st->cost_norm);
  free(st->cost_nonorm);
  free(st);
  if (s != DEM_OK) {
    fprintf(stderr, "dem study: %s\n", dem_last_error());
    return dem_status_exit_code(s);
  }
  return 0;
}
