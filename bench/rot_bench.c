/* rot_bench: times the push_rotation operator(s) of a config's scheme
 * alone, and the synchronisation of the angular velocities that energy
 * rows and snapshots use, on the config's bodies with their torques held.
 *
 *   rot_bench CONFIG CALLS [path.key=value ...]
 *
 * Prints, per push_rotation operator (and "sync"), the fastest and the
 * median of CALLS calls in nanoseconds per body: the fastest call is the
 * one the machine's other load disturbed least. DEM_ISA=base|avx2|avx512
 * caps the SIMD variant. Link against build/libdemcore.a, e.g.
 *
 *   cc -O2 -fopenmp -Iinclude -Isrc bench/rot_bench.c build/libdemcore.a \
 *     $(pkg-config --cflags --libs hdf5 yaml-0.1) -lm -o rot_bench
 *
 * Not part of the test suite. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "operators/pipeline.h"
#include "setup/setup.h"
#include "sim/neighbors.h"

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void report(const char *name, double *t, long calls, size_t n) {
  qsort(t, (size_t)calls, sizeof *t, compare);
  printf("%-28s best %7.2f ns/body  median %7.2f ns/body\n", name,
         t[0] * 1e9 / (double)n, t[calls / 2] * 1e9 / (double)n);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: rot_bench CONFIG CALLS [path.key=value ...]\n");
    return 2;
  }
  long calls = atol(argv[2]);
  struct dem_config *cfg = NULL;
  struct dem_sim sim = {0};
  struct dem_pipeline *p = NULL;
  struct dem_output_options out;
  omp_set_num_threads(1);
  int bad = dem_config_load(argv[1], &cfg) != DEM_OK;
  for (int i = 3; i < argc && !bad; i++)
    bad = dem_config_set(cfg, argv[i]) != DEM_OK;
  if (bad || dem_setup(cfg, &sim, &out) || dem_setup_pipeline(cfg, &sim, &p) ||
      dem_neighbors_build(&sim) || dem_pipeline_initial_forces(p, &sim)) {
    fprintf(stderr, "rot_bench: %s\n", dem_last_error());
    return 1;
  }
  dem_pipeline_start(p, &sim);
  double *t = malloc((size_t)calls * sizeof *t);
  double(*v)[3] = malloc(sim.b.n * sizeof *v);
  double(*w)[3] = malloc(sim.b.n * sizeof *w);
  if (!t || !v || !w)
    return 1;
  printf("%zu bodies, scheme %s\n", sim.b.n, p->scheme_name);
  for (size_t k = 0; k < p->n_ops; k++) {
    struct dem_op *op = &p->ops[k];
    if (strcmp(op->type->name, "push_rotation") != 0)
      continue;
    for (long c = 0; c < calls; c++) {
      double t0 = omp_get_wtime();
      op->type->run(op, &sim);
      t[c] = omp_get_wtime() - t0;
    }
    char name[64];
    snprintf(name, sizeof name, "push_rotation %s%s", op->rot->name,
             op->stage == DEM_STAGE_AFTER ? " (after)" : "");
    report(name, t, calls, sim.b.n);
  }
  for (long c = 0; c < calls; c++) {
    double t0 = omp_get_wtime();
    dem_pipeline_sync(p, &sim, v, w);
    t[c] = omp_get_wtime() - t0;
  }
  report("sync", t, calls, sim.b.n);
  free(t);
  free(v);
  free(w);
  dem_pipeline_free(p);
  dem_sim_release(&sim);
  dem_config_free(cfg);
  return 0;
}
