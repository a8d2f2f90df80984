/* A body-frame prescribed load on a body whose quaternion is not unit
 * (normalised every few steps, or never) is rotated by the orientation
 * q/|q|, through the whole pipeline. */
/* The reference is the bare integrator driven by hand (rotation_drive)
 * with the body-frame torque rotated by the unit quaternion, computed
 * here: what the engine must do whatever the normalisation. */
#include <math.h>

#include "core/quat.h"
#include "integrators/cylinder_analytic.h"
#include "integrators/rotation_drive.h"
#include "sim_fixture.h"

/* The SPIRAL paper's cylinder: torque (0.5, 0, 0) N m in the body frame,
 * w0 = (0.3, -0.9, 0.6) rad/s (body), q0 = 1, dt = 1e-3, 1 s. The scheme
 * is set by the test. */
/* clang-format off */
#define CYLINDER_YAML                                                          \
  "simulation: {time_step: 1.0e-3, end_time: 1.0}\n"                          \
  "materials: {steel: {density: 7750, young_modulus: 2.0e11, "                 \
  "poisson_ratio: 0.3}}\n"                                                     \
  "shapes:\n"                                                                  \
  "  cylinder: {material: steel, spheres: [{center: [0, 0, 0], radius: "       \
  "0.05}], mass: 9.13, inertia: [0.0114, 0.0228, 0.0228]}\n"                   \
  "particles:\n"                                                               \
  "  - body: {shape: cylinder, position: [0, 0, 0], angular_velocity: "        \
  "[0.3, -0.9, 0.6], angular_velocity_frame: body}\n"
/* clang-format on */
#define BODY_LOAD "prescribed_load: {torque: [0.5, 0, 0], frame: body}"

/* The load from the config's `loads` (placed after the scheme's last
 * force operator), or, for a scheme that lists it itself, none there. */
static const char *cylinder_yaml = CYLINDER_YAML "loads: [{" BODY_LOAD "}]\n";
static const char *cylinder_bare_yaml = CYLINDER_YAML;

/* The body-frame torque rotated to the lab by the orientation q/|q|. */
static void unit_q_torque(void *ctx, double t, const double q[4],
                          const double w[3], double out[3]) {
  (void)ctx;
  (void)t;
  (void)w;
  double u[4];
  q_copy(u, q);
  q_normalize(u);
  q_rotate(out, u, dem_cylinder_torque);
}

struct load_case {
  const char *integrator;
  long normalise_every; /* 0: never */
  int two_stage;        /* a second push_rotation after the forces */
  int between;          /* the load listed between the reset and the gather,
                           where the reset must not write the weights */
};

/* Never normalised, pfc4 and direct_euler lengthen q by dt^2 |w|^2/8 per
 * step (|q| - 1 reaches 8e-2 at 1 s); velocity Verlet's second stage
 * takes the load at the new, not yet normalised q. */
static const struct load_case cases[] = {{"pfc4", 0, 0, 0},
                                         {"pfc4", 3, 0, 0},
                                         {"direct_euler", 0, 0, 0},
                                         {"velocity_verlet", 0, 1, 0},
                                         {"velocity_verlet", 2, 1, 0},
                                         {"pfc4", 0, 0, 1}};

START_TEST(body_load_rotated_by_unit_quaternion) {
  const struct load_case *c = &cases[_i];
  char scheme[600];
  snprintf(scheme, sizeof scheme,
           "scheme={velocities: whole_step, operators: [push_velocity: "
           "{dt_scale: 0.5}, push_position: {dt_scale: 1.0}, push_rotation: "
           "{integrator: %s, normalise_every: %ld}, update_spheres, "
           "reset_forces, %sneighbor_update, hertz_contacts, gather_forces, "
           "push_velocity: {dt_scale: 0.5}%s%s%s]}",
           c->integrator, c->normalise_every, c->between ? BODY_LOAD ", " : "",
           c->two_stage ? ", push_rotation: {integrator: " : "",
           c->two_stage ? c->integrator : "",
           c->two_stage ? ", stage: after_force}" : "");
  const char *sets[] = {scheme, NULL};
  struct fixture f;
  fixture_start(&f, c->between ? cylinder_bare_yaml : cylinder_yaml, sets);
  fixture_steps(&f, f.sim.n_steps);
  ck_assert_int_eq(f.sim.n_steps, 1000);

  const struct dem_rotation_integrator *r = dem_rotation_find(c->integrator);
  ck_assert_ptr_nonnull(r);
  struct dem_rot_drive d = {.scheme = r,
                            .dt = 1e-3,
                            .torque = unit_q_torque,
                            .normalise_every = (int)c->normalise_every,
                            .use_step_fn = 1};
  struct dem_rot_state s = {{1, 0, 0, 0}, {0.3, -0.9, 0.6}, {0}};
  double w[3];
  memcpy(d.inertia, dem_cylinder_inertia, sizeof d.inertia);
  dem_rot_drive_run(&d, &s, 0.0, 1000, w);

  double eq = dem_rel_l1(f.sim.b.q[0], s.q, 4);
  double ew = dem_rel_l1(f.sim.b.w[0], s.w, 3);
  printf("%s, normalise_every %ld: |q| = %.6f; pipeline vs unit-q "
         "reference: q %.2g, w %.2g\n",
         c->integrator, c->normalise_every, q_norm(f.sim.b.q[0]), eq, ew);
  ck_assert_msg(eq < 1e-12 && ew < 1e-12,
                "%s, normalise_every %ld: the pipeline differs from the "
                "integrator with the load rotated by q/|q| (q %.3g, w %.3g)",
                c->integrator, c->normalise_every, eq, ew);
  fixture_end(&f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("prescribed_load");
  TCase *tc = tcase_create("body_frame");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, body_load_rotated_by_unit_quaternion, 0,
                      (int)(sizeof cases / sizeof cases[0]));
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed != 0;
}
