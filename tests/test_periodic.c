/* Periodic boundaries: neighbour lists against a brute-force search over
 * the images, momentum conserved over many crossings, and a pair
 * across the boundary that acts as the same pair inside the box. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/vec3.h"
#include "sim/grid.h"
#include "sim/periodic.h"
#include "sim_fixture.h"

/* Balls and dumbbells in a box of side L (periodic along `axes`). */
static char *mixed_yaml(double L, const char *axes, int count) {
  char *t = malloc(4096);
  snprintf(t, 4096,
           "simulation: {time_step: 1.0e-5, end_time: 1.0, seed: 4}\n"
           "materials: {glass: {density: 2500, young_modulus: 1.0e9, "
           "poisson_ratio: 0.1}}\n"
           "shapes:\n"
           "  ball: {material: glass, spheres: [{center: [0, 0, 0], radius: "
           "0.02}]}\n"
           "  bell: {material: glass, spheres: [{center: [-0.015, 0, 0], "
           "radius: 0.012}, {center: [0.015, 0, 0], radius: 0.018}]}\n"
           "particles: [{random_fill: {shape: ball, count: %d, speed: 1}}, "
           "{random_fill: {shape: bell, count: %d, speed: 1}}]\n"
           "domain: {box: {min: [-0.1, 0, 0.2], max: [%.17g, %.17g, "
           "%.17g]}, wall_material: glass, periodic: %s}\n"
           "contact: {skin: 0.004}\n",
           count, count, L - 0.1, L, 0.2 + L, axes);
  return t;
}

/* The smallest squared distance between x_i and the images of x_j
 * (positions within three periods of each other). */
static double image_dist2(const struct dem_walls *wl, const double *a,
                          const double *b) {
  double best = HUGE_VAL;
  for (int m = 0; m < 343; m++) {
    int off[3] = {m % 7 - 3, m / 7 % 7 - 3, m / 49 - 3}, skip = 0;
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
      skip |= off[k] != 0 && !(wl->periodic >> k & 1u);
      double L = wl->hi[k] - wl->lo[k];
      double d = a[k] - b[k] + off[k] * L;
      d2 += d * d;
    }
    if (!skip && d2 < best)
      best = d2;
  }
  return best;
}

/* Every pair of spheres of different bodies within reach of some image
 * is one contact, and nothing else is. */
static void check_lists(const struct dem_sim *sim) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_contact_list *c = &sim->pairs;
  size_t found = 0;
  for (size_t i = 0; i < s->n; i++)
    for (size_t j = 0; j < s->n; j++) {
      if (s->id[j] <= s->id[i] || s->body[i] == s->body[j])
        continue;
      double r = s->radius[i] + s->radius[j] + sim->nb.skin;
      if (!(image_dist2(&sim->walls, s->x[i], s->x[j]) < r * r))
        continue;
      found++;
      size_t hits = 0;
      for (size_t k = c->start[i]; k < c->start[i + 1]; k++)
        hits += c->key[k][1] == s->id[j];
      ck_assert_msg(hits == 1, "pair (%zu, %zu) listed %zu times", s->id[i],
                    s->id[j], hits);
    }
  ck_assert_uint_eq(found, c->n);
}

START_TEST(lists_match_brute_force_over_images) {
  /* Boxes of 2, 3 and many cells per period, periodic on all axes or
   * one; bodies moved up to a period out of the box (images far from
   * the box) and back in. */
  static const double sides[] = {0.105, 0.16, 0.23, 0.5};
  static const int counts[] = {1, 4, 10, 40};
  static const char *axes[] = {"[x, y, z]", "[y]", "[x, z]"};
  for (int a = 0; a < 3; a++) {
    size_t total = 0;
    for (int l = 0; l < 4; l++) {
      struct fixture f;
      char *yaml = mixed_yaml(sides[l], axes[a], counts[l]);
      fixture_start(&f, yaml, NULL);
      struct dem_sim *sim = &f.sim;
      size_t listed = 0;
      for (int round = 0; round < 6; round++) {
        struct dem_rng rng;
        dem_rng_seed(&rng, 17 + (uint64_t)round);
        for (size_t b = 0; b < sim->b.n; b++)
          for (int k = 0; k < 3; k++)
            if (sim->walls.periodic >> k & 1u)
              sim->b.x[b][k] += sides[l] * (2.0 * dem_rng_uniform(&rng) - 1.0);
        dem_sim_update_spheres(sim);
        if (round % 2)
          dem_periodic_wrap(sim);
        ck_assert_int_eq(dem_neighbors_build(sim), DEM_OK);
        check_lists(sim);
        listed += sim->pairs.n;
      }
      total += listed;
      fixture_end(&f);
      free(yaml);
    }
    ck_assert_msg(total > 50, "%s: only %zu pairs", axes[a], total);
  }
}
END_TEST

