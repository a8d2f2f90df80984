/* Gravity against closed forms: free fall, a bounce on the floor, a sphere
 * on the floor sinking to the overlap where its weight has done the Hertz
 * energy. */
/* Positions, velocities and energies are read back from the output file as
 * DESIGN.md lays it out (/snapshots, /energy), so the energy series is tested
 * as users see it; the expected values are computed here from the inputs. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "dem/dem.h"
#include "scheme_names.h"
#include "sim_fixture.h"

static const double pi = 3.14159265358979323846;

static char tmpdir[256];

static void setup(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/dem_gravity_XXXXXX",
           base && base[0] ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/* The tests write only files they name (CONFIG.yaml, OUT.h5, OUT.xmf). */
static void remove_file(const char *name) {
  char path[sizeof tmpdir + 320];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  unlink(path);
}

static void teardown(void) { rmdir(tmpdir); }

/* Writes yaml to tmpdir/NAME.yaml and runs it to tmpdir/NAME.h5 with the
 * given --set overrides (NULL-terminated), as `dem run -q --force`. */
static void run_yaml(const char *name, const char *yaml,
                     const char *const *sets, char *h5, size_t h5_size) {
  char cfg[512];
  size_t n_sets = 0;
  snprintf(cfg, sizeof cfg, "%s/%s.yaml", tmpdir, name);
  snprintf(h5, h5_size, "%s/%s.h5", tmpdir, name);
  FILE *f = fopen(cfg, "w");
  ck_assert_ptr_nonnull(f);
  fputs(yaml, f);
  ck_assert_int_eq(fclose(f), 0);
  while (sets && sets[n_sets])
    n_sets++;
  struct dem_run_options opt = {.config_path = cfg,
                                .output = h5,
                                .sets = sets,
                                .n_sets = n_sets,
                                .force = 1,
                                .quiet = 1};
  dem_status st = dem_run(&opt);
  ck_assert_msg(st == DEM_OK, "%s: dem run failed: %s", name, dem_last_error());
}

static void remove_run(const char *name) {
  char file[300];
  snprintf(file, sizeof file, "%s.yaml", name);
  remove_file(file);
  snprintf(file, sizeof file, "%s.h5", name);
  remove_file(file);
  snprintf(file, sizeof file, "%s.xmf", name);
  remove_file(file);
}

/* A whole dataset of doubles; *n elements. */
static double *read_doubles(hid_t file, const char *name, size_t *n) {
  hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
  ck_assert_msg(ds >= 0, "no dataset %s", name);
  hid_t space = H5Dget_space(ds);
  hssize_t count = H5Sget_simple_extent_npoints(space);
  ck_assert_int_ge(count, 1);
  double *v = malloc((size_t)count * sizeof *v);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_ge(
      H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
  H5Sclose(space);
  H5Dclose(ds);
  *n = (size_t)count;
  return v;
}

/* The energy series, one column per name of DESIGN.md. */
struct energy {
  size_t n;
  double *time, *kt, *kr, *el, *grav, *total;
};

static void read_energy(const char *path, struct energy *e) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "cannot open %s", path);
  size_t n[6];
  e->time = read_doubles(f, "/energy/time", &n[0]);
  e->kt = read_doubles(f, "/energy/kinetic_translational", &n[1]);
  e->kr = read_doubles(f, "/energy/kinetic_rotational", &n[2]);
  e->el = read_doubles(f, "/energy/elastic", &n[3]);
  e->grav = read_doubles(f, "/energy/gravity", &n[4]);
  e->total = read_doubles(f, "/energy/total", &n[5]);
  for (int k = 1; k < 6; k++)
    ck_assert_uint_eq(n[k], n[0]);
  e->n = n[0];
  H5Fclose(f);
}

static void free_energy(struct energy *e) {
  free(e->time);
  free(e->kt);
  free(e->kr);
  free(e->el);
  free(e->grav);
  free(e->total);
}

