/* What the measuring and the reporting of `dem study rotation` share. */
#ifndef DEM_CLI_STUDY_H
#define DEM_CLI_STUDY_H

#include <stdio.h>

#include "dem/status.h"
#include "integrators/rotation.h"

enum {
  NSWEEP = 25, /* N = 10^(1 + k/4) steps to t = 1 s: dt = 1e-1 .. 1e-7 */
  NTARGET = 4  /* target average errors 1e-5 .. 1e-2 */
};

/* The target average errors of Table 2 (study_measure.c). */
extern const double dem_study_targets[NTARGET];

/* Table 2 search outcome. */
enum { FOUND = 0, ABOVE_SWEEP = 1, NOT_REACHED = 2 };

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

/* Fig. 2: the errors at 1 s of every case over the sweep of dt. */
void dem_study_sweep(struct study *st);

/* Table 2: dt for each target error, every case (after the sweep). */
void dem_study_find_dts(struct study *st);

/* Fig. 3: error growth at dt = 1e-5 up to t_end; prints and writes csv. */
dem_status dem_study_growth(struct study *st, FILE *csv, double t_end);

/* Fig. 4: cost per step of every case; prints and writes csv. */
dem_status dem_study_cost(struct study *st, FILE *csv);

#endif