START_TEST(stencil_lists_each_cell_once) {
  /* 1 to 4 cells along each axis, periodic or not: around any cell, the
   * distinct cells within one step (wrapped on periodic axes), each
   * once: min(d, 3) per periodic axis, 2 or 3 within a bounded one. */
  struct dem_walls wl = {0};
  struct dem_grid g = {0};
  for (unsigned mask = 0; mask < 8; mask++)
    for (int m = 0; m < 64; m++) {
      wl.periodic = mask;
      g.dims[0] = (size_t)(m % 4) + 1;
      g.dims[1] = (size_t)(m / 4 % 4) + 1;
      g.dims[2] = (size_t)(m / 16) + 1;
      for (size_t c0 = 0; c0 < g.dims[0]; c0++) {
        size_t c[3] = {c0, g.dims[1] - 1, 0}, out[27];
        int n = dem_periodic_stencil(&wl, &g, c, out), want = 1;
        for (int k = 0; k < 3; k++) {
          long d = (long)g.dims[k], lo = (long)c[k] - 1, hi = (long)c[k] + 1;
          want *= (mask >> k & 1u)
                      ? (d < 3 ? (int)d : 3)
                      : (int)((hi < d ? hi : d - 1) - (lo > 0 ? lo : 0) + 1);
        }
        ck_assert_int_eq(n, want);
        for (int a = 1; a < n; a++)
          ck_assert_uint_lt(out[a - 1], out[a]);
      }
    }
}
END_TEST

static const char *rods_yaml =
    "simulation: {time_step: 3.8e-5, end_time: 1.0, seed: 3}\n"
    "materials: {glass: {density: 2500, young_modulus: 1.0e9, "
    "poisson_ratio: 0.1, restitution: 0.7, friction: 0.4, "
    "rolling_friction: 0.05}}\n"
    "shapes: {rod: {material: glass, spheres: [{center: [-0.07, 0, 0], "
    "radius: 0.035}, {center: [0, 0, 0], radius: 0.035}, {center: [0.07, "
    "0, 0], radius: 0.035}]}}\n"
    "particles: [{random_fill: {shape: rod, count: 40, speed: 2.0, "
    "angular_speed: 3.0}}]\n"
    "domain: {box: {min: [0, 0, 0], max: [0.6, 0.6, 0.6]}, wall_material: "
    "glass, periodic: [x, y, z]}\n"
    "contact: {skin: 0.005}\n";

static void total_momentum(const struct dem_sim *sim, double p[3],
                           double *scale) {
  p[0] = p[1] = p[2] = 0;
  *scale = 0;
  for (size_t id = 0; id < sim->b.n; id++) {
    size_t i = sim->b.index_of[id];
    v3_axpy(p, sim->b.mass[i], sim->b.v[i]);
    *scale += sim->b.mass[i] * sqrt(v3_dot(sim->b.v[i], sim->b.v[i]));
  }
}

/* Pair contacts touching now whose spheres lie on both sides of a
 * boundary (farther apart than their reach without the images). */
static size_t straddling_contacts(const struct dem_sim *sim) {
  const struct dem_contact_list *c = &sim->pairs;
  size_t n = 0;
  for (size_t k = 0; k < c->n; k++) {
    double d[3];
    v3_sub(d, sim->s.x[c->ij[k][0]], sim->s.x[c->ij[k][1]]);
    n += v3_dot(c->force[k], c->force[k]) > 0 &&
         v3_dot(d, d) > c->rsum[k] * c->rsum[k];
  }
  return n;
}

static void check_momentum(const char *model) {
  struct fixture f;
  char set[64];
  snprintf(set, sizeof set, "contact.model=%s", model);
  const char *sets[] = {set, NULL};
  fixture_start(&f, rods_yaml, sets);
  struct dem_sim *sim = &f.sim;
  double p0[3], p[3], scale;
  total_momentum(sim, p0, &scale);
  size_t across = 0;
  for (int chunk = 0; chunk < 80; chunk++) {
    fixture_steps(&f, 100);
    across += straddling_contacts(sim);
    total_momentum(sim, p, &scale);
    for (int k = 0; k < 3; k++)
      ck_assert_msg(fabs(p[k] - p0[k]) <= 1e-13 * scale,
                    "%s, step %ld: momentum %c %.17g, at the start %.17g",
                    model, sim->step, "xyz"[k], p[k], p0[k]);
  }
  long crossings = 0;
  for (size_t i = 0; i < sim->b.n; i++)
    for (int k = 0; k < 3; k++)
      crossings += labs((long)sim->b.image[i][k]);
  ck_assert_msg(crossings >= 20, "%s: only %ld crossings", model, crossings);
  ck_assert_msg(across >= 3, "%s: only %zu contacts seen across a boundary",
                model, across);
  fixture_end(&f);
}