/* Body 0 of every snapshot: time, position, velocity (at the snapshot's
 * time, synchronised). Returns the number of snapshots. */
struct body_track {
  size_t n;
  double t[64], x[64][3], v[64][3];
};

static void read_track(const char *path, struct body_track *b) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "cannot open %s", path);
  b->n = 0;
  for (;;) {
    char group[64], name[96];
    snprintf(group, sizeof group, "/snapshots/%06zu", b->n);
    if (H5Lexists(f, group, H5P_DEFAULT) <= 0)
      break;
    ck_assert_uint_lt(b->n, 64);
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    hid_t a = H5Aopen(g, "time", H5P_DEFAULT);
    ck_assert_int_ge(H5Aread(a, H5T_NATIVE_DOUBLE, &b->t[b->n]), 0);
    H5Aclose(a);
    H5Gclose(g);
    size_t n;
    snprintf(name, sizeof name, "%s/bodies/position", group);
    double *x = read_doubles(f, name, &n);
    snprintf(name, sizeof name, "%s/bodies/velocity", group);
    double *v = read_doubles(f, name, &n);
    memcpy(b->x[b->n], x, sizeof b->x[0]);
    memcpy(b->v[b->n], v, sizeof b->v[0]);
    free(x);
    free(v);
    b->n++;
  }
  H5Fclose(f);
}

/* The textbook effective modulus, 1/E* = (1-nu1^2)/E1 + (1-nu2^2)/E2. */
static double estar_of(double e1, double nu1, double e2, double nu2) {
  return 1.0 / ((1.0 - nu1 * nu1) / e1 + (1.0 - nu2 * nu2) / e2);
}

static double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---- free fall ---- */

/* One sphere, no walls, gravity with three components. */
static const char *fall_yaml =
    "simulation: {time_step: 1.0e-3, end_time: 1.0, gravity: [0.4, -0.3, "
    "-9.81]}\n"
    "materials: {glass: {density: 2500, young_modulus: 1.0e9, "
    "poisson_ratio: 0.2}}\n"
    "shapes: {ball: {material: glass, spheres: [{center: [0, 0, 0], "
    "radius: 0.01}]}}\n"
    "particles:\n"
    "  - body: {shape: ball, position: [0.1, 0.2, 0.3], velocity: [0.5, "
    "-0.2, 2.0]}\n"
    "output: {snapshot_interval: 0.1, energy_interval: 0.01}\n";

/* x(t) = x0 + v0 t + g t^2/2 and v(t) = v0 + g t, which leapfrog and
 * velocity Verlet reproduce to round-off under a constant force; the energy
 * series holds -m g.x(t) in its gravity column and a constant total. */
