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

#include "cli/study.h"
#include "dem/status.h"
#include "integrators/cylinder_analytic.h"
#include "integrators/rotation.h"

/* Labelled variants added to the schemes (add_case). */
enum { VARIANTS = 1 };

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

/* The Table 2 search outcomes (FOUND, ABOVE_SWEEP, NOT_REACHED) in the CSV. */
static const char *const status_name[] = {"ok", "dt>=0.1", "not_reached"};

/* The paper's row for a case: by scheme, so that a variant (e.g. pfc4
 * never normalised) is compared with the scheme it varies. */
static int paper_row(const struct study_case *c) {
  for (int i = 0; i < NPAPER; i++)
    if (strcmp(paper_table2[i].scheme, c->r->name) == 0)
      return i;
  return -1;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
      fprintf(csv, "%s,%.0e,%.6e,%s,", c->label, dem_study_targets[it],
              c->dt_target[it], status_name[c->status[it]]);
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
      fprintf(csv, "%s,%.0e,%.6e,%.6e,%.4f,%.6g\n", c->label,
              dem_study_targets[it], c->dt_target[it], 1.0 / c->dt_target[it],
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
  dem_study_sweep(st);
  if (!(f = open_out(st, "study_error_vs_dt.csv", &status)))
    return status;
  write_sweep(st, f);
  if ((status = close_out(f, st, "study_error_vs_dt.csv")))
    return status;
  printf("Error vs dt (Fig. 2): %d schemes x %d time steps, %.1f s\n",
         st->ncases, NSWEEP, now_s() - t0);

  t0 = now_s();
  dem_study_find_dts(st);
  if (!(f = open_out(st, "study_table2.csv", &status)))
    return status;
  print_table2(st, f);
  if ((status = close_out(f, st, "study_table2.csv")))
    return status;
  printf("  (bisection %.1f s; n/r: not reached down to dt = 1e-7)\n",
         now_s() - t0);

  if (!(f = open_out(st, "study_error_growth.csv", &status)))
    return status;
  status = dem_study_growth(st, f, st->long_run ? 20.0 : 2.0);
  dem_status s2 = close_out(f, st, "study_error_growth.csv");
  if (status || (status = s2))
    return status;

  if (!(f = open_out(st, "study_cost.csv", &status)))
    return status;
  status = dem_study_cost(st, f);
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