START_TEST(momentum_is_conserved_over_many_crossings) {
  check_momentum("hertz");
  check_momentum("hertz_mindlin");
}
END_TEST

/* Two rods touching (one along x, one along y), moving and spinning, in
 * a box periodic along x: in the middle of the box, or shifted by half a
 * period so that their contact is on the boundary (the second rod's
 * centre wrapped to the other side). */
static char *pair_yaml(double xa, double xb) {
  char *t = malloc(4096);
  snprintf(t, 4096,
           "simulation: {time_step: 1.0e-5, end_time: 1.0, seed: 1}\n"
           "materials: {glass: {density: 2500, young_modulus: 1.0e8, "
           "poisson_ratio: 0.2, restitution: 0.6, friction: 0.5, "
           "rolling_friction: 0.1}}\n"
           "shapes: {rod: {material: glass, spheres: [{center: [-0.07, 0, "
           "0], radius: 0.035}, {center: [0, 0, 0], radius: 0.035}, "
           "{center: [0.07, 0, 0], radius: 0.035}]}}\n"
           "particles:\n"
           "  - body: {shape: rod, position: [%.17g, 0.5, 0.5], velocity: "
           "[0.3, 0.1, 0], angular_velocity: [1, 2, 3]}\n"
           "  - body: {shape: rod, position: [%.17g, 0.51, 0.505], "
           "orientation: [0.7071067811865476, 0, 0, 0.7071067811865476], "
           "velocity: [-0.2, 0, 0.1], angular_velocity: [-2, 1, 0.5]}\n"
           "domain: {box: {min: [0, 0, 0], max: [1, 1, 1]}, wall_material: "
           "glass, periodic: [x]}\n"
           "contact: {model: hertz_mindlin, skin: 0.004}\n",
           xa, xb);
  return t;
}

/* Runs the pair inside the box and shifted by `shift` along x (its
 * centres at xa, xb, in the box); returns the second run's wraps of the
 * first rod. */
static int compare_pair(double xa, double xb, double shift) {
  /* Not bitwise: the positions differ by the rounding of the shift, and
   * the frictional contact amplifies it (the same pair shifted by 0.2 m
   * inside the box: 4.8e-8 N of 25 N at step 560; across: 3.2e-8 N). */
  char *in = pair_yaml(xa - shift, xb - shift + (xb < xa ? 1.0 : 0.0));
  char *across = pair_yaml(xa, xb);
  struct fixture a, b;
  fixture_start(&a, in, NULL);
  fixture_start(&b, across, NULL);
  int touched = 0;
  for (int round = 0; round < 300; round++) {
    for (size_t i = 0; i < 2; i++) {
      const struct dem_bodies *p = &a.sim.b, *q = &b.sim.b;
      size_t ia = p->index_of[i], ib = q->index_of[i];
      double fa = sqrt(v3_dot(p->force[ia], p->force[ia]));
      double ta = sqrt(v3_dot(p->torque[ia], p->torque[ia]));
      touched += fa > 1.0 && ta > 0.01;
      for (int k = 0; k < 3; k++) {
        ck_assert_msg(fabs(p->force[ia][k] - q->force[ib][k]) <= 1e-6 * fa,
                      "x %g: step %ld body %zu force %c: inside %.17g, "
                      "across %.17g",
                      xa, a.sim.step, i, "xyz"[k], p -> force[ia][k],
                      q -> force[ib][k]);
        ck_assert_msg(fabs(p->torque[ia][k] - q->torque[ib][k]) <= 1e-6 * ta,
                      "x %g: step %ld body %zu torque %c: inside %.17g, "
                      "across %.17g",
                      xa, a.sim.step, i, "xyz"[k], p -> torque[ia][k],
                      q -> torque[ib][k]);
      }
    }
    fixture_steps(&a, 10);
    fixture_steps(&b, 10);
  }
  ck_assert_msg(touched > 4, "the rods touched in only %d rounds", touched);
  int image = b.sim.b.image[b.sim.b.index_of[0]][0];
  fixture_end(&a);
  fixture_end(&b);
  free(in), free(across);
  return image;
}

START_TEST(pair_across_the_boundary_acts_as_inside) {
  /* The first rod's front sphere beyond the boundary all through the
   * contact (the partner's material point is then an image: torque
   * arms and velocities must take the period off), and its centre
   * crossing the boundary (a wrap) while they touch. */
  compare_pair(0.95, 0.092, 0.55);
  ck_assert_int_eq(compare_pair(0.9995, 0.1415, 0.5995), 1);
}
END_TEST

static Suite *periodic_suite(void) {
  Suite *s = suite_create("periodic");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, stencil_lists_each_cell_once);
  tcase_add_test(tc, lists_match_brute_force_over_images);
  tcase_add_test(tc, momentum_is_conserved_over_many_crossings);
  tcase_add_test(tc, pair_across_the_boundary_acts_as_inside);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(periodic_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