START_TEST(free_fall) {
  const double g[3] = {0.4, -0.3, -9.81}, x0[3] = {0.1, 0.2, 0.3},
               v0[3] = {0.5, -0.2, 2.0};
  const double m = 4.0 / 3.0 * pi * 1e-6 * 2500;
  const char *name = scheme_names[_i]; /* every one must fall alike */
  char set[80], h5[512];
  snprintf(set, sizeof set, "scheme=%s", name);
  const char *sets[] = {set, NULL};
  run_yaml("fall", fall_yaml, sets, h5, sizeof h5);

  struct body_track b;
  read_track(h5, &b);
  ck_assert_uint_eq(b.n, 11);
  double worst_x = 0, worst_v = 0, worst_e = 0;
  for (size_t k = 0; k < b.n; k++) {
    double t = b.t[k];
    ck_assert_double_eq_tol(t, 0.1 * (double)k, 1e-12);
    for (int i = 0; i < 3; i++) {
      double x = x0[i] + v0[i] * t + 0.5 * g[i] * t * t, v = v0[i] + g[i] * t;
      worst_x = fmax(worst_x, fabs(b.x[k][i] - x));
      worst_v = fmax(worst_v, fabs(b.v[k][i] - v));
      ck_assert_msg(fabs(b.x[k][i] - x) < 1e-11,
                    "%s: x[%d](%g) = %.15g, free fall %.15g", name, i, t,
                    b.x[k][i], x);
      ck_assert_msg(fabs(b.v[k][i] - v) < 1e-11,
                    "%s: v[%d](%g) = %.15g, free fall %.15g", name, i, t,
                    b.v[k][i], v);
    }
  }

  struct energy e;
  read_energy(h5, &e);
  ck_assert_uint_eq(e.n, 101);
  const double e0 = 0.5 * m * dot3(v0, v0) - m * dot3(g, x0);
  const double scale = m * (dot3(g, g) + dot3(v0, v0)); /* ~ any term */
  for (size_t k = 0; k < e.n; k++) {
    double t = e.time[k], x[3], v[3];
    for (int i = 0; i < 3; i++) {
      x[i] = x0[i] + v0[i] * t + 0.5 * g[i] * t * t;
      v[i] = v0[i] + g[i] * t;
    }
    worst_e = fmax(worst_e, fabs(e.grav[k] - (-m * dot3(g, x))) / scale);
    worst_e = fmax(worst_e, fabs(e.kt[k] - 0.5 * m * dot3(v, v)) / scale);
    worst_e = fmax(worst_e, fabs(e.total[k] - e0) / scale);
    ck_assert_msg(fabs(e.grav[k] - (-m * dot3(g, x))) < 1e-12 * scale,
                  "%s: gravity energy at t = %g is %.12g, -m g.x = %.12g", name,
                  t, e.grav[k], -m * dot3(g, x));
    ck_assert_msg(fabs(e.kt[k] - 0.5 * m * dot3(v, v)) < 1e-12 * scale,
                  "%s: kinetic energy at t = %g is %.12g, m v^2/2 = %.12g",
                  name, t, e.kt[k], 0.5 * m * dot3(v, v));
    ck_assert_double_eq_tol(e.kr[k], 0.0, 1e-300);
    ck_assert_double_eq_tol(e.el[k], 0.0, 1e-300);
    ck_assert_msg(fabs(e.total[k] - e0) < 1e-12 * scale,
                  "%s: total energy at t = %g is %.12g, E0 = %.12g", name, t,
                  e.total[k], e0);
  }
  printf("free fall, %s: |x - x(t)| <= %.1e m, |v - v(t)| <= %.1e m/s, "
         "energies within %.1e of m (g^2 + v0^2)\n",
         name, worst_x, worst_v, worst_e);
  free_energy(&e);
  remove_run("fall");
}
END_TEST

/* ---- a bounce on the floor ---- */

/* A steel-like ball dropped from rest onto a softer floor of another
 * material; Hertz contacts are conservative, so it comes back up. */
static const char *bounce_yaml =
    "simulation: {time_step: 2.5e-6, end_time: 0.25, gravity: [0, 0, "
    "-9.81]}\n"
    "materials:\n"
    "  ball_m: {density: 7800, young_modulus: 2.0e9, poisson_ratio: 0.1}\n"
    "  floor_m: {density: 1000, young_modulus: 1.0e9, poisson_ratio: 0.45}\n"
    "shapes: {ball: {material: ball_m, spheres: [{center: [0, 0, 0], "
    "radius: 0.01}]}}\n"
    "particles: [{body: {shape: ball, position: [0.05, 0.05, 0.05]}}]\n"
    "domain: {box: {min: [0, 0, 0], max: [0.1, 0.1, 0.2]}, wall_material: "
    "floor_m}\n"
    "output: {snapshot_interval: 0.01, energy_interval: 1.0e-4}\n";

