/* Test helper: the YAML of lumpy pieces of 100 overlapping spheres (the
 * chess workload) in a box, for the neighbour and near-path tests. */
#ifndef DEM_TEST_PIECES_YAML_H
#define DEM_TEST_PIECES_YAML_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/rng.h"

/* Lumpy pieces of 100 overlapping spheres, 5 cm long (the chess
 * workload), at `speed` m/s in random directions. */
static inline char *pieces_yaml(int pieces, double box, double speed) {
  size_t cap = 1 << 16;
  char *t = malloc(cap);
  int len = snprintf(t, cap,
                     "simulation: {time_step: 2.0e-6, end_time: 1.0, seed: "
                     "3}\n"
                     "materials: {stone: {density: 3200, young_modulus: "
                     "6.0e10, poisson_ratio: 0.25}}\n"
                     "shapes:\n  lump: {material: stone, spheres: [");
  struct dem_rng rng;
  dem_rng_seed(&rng, 99);
  for (int k = 0; k < 100; k++) {
    double z = 0.05 * k / 99.0, a = 0.01 * dem_rng_uniform(&rng),
           phi = 6.283185307179586 * dem_rng_uniform(&rng);
    double r = 0.004 + 0.008 * dem_rng_uniform(&rng);
    len += snprintf(t + len, cap - (size_t)len,
                    "%s{center: [%.6f, %.6f, %.6f], radius: %.6f}",
                    k ? ", " : "", a * cos(phi), a * sin(phi), z, r);
  }
  snprintf(t + len, cap - (size_t)len,
           "]}\n"
           "particles: [{random_fill: {shape: lump, count: %d, speed: %g, "
           "angular_speed: 3.14}}]\n"
           "domain: {box: {min: [0, 0, 0], max: [%g, %g, %g]}, "
           "wall_material: stone}\n"
           "contact: {skin: 0.002}\n",
           pieces, speed, box, box, box);
  return t;
}

#endif
