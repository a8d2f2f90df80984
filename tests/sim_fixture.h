/* Test fixture: a simulation built from YAML text and stepped in process. */
#ifndef DEM_TEST_SIM_FIXTURE_H
#define DEM_TEST_SIM_FIXTURE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "operators/pipeline.h"
#include "setup/setup.h"
#include "sim/neighbors.h"

struct fixture {
  struct dem_config *cfg;
  struct dem_sim sim;
  struct dem_pipeline *pipeline;
  struct dem_output_options out;
};

/* Glass rods of three spheres and steel dumbbells of two (three radii,
 * two densities): a config's materials and shapes, for the tests that
 * mix them. */
#define FIXTURE_RODS_AND_DUMBBELLS                                             \
  "materials: {glass: {density: 2500, young_modulus: 1.0e9, "                  \
  "poisson_ratio: 0.1}, steel: {density: 7800, young_modulus: 2.0e11, "        \
  "poisson_ratio: 0.3}}\n"                                                     \
  "shapes:\n"                                                                  \
  "  rod: {material: glass, spheres: [{center: [-0.07, 0, 0], radius: "        \
  "0.035}, {center: [0, 0, 0], radius: 0.035}, {center: [0.07, 0, 0], "        \
  "radius: 0.035}]}\n"                                                         \
  "  dumbbell: {material: steel, spheres: [{center: [-0.03, 0, 0], radius: "   \
  "0.02}, {center: [0.03, 0, 0], radius: 0.03}]}\n"

/* Loads yaml, applies the --set overrides, sets up, computes initial
 * forces and starts the scheme, as dem run does. */
static inline void fixture_start(struct fixture *f, const char *yaml,
                                 const char *const *sets) {
  memset(f, 0, sizeof *f);
  dem_error_clear();
  dem_status st = dem_config_load_string("test.yaml", yaml, &f->cfg);
  for (size_t i = 0; !st && sets && sets[i]; i++)
    st = dem_config_set(f->cfg, sets[i]);
  if (!st)
    st = dem_setup(f->cfg, &f->sim, &f->out);
  if (!st)
    st = dem_setup_pipeline(f->cfg, &f->sim, &f->pipeline);
  if (!st)
    st = dem_neighbors_build(&f->sim);
  if (!st)
    st = dem_pipeline_initial_forces(f->pipeline, &f->sim);
  ck_assert_msg(st == DEM_OK, "setup failed: %s", dem_last_error());
  dem_pipeline_start(f->pipeline, &f->sim);
}

static inline void fixture_steps(struct fixture *f, long n) {
  for (long i = 0; i < n; i++)
    ck_assert_int_eq(dem_pipeline_step(f->pipeline, &f->sim), DEM_OK);
}

static inline void fixture_end(struct fixture *f) {
  dem_pipeline_free(f->pipeline);
  f->pipeline = NULL;
  dem_sim_release(&f->sim);
  dem_config_free(f->cfg);
}

/* Setup that must fail; returns the message. */
static inline const char *fixture_fail(const char *yaml) {
  struct dem_config *cfg = NULL;
  struct dem_sim sim = {0};
  struct dem_pipeline *p = NULL;
  struct dem_output_options out;
  dem_error_clear();
  dem_status st = dem_config_load_string("test.yaml", yaml, &cfg);
  if (!st)
    st = dem_setup(cfg, &sim, &out);
  if (!st)
    st = dem_setup_pipeline(cfg, &sim, &p);
  ck_assert_msg(st != DEM_OK, "setup should have failed");
  dem_pipeline_free(p);
  dem_sim_release(&sim);
  dem_config_free(cfg);
  return dem_last_error();
}

#endif