/* Falls 4 cm, touches the floor for the Hertz contact time t_c (sphere
 * against wall: m* = m, R* = R) and leaves at the speed it hit with:
 * z(t) = R + v tau - g tau^2/2 with tau = t - t_fall - t_c. The apex
 * z + v_z^2/(2 g) seen from any snapshot in flight is the drop height, and
 * the total energy stays E0 up to leapfrog's error over one contact, which
 * depends on where in a step the contact begins and is at most about
 * (dt/t_c)^2.5 = 2e-6 of the impact energy here (t_c/dt = 210; see
 * docs/validation.md, the rods in a box); measured 4.3e-7. */
START_TEST(bounce_keeps_energy_and_apex) {
  const double R = 0.01, g = 9.81, z0 = 0.05, h = z0 - R;
  const double m = 4.0 / 3.0 * pi * R * R * R * 7800;
  const double estar = estar_of(2.0e9, 0.1, 1.0e9, 0.45);
  const double v = sqrt(2 * g * h), t_fall = sqrt(2 * h / g);
  /* contact time: 2 d_max/v * int_0^1 dx/sqrt(1 - x^2.5), the integral
   * being (2/5) B(2/5, 1/2) */
  const double d_max = pow(15.0 * m * v * v / (16.0 * estar * sqrt(R)), 0.4);
  const double tc =
      2.0 * d_max / v * 0.4 * tgamma(0.4) * sqrt(pi) / tgamma(0.9);
  char h5[512];
  run_yaml("bounce", bounce_yaml, NULL, h5, sizeof h5);

  struct body_track b;
  read_track(h5, &b);
  ck_assert_uint_eq(b.n, 26);
  int in_flight_after = 0;
  for (size_t k = 0; k < b.n; k++) {
    double t = b.t[k], z = b.x[k][2], vz = b.v[k][2], zt;
    if (t < t_fall)
      zt = z0 - 0.5 * g * t * t;
    else if (t > t_fall + tc) {
      double tau = t - t_fall - tc;
      zt = R + v * tau - 0.5 * g * tau * tau;
      in_flight_after++;
      /* the apex from this state, by energy in free flight */
      double apex = z + vz * vz / (2 * g);
      ck_assert_msg(fabs(apex - z0) < 5e-6 * h,
                    "apex after the bounce %.9g m (from t = %g), dropped "
                    "from %.9g m",
                    apex, t, z0);
    } else
      continue; /* in contact */
    /* 1e-6 m: t_c from the discrete contact is good to ~1e-3 t_c */
    ck_assert_msg(fabs(z - zt) < 1e-6,
                  "z(%g) = %.9g m, free fall and Hertz bounce %.9g m", t, z,
                  zt);
    ck_assert_double_eq_tol(b.x[k][0], 0.05, 1e-15);
    ck_assert_double_eq_tol(b.x[k][1], 0.05, 1e-15);
  }
  ck_assert_int_ge(in_flight_after, 10);

  struct energy e;
  read_energy(h5, &e);
  const double e0 = m * g * z0, scale = m * g * h;
  double worst_free = 0, worst_contact = 0;
  int touched = 0;
  for (size_t k = 0; k < e.n; k++) {
    double dev = fabs(e.total[k] - e0) / scale;
    if (e.el[k] > 0) {
      touched++;
      worst_contact = fmax(worst_contact, dev);
    } else
      worst_free = fmax(worst_free, dev);
  }
  ck_assert_msg(touched >= 3, "%d energy rows during the contact", touched);
  printf("bounce: |E - E0|/(m g h) at most %.3g in flight, %.3g in contact\n",
         worst_free, worst_contact);
  ck_assert_msg(worst_free < 5e-6,
                "total energy in flight deviates by %.3g of m g h from m g z0",
                worst_free);
  /* in contact the synchronised energy wobbles by O((dt/t_c)^2) = 2.5e-5 */
  ck_assert_msg(worst_contact < 1e-4,
                "total energy in contact deviates by %.3g of m g h from m g z0",
                worst_contact);
  free_energy(&e);
  remove_run("bounce");
}
END_TEST

