/* Tests of the scheme rules: every named scheme passes them, and schemes
 * that cannot be consistent are refused with the offending operator. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "operators/schemes_data.h"
#include "sim_fixture.h"

/* One sphere in a box: walls give the contacts something to do. */
static const char *const base =
    "simulation: {time_step: 1e-5, end_time: 1e-3}\n"
    "materials: {m: {density: 2500, young_modulus: 1e9, poisson_ratio: "
    "0.1}}\n"
    "shapes: {s: {material: m, spheres: [{center: [0,0,0], radius: 0.05}]}}\n"
    "particles: [{body: {shape: s, position: [0.5,0.5,0.5], velocity: "
    "[1,0,0]}}]\n"
    "domain: {box: {min: [0,0,0], max: [1,1,1]}, wall_material: m}\n";

/* The end of a scheme: the force stage. */
#define FORCES "update_spheres, reset_forces, neighbor_update, contact_forces, "
#define GATHER "gather_forces"

START_TEST(named_schemes_pass_and_agree) {
  char yaml[2048], set[128];
  int n = 0;
  for (size_t i = 0; dem_embedded_schemes[i].name; i++, n++) {
    struct fixture f;
    const char *sets[] = {set, NULL};
    snprintf(yaml, sizeof yaml, "%s", base);
    snprintf(set, sizeof set, "scheme=%s", dem_embedded_schemes[i].name);
    fixture_start(&f, yaml, sets);
    /* The kicks decide where velocities live; the rotation agrees. */
    ck_assert_ptr_nonnull(f.pipeline->rotation);
    ck_assert_int_eq(f.pipeline->half_step,
                     f.pipeline->rotation->rot->leapfrog);
    fixture_end(&f);
  }
  ck_assert_int_ge(n, 12);
}
END_TEST

/* A translation-only scheme takes its velocity layout from its kicks: the
 * leapfrog kick starts half a step back. */
START_TEST(layout_from_the_kicks) {
  char yaml[2048];
  struct fixture f;
  snprintf(yaml, sizeof yaml,
           "%sscheme: [push_velocity, push_position, " FORCES GATHER "]\n",
           base);
  fixture_start(&f, yaml, NULL);
  ck_assert_int_eq(f.pipeline->half_step, 1);
  fixture_end(&f);
  snprintf(
      yaml, sizeof yaml,
      "%sscheme: [push_velocity: {dt_scale: 0.5}, push_position, " FORCES GATHER
      ", push_velocity: {dt_scale: 0.5}]\n",
      base);
  fixture_start(&f, yaml, NULL);
  ck_assert_int_eq(f.pipeline->half_step, 0);
  fixture_end(&f);
  /* Kicks may be split, in any sizes that add up. */
  snprintf(
      yaml, sizeof yaml,
      "%sscheme: [push_velocity: {dt_scale: 0.25}, push_velocity: "
      "{dt_scale: 0.25}, push_position: {dt_scale: 0.7}, push_position: "
      "{dt_scale: 0.3}, push_rotation: {integrator: spiral}, " FORCES GATHER
      ", push_velocity: {dt_scale: 0.5}]\n",
      base);
  fixture_start(&f, yaml, NULL);
  ck_assert_int_eq(f.pipeline->half_step, 0);
  fixture_end(&f);
}
END_TEST

START_TEST(inconsistent_schemes_are_refused) {
  struct {
    const char *scheme, *expect;
  } cases[] = {
      /* the three */
      {"[push_velocity, push_position: {dt_scale: 0.5}, push_rotation: "
       "{integrator: spiral_leapfrog}, " FORCES GATHER "]",
       "test.yaml:6:25: the drifts (push_position) of a step add up to "
       "dt_scale 0.5: they must add up to 1"},
      {"[push_velocity, push_position, push_rotation: {integrator: "
       "spiral}, " FORCES GATHER "]",
       "test.yaml:6:40: integrator 'spiral' keeps angular velocities at "
       "whole steps, but the kicks keep velocities half a step behind"},
      {"[push_position, push_rotation: {integrator: spiral_leapfrog}, " FORCES
           GATHER "]",
       "test.yaml:6:9: the scheme has no push_velocity"},
      /* and their relatives */
      {"[push_velocity: {dt_scale: 0.5}, push_position, push_rotation: "
       "{integrator: omelyan}, " FORCES GATHER
       ", push_velocity: {dt_scale: 0.5}]",
       "integrator 'omelyan' keeps angular velocities half a step behind"},
      {"[push_velocity: {dt_scale: 0.5}, push_position, " FORCES GATHER
       ", push_velocity: {dt_scale: 0.25}]",
       "test.yaml:6:10: the kicks (push_velocity) of a step add up to "
       "dt_scale 0.5 + 0.25 = 0.75"},
      {"[push_velocity, " FORCES GATHER "]", "has no push_position"},
      {"[push_velocity, push_position: {dt_scale: 0.5}, push_position: "
       "{dt_scale: 0.25}, " FORCES GATHER "]",
       "dt_scale 0.5 + 0.25 = 0.75"},
      {"[push_velocity: {dt_scale: 0.25}, push_position, " FORCES GATHER
       ", push_velocity: {dt_scale: 0.75}]",
       "the kicks after the forces add up to dt_scale 0.75"},
      {"[push_position, push_velocity, " FORCES GATHER "]",
       "comes after a drift (push_position) and before the forces"},
      {"[push_position, update_spheres, reset_forces, push_velocity, "
       "neighbor_update, contact_forces, " GATHER "]",
       "comes between 'reset_forces' and the last force operator"},
      {"[push_velocity, push_position, push_rotation: {integrator: "
       "spiral_leapfrog, dt_scale: 0.5}, " FORCES GATHER "]",
       "push_rotation has dt_scale 0.5"},
      {"[push_velocity, push_position]", "the scheme computes no forces"},
      {"{velocities: whole_step, operators: [push_velocity, "
       "push_position, " FORCES GATHER "]}",
       "the scheme's kicks keep velocities at half steps"},
  };
  char yaml[4096];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(yaml, sizeof yaml, "%sscheme: %s\n", base, cases[i].scheme);
    const char *msg = fixture_fail(yaml);
    ck_assert_msg(strstr(msg, cases[i].expect) && strstr(msg, "test.yaml:6:"),
                  "case %zu: message '%s' lacks '%s'", i, msg, cases[i].expect);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("scheme_rules");
  TCase *tc = tcase_create("rules");
  tcase_add_test(tc, named_schemes_pass_and_agree);
  tcase_add_test(tc, layout_from_the_kicks);
  tcase_add_test(tc, inconsistent_schemes_are_refused);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