/* ---- on the floor ---- */

static const char *floor_yaml =
    "simulation: {time_step: 1.0e-5, end_time: 0.05, gravity: [0, 0, "
    "-9.81]}\n"
    "materials:\n"
    "  ball_m: {density: 7800, young_modulus: 2.0e9, poisson_ratio: 0.1}\n"
    "  floor_m: {density: 1000, young_modulus: 1.0e9, poisson_ratio: 0.45}\n"
    "shapes: {ball: {material: ball_m, spheres: [{center: [0, 0, 0], "
    "radius: 0.01}]}}\n"
    "particles: [{body: {shape: ball, position: [0.05, 0.05, 0.01]}}]\n"
    "domain: {box: {min: [0, 0, 0], max: [0.1, 0.1, 0.2]}, wall_material: "
    "floor_m}\n";

/* A sphere let go at rest just touching the floor (setup refuses a body
 * that already overlaps a wall, so it cannot start at its equilibrium
 * overlap) sinks until the elastic energy has taken up the work of its
 * weight, m g d = 8/15 E* sqrt(R) d^(5/2), i.e. to
 * d = (15 m g / (8 E* sqrt(R)))^(2/3) (2.5^(2/3) times the static overlap),
 * with E* of the two materials, and comes back to touching, over and over
 * (about 20 periods here). A wrong weight or a wrong E* moves the bottom by
 * the order of the error. */
START_TEST(sphere_on_floor_sinks_to_hertz_overlap) {
  const double R = 0.01, g = 9.81;
  const double m = 4.0 / 3.0 * pi * R * R * R * 7800;
  const double estar = estar_of(2.0e9, 0.1, 1.0e9, 0.45);
  const double d = pow(15.0 * m * g / (8.0 * estar * sqrt(R)), 2.0 / 3.0);
  struct fixture f;
  fixture_start(&f, floor_yaml, NULL);
  double lowest = R, highest_late = 0, worst = 0;
  int bottoms = 0, sinking = 1;
  for (long i = 0; i < f.sim.n_steps; i++) {
    double z_prev = f.sim.b.x[0][2];
    fixture_steps(&f, 1);
    double z = f.sim.b.x[0][2];
    lowest = fmin(lowest, z);
    if (sinking && z > z_prev) { /* passed a bottom */
      bottoms++;
      worst = fmax(worst, fabs((R - z_prev) / d - 1));
      ck_assert_msg(fabs((R - z_prev) / d - 1) < 1e-3,
                    "bottom %d at overlap %.6g m, energy balance gives "
                    "%.6g m",
                    bottoms, R - z_prev, d);
    }
    sinking = z < z_prev;
    if (f.sim.t > 0.5 * f.sim.end_time)
      highest_late = fmax(highest_late, z);
  }
  printf("floor: %d bottoms at d (1 + %.2g) at worst; top %.3g d from "
         "touching\n",
         bottoms, worst, fabs(highest_late - R) / d);
  ck_assert_int_ge(bottoms, 10);
  ck_assert_msg(fabs((R - lowest) / d - 1) < 1e-3,
                "lowest overlap %.6g m, energy balance gives %.6g m",
                R - lowest, d);
  /* back up to touching (no energy lost or gained) */
  ck_assert_msg(fabs(highest_late - R) < 1e-3 * d,
                "highest point %.9g m, released at %.9g m", highest_late, R);
  ck_assert_double_eq_tol(f.sim.b.x[0][0], 0.05, 1e-15);
  ck_assert_double_eq_tol(f.sim.b.x[0][1], 0.05, 1e-15);
  fixture_end(&f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("gravity");
  TCase *tc = tcase_create("gravity");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, free_fall, 0, NSCHEMES);
  tcase_add_test(tc, bounce_keeps_energy_and_apex);
  tcase_add_test(tc, sphere_on_floor_sinks_to_hertz_overlap);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed != 0;
}
