/* Tests of clump mass properties, principal frames and the 3x3 eigen-solver. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/quat.h"
#include "core/sym3_eigen.h"
#include "dem/status.h"
#include "shape/clump.h"
#include "shape/sphere_pairs.h"

#ifndef DEM_SOURCE_DIR
#define DEM_SOURCE_DIR "."
#endif
#ifndef DEM_CHESS_DIR
#define DEM_CHESS_DIR DEM_SOURCE_DIR "/examples/chess"
#endif

#define PI 3.14159265358979323846

static double rel_err(double got, double want) {
  return fabs(got - want) / fabs(want);
}

#define ck_assert_rel(got, want, tol)                                          \
  do {                                                                         \
    double got_ = (got), want_ = (want);                                       \
    ck_assert_msg(rel_err(got_, want_) <= (tol),                               \
                  "%s = %.15g, expected %.15g (relative error %.3g > %.3g)",   \
                  #got, got_, want_, rel_err(got_, want_), (double)(tol));     \
  } while (0)

#define ck_assert_near(got, want, tol)                                         \
  do {                                                                         \
    double got_ = (got), want_ = (want);                                       \
    ck_assert_msg(fabs(got_ - want_) <= (tol),                                 \
                  "%s = %.15g, expected %.15g (error %.3g > %.3g)", #got,      \
                  got_, want_, fabs(got_ - want_), (double)(tol));             \
  } while (0)

static double ball_volume(double r) { return 4.0 / 3.0 * PI * r * r * r; }

/* Principal axis k (unit vector in the input frame) of props p. */
static void principal_axis(const struct dem_clump_props *p, int k,
                           double axis[3]) {
  double e[3] = {0, 0, 0};
  e[k] = 1.0;
  q_rotate(axis, p->axes, e);
}

/* |cos| of the angle between principal axis k of p and direction u. */
static double axis_alignment(const struct dem_clump_props *p, int k,
                             const double u[3]) {
  double a[3];
  principal_axis(p, k, a);
  return fabs(v3_dot(a, u)) / v3_norm(u);
}

/* Checks that axes is a unit quaternion and that its matrix is a proper
 * rotation (orthonormal, det +1). */
static void check_frame(const struct dem_clump_props *p) {
  ck_assert_near(q_norm(p->axes), 1.0, 1e-14);
  double r[9];
  q_to_matrix(r, p->axes);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double dot = 0;
      for (int k = 0; k < 3; k++)
        dot += r[3 * k + i] * r[3 * k + j];
      ck_assert_near(dot, i == j ? 1.0 : 0.0, 1e-14);
    }
  double det = r[0] * (r[4] * r[8] - r[5] * r[7]) -
               r[1] * (r[3] * r[8] - r[5] * r[6]) +
               r[2] * (r[3] * r[7] - r[4] * r[6]);
  ck_assert_near(det, 1.0, 1e-14);
  ck_assert(p->inertia[0] <= p->inertia[1]);
  ck_assert(p->inertia[1] <= p->inertia[2]);
}

/* Inertia tensor about the com, in the input frame, from props: R diag R^T. */
static void tensor_from_props(const struct dem_clump_props *p, double t[9]) {
  double r[9];
  q_to_matrix(r, p->axes);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      t[3 * i + j] = 0;
      for (int k = 0; k < 3; k++)
        t[3 * i + j] += r[3 * i + k] * p->inertia[k] * r[3 * j + k];
    }
}

/* ---- eigen-solver and quaternion conversion ---- */

static unsigned long long lcg_state = 12345;
static double lcg_uniform(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg_state >> 11) / 9007199254740992.0;
}

/* A v = V diag(w), ascending, deterministic; V is a rotation since it equals
 * the matrix of its own unit quaternion. */
static void check_eigen(const double a[9]) {
  double w[3], v[9], w2[3], v2[9];
  dem_sym3_eigen(a, w, v);
  dem_sym3_eigen(a, w2, v2);
  ck_assert(memcmp(w, w2, sizeof w) == 0 && memcmp(v, v2, sizeof v) == 0);
  ck_assert(w[0] <= w[1] && w[1] <= w[2]);
  double scale = fabs(w[0]) + fabs(w[1]) + fabs(w[2]);
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++) {
      double av = 0;
      for (int j = 0; j < 3; j++)
        av += a[3 * i + j] * v[3 * j + k];
      ck_assert_near(av, w[k] * v[3 * i + k], 1e-13 * scale);
    }
  double q[4], r[9];
  dem_mat3_to_quat(v, q);
  q_to_matrix(r, q);
  for (int i = 0; i < 9; i++)
    ck_assert_near(r[i], v[i], 1e-14);
}

START_TEST(test_sym3_eigen_random) {
  for (int trial = 0; trial < 1000; trial++) {
    double a[9];
    for (int i = 0; i < 3; i++)
      for (int j = i; j < 3; j++)
        a[3 * i + j] = a[3 * j + i] = 2.0 * lcg_uniform() - 1.0;
    check_eigen(a);
  }
}
END_TEST

START_TEST(test_sym3_eigen_degenerate) {
  /* Diagonal, already ascending or all equal: the identity frame. */
  const double d1[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3};
  const double d2[9] = {5, 0, 0, 0, 5, 0, 0, 0, 5};
  const double d3[9] = {1, 0, 0, 0, 7, 0, 0, 0, 7};
  const double *ds[3] = {d1, d2, d3};
  for (int t = 0; t < 3; t++) {
    double w[3], v[9], q[4];
    dem_sym3_eigen(ds[t], w, v);
    for (int i = 0; i < 9; i++)
      ck_assert(v[i] == (i % 4 == 0 ? 1.0 : 0.0));
    dem_mat3_to_quat(v, q);
    ck_assert(q[0] == 1.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0);
    check_eigen(ds[t]);
  }
  /* Descending diagonal: a permutation, still right-handed. */
  const double d4[9] = {3, 0, 0, 0, 2, 0, 0, 0, 1};
  check_eigen(d4);
  /* A double eigenvalue in a rotated frame. */
  double q0[4], r[9], a[9];
  const double ax[3] = {1, 2, 3};
  q_from_axis_angle(q0, ax, 0.7);
  q_to_matrix(r, q0);
  const double lam[3] = {2, 2, 9};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      a[3 * i + j] = 0;
      for (int k = 0; k < 3; k++)
        a[3 * i + j] += r[3 * i + k] * lam[k] * r[3 * j + k];
    }
  check_eigen(a);
  double w[3], v[9];
  dem_sym3_eigen(a, w, v);
  ck_assert_near(w[0], 2, 1e-14);
  ck_assert_near(w[1], 2, 1e-14);
  ck_assert_near(w[2], 9, 1e-14);
  /* the third axis is the rotated z, up to sign */
  ck_assert_near(fabs(v[2] * r[2] + v[5] * r[5] + v[8] * r[8]), 1.0, 1e-14);
}
END_TEST

START_TEST(test_mat3_to_quat) {
  const double axes[6][3] = {{1, 0, 0}, {0, 1, 0},  {0, 0, 1},
                             {1, 1, 0}, {1, -2, 3}, {-1, -1, -1}};
  const double angles[6] = {0.0, 0.3, 2.0, PI - 1e-9, PI, -2.5};
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++) {
      double q0[4], r[9], q[4], r2[9];
      q_from_axis_angle(q0, axes[a], angles[b]);
      q_to_matrix(r, q0);
      dem_mat3_to_quat(r, q);
      ck_assert_near(q_norm(q), 1.0, 1e-15);
      ck_assert(q[0] >= 0);
      double dot =
          fabs(q[0] * q0[0] + q[1] * q0[1] + q[2] * q0[2] + q[3] * q0[3]);
      ck_assert_near(dot, 1.0, 1e-14);
      q_to_matrix(r2, q);
      for (int i = 0; i < 9; i++)
        ck_assert_near(r2[i], r[i], 2e-15);
    }
}
END_TEST

/* ---- closed form (no overlap) ---- */

START_TEST(test_single_sphere) {
  const double r = 0.05, rho = 2500;
  struct dem_sphere_def s = {{1.0, -2.0, 3.0}, r};
  struct dem_clump_props p;
  ck_assert_int_eq(dem_clump_compute(&s, 1, rho, 1e-6, &p), DEM_OK);
  double v = ball_volume(r), m = rho * v;
  ck_assert_int_eq(p.exact, 1);
  ck_assert_int_eq(p.resolution, 0);
  ck_assert(p.rel_change == 0.0);
  ck_assert_rel(p.volume, v, 1e-15);
  ck_assert_rel(p.mass, m, 1e-15);
  for (int k = 0; k < 3; k++) {
    ck_assert_near(p.com[k], s.center[k], 1e-15);
    ck_assert_rel(p.inertia[k], 0.4 * m * r * r, 1e-13);
  }
  ck_assert(p.axes[0] == 1 && p.axes[1] == 0 && p.axes[2] == 0 &&
            p.axes[3] == 0);
  ck_assert_rel(p.bounding_radius, r, 1e-14);
  double off[1][3];
  dem_clump_body_offsets(&s, 1, &p, off);
  ck_assert_near(v3_norm(off[0]), 0.0, 1e-15);
}
END_TEST

START_TEST(test_two_touching_spheres) {
  /* Equal spheres touching at the origin, along x. */
  const double r = 0.1, rho = 1000;
  struct dem_sphere_def s[2] = {{{-0.1, 0.5, 0.5}, r}, {{0.1, 0.5, 0.5}, r}};
  struct dem_clump_props p;
  ck_assert_int_eq(dem_clump_compute(s, 2, rho, 1e-6, &p), DEM_OK);
  double m1 = rho * ball_volume(r);
  ck_assert_int_eq(p.exact, 1);
  ck_assert_rel(p.volume, 2 * ball_volume(r), 1e-15);
  ck_assert_rel(p.mass, 2 * m1, 1e-15);
  ck_assert_near(p.com[0], 0.0, 1e-15);
  ck_assert_near(p.com[1], 0.5, 1e-15);
  ck_assert_near(p.com[2], 0.5, 1e-15);
  /* about x: two spheres 2/5 m r^2; about y, z: plus m r^2 each */
  ck_assert_rel(p.inertia[0], 0.8 * m1 * r * r, 1e-13);
  ck_assert_rel(p.inertia[1], 2.8 * m1 * r * r, 1e-13);
  ck_assert_rel(p.inertia[2], 2.8 * m1 * r * r, 1e-13);
  const double ex[3] = {1, 0, 0};
  ck_assert_near(axis_alignment(&p, 0, ex), 1.0, 1e-15);
  check_frame(&p);
  ck_assert_rel(p.bounding_radius, 2 * r, 1e-14);

  /* Unequal spheres touching along a skew direction u = (1, 2, 2)/3:
   * com at m2/(m1+m2) d u; I_axis = 2/5 (m1 r1^2 + m2 r2^2);
   * I_perp = I_axis + m1 m2/(m1+m2) d^2. */
  const double r1 = 0.03, r2 = 0.05, d = r1 + r2;
  const double u[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3};
  struct dem_sphere_def t[2] = {{{0, 0, 0}, r1},
                                {{d * u[0], d * u[1], d * u[2]}, r2}};
  ck_assert_int_eq(dem_clump_compute(t, 2, rho, 1e-6, &p), DEM_OK);
  ck_assert_int_eq(p.exact, 1);
  double ma = rho * ball_volume(r1), mb = rho * ball_volume(r2);
  double iax = 0.4 * (ma * r1 * r1 + mb * r2 * r2);
  double iperp = iax + ma * mb / (ma + mb) * d * d;
  ck_assert_rel(p.mass, ma + mb, 1e-15);
  for (int k = 0; k < 3; k++)
    ck_assert_near(p.com[k], mb / (ma + mb) * d * u[k], 1e-15);
  ck_assert_rel(p.inertia[0], iax, 1e-13);
  ck_assert_rel(p.inertia[1], iperp, 1e-13);
  ck_assert_rel(p.inertia[2], iperp, 1e-13);
  ck_assert_near(axis_alignment(&p, 0, u), 1.0, 1e-14);
  check_frame(&p);
  /* the far side of the small sphere, seen from the com */
  ck_assert_rel(p.bounding_radius, mb / (ma + mb) * d + r1, 1e-14);
}
END_TEST

START_TEST(test_rod_of_three) {
  /* The rod of the design notes: three touching spheres on the x axis. */
  const double r = 0.035, rho = 2500, a = 0.07;
  struct dem_sphere_def s[3] = {
      {{-a, 0, 0}, r}, {{0, 0, 0}, r}, {{a, 0, 0}, r}};
  struct dem_clump_props p;
  ck_assert_int_eq(dem_clump_compute(s, 3, rho, 1e-6, &p), DEM_OK);
  double m = rho * ball_volume(r);
  ck_assert_int_eq(p.exact, 1);
  ck_assert_rel(p.mass, 3 * m, 1e-15);
  ck_assert_rel(p.inertia[0], 1.2 * m * r * r, 1e-13);
  ck_assert_rel(p.inertia[1], 1.2 * m * r * r + 2 * m * a * a, 1e-13);
  ck_assert_rel(p.inertia[2], 1.2 * m * r * r + 2 * m * a * a, 1e-13);
  /* already diagonal and ascending: the identity frame */
  ck_assert(p.axes[0] == 1 && p.axes[1] == 0 && p.axes[2] == 0 &&
            p.axes[3] == 0);
  ck_assert_rel(p.bounding_radius, a + r, 1e-14);

  /* The same rod along z: axis 1 is z, the frame is still a rotation. */
  for (int i = 0; i < 3; i++) {
    s[i].center[2] = s[i].center[0];
    s[i].center[0] = 0;
  }
  ck_assert_int_eq(dem_clump_compute(s, 3, rho, 1e-6, &p), DEM_OK);
  const double ez[3] = {0, 0, 1};
  ck_assert_near(axis_alignment(&p, 0, ez), 1.0, 1e-15);
  check_frame(&p);
  double off[3][3];
  dem_clump_body_offsets(s, 3, &p, off);
  for (int i = 0; i < 3; i++) {
    ck_assert_near(off[i][0], (i - 1) * a, 1e-15);
    ck_assert_near(off[i][1], 0.0, 1e-15);
    ck_assert_near(off[i][2], 0.0, 1e-15);
  }
}
END_TEST

/* ---- integration of overlapping spheres ---- */

/* Union of two equal spheres (radius r, centres at +-d/2 on the axis) as a
 * solid of revolution: for x >= 0 the cross-section is the disk of the right
 * sphere, R(x)^2 = r^2 - (x - d/2)^2, x in [0, d/2 + r]. The integrands are
 * polynomials of degree 4 in x: 5-point Gauss-Legendre is exact.
 * Out: volume, moment about the axis and about a perpendicular axis through
 * the centre, per unit density. */
static void lens_union_exact(double r, double d, double out[3]) {
  static const double gx[5] = {
      -0.906179845938663992797627, -0.538469310105683091036314, 0.0,
      0.538469310105683091036314, 0.906179845938663992797627};
  static const double gw[5] = {
      0.236926885056189087514264, 0.478628670499366468041292,
      0.568888888888888888888889, 0.478628670499366468041292,
      0.236926885056189087514264};
  double lo = 0, hi = 0.5 * d + r, v = 0, iax = 0, iperp = 0;
  for (int k = 0; k < 5; k++) {
    double x = 0.5 * (lo + hi) + 0.5 * (hi - lo) * gx[k];
    double w = 0.5 * (hi - lo) * gw[k];
    double u = x - 0.5 * d, r2 = r * r - u * u;
    v += w * 2 * PI * r2;
    iax += w * 2 * PI * r2 * r2 / 2;
    iperp += w * 2 * (PI * r2 * x * x + PI * r2 * r2 / 4);
  }
  out[0] = v;
  out[1] = iax;
  out[2] = iperp;
}

START_TEST(test_two_overlapping_spheres) {
  const double r = 0.05, rho = 3200;
  const double ds[3] = {0.02, 0.06, 0.099};
  for (int t = 0; t < 3; t++) {
    double d = ds[t];
    struct dem_sphere_def s[2] = {{{0.3 - d / 2, -0.1, 0.2}, r},
                                  {{0.3 + d / 2, -0.1, 0.2}, r}};
    struct dem_clump_props p;
    ck_assert_int_eq(dem_clump_compute(s, 2, rho, 1e-6, &p), DEM_OK);
    ck_assert_int_eq(p.exact, 0);
    ck_assert(p.resolution > 0);
    ck_assert(p.rel_change < 1e-6);
    double lens = PI * (4 * r + d) * (2 * r - d) * (2 * r - d) / 12;
    double ex[3];
    lens_union_exact(r, d, ex);
    ck_assert_rel(ex[0], 2 * ball_volume(r) - lens, 1e-14);
    ck_assert_rel(p.volume, 2 * ball_volume(r) - lens, 1e-6);
    ck_assert_rel(p.mass, rho * (2 * ball_volume(r) - lens), 1e-6);
    ck_assert_near(p.com[0], 0.3, 1e-6 * r);
    ck_assert_near(p.com[1], -0.1, 1e-6 * r);
    ck_assert_near(p.com[2], 0.2, 1e-6 * r);
    ck_assert_rel(p.inertia[0], rho * ex[1], 1e-6);
    ck_assert_rel(p.inertia[1], rho * ex[2], 1e-6);
    ck_assert_rel(p.inertia[2], rho * ex[2], 1e-6);
    const double e[3] = {1, 0, 0};
    ck_assert_near(axis_alignment(&p, 0, e), 1.0, 1e-12);
    check_frame(&p);
    ck_assert_rel(p.bounding_radius, d / 2 + r, 1e-12);

    /* A loose tolerance still meets the 0.5 % of the issue. */
    ck_assert_int_eq(dem_clump_compute(s, 2, rho, 1e-2, &p), DEM_OK);
    ck_assert_rel(p.volume, ex[0], 5e-3);
    ck_assert_rel(p.inertia[0], rho * ex[1], 5e-3);
    ck_assert_rel(p.inertia[2], rho * ex[2], 5e-3);
  }

  /* The same pair along a skew axis (the slices then cut it obliquely). */
  const double d = 0.06, u[3] = {2.0 / 7, 3.0 / 7, 6.0 / 7};
  struct dem_sphere_def s[2];
  for (int k = 0; k < 3; k++) {
    s[0].center[k] = -0.5 * d * u[k];
    s[1].center[k] = 0.5 * d * u[k];
  }
  s[0].radius = s[1].radius = r;
  struct dem_clump_props p;
  double ex[3];
  lens_union_exact(r, d, ex);
  ck_assert_int_eq(dem_clump_compute(s, 2, rho, 1e-6, &p), DEM_OK);
  ck_assert_rel(p.volume, ex[0], 1e-6);
  ck_assert_rel(p.inertia[0], rho * ex[1], 1e-6);
  ck_assert_rel(p.inertia[1], rho * ex[2], 1e-6);
  ck_assert_rel(p.inertia[2], rho * ex[2], 1e-6);
  ck_assert_near(axis_alignment(&p, 0, u), 1.0, 1e-12);
  check_frame(&p);
}
END_TEST

START_TEST(test_duplicate_and_nested) {
  const double r = 0.02, rho = 1000;
  struct dem_clump_props p;
  /* The same sphere twice counts once. */
  struct dem_sphere_def dup[2] = {{{0.1, 0.2, 0.3}, r}, {{0.1, 0.2, 0.3}, r}};
  ck_assert_int_eq(dem_clump_compute(dup, 2, rho, 1e-8, &p), DEM_OK);
  ck_assert_int_eq(p.exact, 0);
  ck_assert_rel(p.volume, ball_volume(r), 1e-8);
  for (int k = 0; k < 3; k++) {
    ck_assert_rel(p.inertia[k], 0.4 * rho * ball_volume(r) * r * r, 1e-8);
    ck_assert_near(p.com[k], dup[0].center[k], 1e-10);
  }
  check_frame(&p);
  /* A sphere inside another (touching it from inside) adds nothing. */
  struct dem_sphere_def nest[2] = {{{0, 0, 0}, r}, {{0, 0, -0.01}, 0.01}};
  ck_assert_int_eq(dem_clump_compute(nest, 2, rho, 1e-8, &p), DEM_OK);
  ck_assert_int_eq(p.exact, 0);
  ck_assert_rel(p.volume, ball_volume(r), 1e-8);
  ck_assert_rel(p.inertia[2], 0.4 * rho * ball_volume(r) * r * r, 1e-8);
  ck_assert_near(p.com[2], 0.0, 1e-10);
}
END_TEST

START_TEST(test_overlapping_rod) {
  /* Five overlapping spheres on the y axis: axis 1 is y, moments 2 and 3
   * equal (the tensor is diagonal up to rounding). */
  const double r = 0.01;
  struct dem_sphere_def s[5];
  for (int i = 0; i < 5; i++) {
    v3_set(s[i].center, 0.0, 0.012 * (i - 2), 0.0);
    s[i].radius = r;
  }
  struct dem_clump_props p;
  ck_assert_int_eq(dem_clump_compute(s, 5, 2000, 1e-7, &p), DEM_OK);
  const double ey[3] = {0, 1, 0};
  ck_assert_near(axis_alignment(&p, 0, ey), 1.0, 1e-12);
  /* equal in theory; the slices along z see x and z differently */
  ck_assert_rel(p.inertia[1], p.inertia[2], 1e-7);
  ck_assert(p.inertia[0] < 0.5 * p.inertia[1]);
  for (int k = 0; k < 3; k++)
    ck_assert_near(p.com[k], 0.0, 1e-9 * r);
  check_frame(&p);
  /* the union is less than the sum of the spheres, more than 3 of them */
  ck_assert(p.volume < 5 * ball_volume(r) && p.volume > 3 * ball_volume(r));
}
END_TEST

/* An asymmetric clump: four overlapping spheres of different radii. */
static const struct dem_sphere_def blob[4] = {{{0.000, 0.000, 0.000}, 0.030},
                                              {{0.035, 0.010, 0.000}, 0.020},
                                              {{0.000, 0.030, 0.015}, 0.018},
                                              {{-0.010, 0.005, 0.030}, 0.012}};

START_TEST(test_rotated_input) {
  const double tol = 1e-7, rho = 2700;
  struct dem_clump_props a, b;
  ck_assert_int_eq(dem_clump_compute(blob, 4, rho, tol, &a), DEM_OK);
  ck_assert(a.inertia[1] > 1.05 * a.inertia[0]);
  ck_assert(a.inertia[2] > 1.05 * a.inertia[1]);
  double q[4];
  const double axis[3] = {0.3, -1.0, 0.5}, shift[3] = {1.0, -2.0, 0.5};
  q_from_axis_angle(q, axis, 2.2);
  struct dem_sphere_def rot[4];
  for (int i = 0; i < 4; i++) {
    q_rotate(rot[i].center, q, blob[i].center);
    v3_add(rot[i].center, rot[i].center, shift);
    rot[i].radius = blob[i].radius;
  }
  ck_assert_int_eq(dem_clump_compute(rot, 4, rho, tol, &b), DEM_OK);
  ck_assert_rel(b.volume, a.volume, 4 * tol);
  for (int k = 0; k < 3; k++)
    ck_assert_rel(b.inertia[k], a.inertia[k], 4 * tol);
  double com[3];
  q_rotate(com, q, a.com);
  v3_add(com, com, shift);
  for (int k = 0; k < 3; k++)
    ck_assert_near(b.com[k], com[k], 1e-8);
  for (int k = 0; k < 3; k++) {
    double ak[3], rk[3];
    principal_axis(&a, k, ak);
    q_rotate(rk, q, ak);
    ck_assert_near(axis_alignment(&b, k, rk), 1.0, 1e-9);
  }
  check_frame(&b);
  ck_assert_rel(b.bounding_radius, a.bounding_radius, 1e-6);

  /* Closed form: the rotated touching rod keeps its exact moments. */
  const double r = 0.035;
  struct dem_sphere_def rod[3] = {
      {{-0.07, 0, 0}, r}, {{0, 0, 0}, r}, {{0.07, 0, 0}, r}};
  ck_assert_int_eq(dem_clump_compute(rod, 3, rho, tol, &a), DEM_OK);
  for (int i = 0; i < 3; i++)
    q_rotate(rod[i].center, q, rod[i].center);
  ck_assert_int_eq(dem_clump_compute(rod, 3, rho, tol, &b), DEM_OK);
  ck_assert_int_eq(b.exact, 1);
  for (int k = 0; k < 3; k++)
    ck_assert_rel(b.inertia[k], a.inertia[k], 1e-13);
  double ex[3] = {1, 0, 0}, rx[3];
  q_rotate(rx, q, ex);
  ck_assert_near(axis_alignment(&b, 0, rx), 1.0, 1e-14);
}
END_TEST

START_TEST(test_body_offsets) {
  struct dem_clump_props p;
  ck_assert_int_eq(dem_clump_compute(blob, 4, 1000, 1e-6, &p), DEM_OK);
  double off[4][3];
  dem_clump_body_offsets(blob, 4, &p, off);
  for (int i = 0; i < 4; i++) {
    double c[3];
    q_rotate(c, p.axes, off[i]);
    v3_add(c, c, p.com);
    for (int k = 0; k < 3; k++)
      ck_assert_near(c[k], blob[i].center[k], 1e-15);
    ck_assert(v3_norm(off[i]) + blob[i].radius <=
              p.bounding_radius * (1 + 1e-15));
  }
  /* The tensor is diagonal in the principal frame: R^T T R = diag. */
  double t[9], r[9];
  tensor_from_props(&p, t);
  q_to_matrix(r, p.axes);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++)
          s += r[3 * k + i] * t[3 * k + l] * r[3 * l + j];
      ck_assert_near(s, i == j ? p.inertia[i] : 0.0, 1e-14 * p.inertia[2]);
    }
}
END_TEST

/* Independent estimate for the union of spheres: lines parallel to x
 * through the centres of res x res cells of the (y, z) bounding rectangle;
 * on each line the spheres' chords are merged and 1, x, x^2 integrated
 * exactly. Out: volume, com, inertia tensor (unit density). */
static void line_grid_estimate(const struct dem_sphere_def *s, size_t n,
                               int res, double *vol, double com[3],
                               double t[9]) {
  double lo[3], hi[3];
  for (int k = 0; k < 3; k++) {
    lo[k] = INFINITY;
    hi[k] = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      lo[k] = fmin(lo[k], s[i].center[k] - s[i].radius);
      hi[k] = fmax(hi[k], s[i].center[k] + s[i].radius);
    }
  }
  double hy = (hi[1] - lo[1]) / res, hz = (hi[2] - lo[2]) / res;
  double *a = malloc(2 * n * sizeof *a), *b = a + n;
  double m[10] = {0}; /* 1 x y z xx yy zz xy xz yz */
  for (int iz = 0; iz < res; iz++) {
    double z = lo[2] + (iz + 0.5) * hz;
    for (int iy = 0; iy < res; iy++) {
      double y = lo[1] + (iy + 0.5) * hy;
      size_t k = 0;
      for (size_t i = 0; i < n; i++) {
        double dy = y - s[i].center[1], dz = z - s[i].center[2];
        double h2 = s[i].radius * s[i].radius - dy * dy - dz * dz;
        if (h2 > 0) {
          double h = sqrt(h2), l = s[i].center[0] - h, u = s[i].center[0] + h;
          size_t j = k++;
          while (j > 0 && a[j - 1] > l) { /* insertion by start */
            a[j] = a[j - 1];
            b[j] = b[j - 1];
            j--;
          }
          a[j] = l;
          b[j] = u;
        }
      }
      double l0 = 0, l1 = 0, l2 = 0;
      for (size_t i = 0; i < k;) {
        double x0 = a[i], x1 = b[i];
        for (i++; i < k && a[i] <= x1; i++)
          x1 = fmax(x1, b[i]);
        l0 += x1 - x0;
        l1 += (x1 * x1 - x0 * x0) / 2;
        l2 += (x1 * x1 * x1 - x0 * x0 * x0) / 3;
      }
      double line[10] = {l0,         l1,         y * l0, z * l0, l2,
                         y * y * l0, z * z * l0, y * l1, z * l1, y * z * l0};
      for (int q = 0; q < 10; q++)
        m[q] += hy * hz * line[q];
    }
  }
  free(a);
  *vol = m[0];
  for (int k = 0; k < 3; k++)
    com[k] = m[1 + k] / m[0];
  double c[9] = {m[4], m[7], m[8], m[7], m[5], m[9], m[8], m[9], m[6]};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      c[3 * i + j] -= m[0] * com[i] * com[j];
  double tr = c[0] + c[4] + c[8];
  for (int i = 0; i < 9; i++)
    t[i] = (i % 4 == 0 ? tr : 0.0) - c[i];
}

/* Compares props p (of density rho) against the line-grid estimate. */
static void check_against_grid(const struct dem_sphere_def *s, size_t n,
                               const struct dem_clump_props *p, double rho,
                               int res, double tol) {
  double v, com[3], t[9], tp[9];
  line_grid_estimate(s, n, res, &v, com, t);
  ck_assert_rel(p->volume, v, tol);
  for (int k = 0; k < 3; k++)
    ck_assert_near(p->com[k], com[k], tol * p->bounding_radius);
  tensor_from_props(p, tp);
  for (int i = 0; i < 9; i++)
    ck_assert_near(tp[i], rho * t[i], tol * p->inertia[2]);
}

START_TEST(test_independent_grid) {
  struct dem_clump_props p;
  ck_assert_int_eq(dem_clump_compute(blob, 4, 1.0, 1e-8, &p), DEM_OK);
  check_against_grid(blob, 4, &p, 1.0, 2048, 2e-5);
}
END_TEST

/* ---- chess pieces ---- */

struct piece {
  const char *name, *file;
  double scale;
};

static const struct piece pieces[6] = {
    {"king", "Chess_King_100_spheres.txt", 0.0861},
    {"queen", "Chess_Queen_100_spheres.txt", 0.0825},
    {"rook", "Chess_Rook_100_spheres.txt", 0.115},
    {"bishop", "Chess_Bishop_100_spheres.txt", 0.0424},
    {"knight", "Chess_Knight_100_spheres.txt", 0.12},
    {"pawn", "Chess_Pawn_100_spheres.txt", 0.062},
};

/* Reads "x, y, z, r" lines scaled to metres; returns the count. */
static size_t load_piece(const struct piece *pc, struct dem_sphere_def *s,
                         size_t cap) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", DEM_CHESS_DIR, pc->file);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  size_t n = 0;
  double x, y, z, r, k = pc->scale * 0.01;
  while (n < cap && fscanf(f, " %lf , %lf , %lf , %lf", &x, &y, &z, &r) == 4) {
    v3_set(s[n].center, k * x, k * y, k * z);
    s[n].radius = k * r;
    n++;
  }
  fclose(f);
  return n;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

START_TEST(test_chess_pieces) {
  const double rho = 3200, tol = 1e-4;
  const struct piece *pc = &pieces[_i];
  struct dem_sphere_def s[128];
  size_t n = load_piece(pc, s, 128);
  ck_assert_int_eq(n, 100);
  struct dem_clump_props p, fine;
  double t0 = now_seconds();
  ck_assert_int_eq(dem_clump_compute(s, n, rho, tol, &p), DEM_OK);
  double t1 = now_seconds();
  ck_assert_int_eq(dem_clump_compute(s, n, rho, 1e-7, &fine), DEM_OK);
  ck_assert_int_eq(p.exact, 0);
  ck_assert(p.rel_change < tol);
  ck_assert(p.mass > 0 && p.volume > 0);
  ck_assert_rel(p.mass, rho * p.volume, 1e-15);
  double lo[3], hi[3], vsum = 0, vmax = 0, rmax = 0;
  for (int k = 0; k < 3; k++) {
    lo[k] = INFINITY;
    hi[k] = -INFINITY;
  }
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], s[i].center[k] - s[i].radius);
      hi[k] = fmax(hi[k], s[i].center[k] + s[i].radius);
    }
    vsum += ball_volume(s[i].radius);
    vmax = fmax(vmax, ball_volume(s[i].radius));
    rmax = fmax(rmax, s[i].radius);
  }
  for (int k = 0; k < 3; k++)
    ck_assert(p.com[k] > lo[k] && p.com[k] < hi[k]);
  ck_assert(p.volume < vsum && p.volume > vmax);
  ck_assert(p.inertia[0] > 0);
  ck_assert(p.inertia[0] + p.inertia[1] >= p.inertia[2]);
  check_frame(&p);
  ck_assert(p.bounding_radius >= rmax);
  ck_assert(p.bounding_radius <= sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) +
                                      (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                      (hi[2] - lo[2]) * (hi[2] - lo[2])));
  /* The change from the coarser level bounds the true error. */
  double err = rel_err(p.volume, fine.volume);
  for (int k = 0; k < 3; k++)
    err = fmax(err, rel_err(p.inertia[k], fine.inertia[k]));
  ck_assert_msg(err < tol, "%s: error %g >= tolerance", pc->name, err);
  ck_assert(fine.rel_change < 1e-7);
  /* The principal frame agrees with a finer run (moments are distinct). */
  for (int k = 0; k < 3; k++) {
    double a[3];
    principal_axis(&fine, k, a);
    ck_assert_near(axis_alignment(&p, k, a), 1.0, 1e-4);
  }
  if (_i == 5) /* one independent check of a piece: the pawn */
    check_against_grid(s, n, &fine, rho, 1024, 2e-4);
  printf("| %-6s | %.5e | %.6f | %+.6f, %+.6f, %+.6f | %.5e, %.5e, %.5e | "
         "%.5f | %d | %.1e | %.1e | %.0f |\n",
         pc->name, p.volume, p.mass, p.com[0], p.com[1], p.com[2], p.inertia[0],
         p.inertia[1], p.inertia[2], p.bounding_radius, p.resolution,
         p.rel_change, err, 1e3 * (t1 - t0));
}
END_TEST

/* ---- invalid input ---- */

static void expect_setup_error(const struct dem_sphere_def *s, size_t n,
                               double rho, double tol, const char *word) {
  struct dem_clump_props p;
  dem_error_clear();
  ck_assert_int_eq(dem_clump_compute(s, n, rho, tol, &p), DEM_ERR_SETUP);
  ck_assert_msg(strstr(dem_last_error(), word) != NULL,
                "message '%s' does not mention '%s'", dem_last_error(), word);
}

/* ---- many spheres: the neighbour search, separate groups, long chains ---- */

/* The grid search finds exactly the pairs a test of every pair finds, for
 * mixed radii, a huge sphere among small ones, and lattice positions
 * (coincident, tangent and nested spheres). */
START_TEST(test_adjacency_brute_force) {
  const double slack = 1e-9;
  for (int trial = 0; trial < 24; trial++) {
    size_t n = 50 + (size_t)(lcg_uniform() * 350);
    struct dem_sphere_def *s = malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++) {
      for (int k = 0; k < 3; k++)
        s[i].center[k] = trial % 3 == 0 ? 0.25 * floor(8 * lcg_uniform())
                                        : 3 * lcg_uniform();
      s[i].radius = trial % 3 == 0 ? 0.125 * (1 + floor(3 * lcg_uniform()))
                                   : 0.05 + 0.25 * lcg_uniform();
    }
    if (trial % 3 == 1)
      s[n / 2].radius = 1.2; /* one huge sphere */
    struct dem_sphere_adjacency adj;
    ck_assert_int_eq(dem_sphere_adjacency_build(s, n, slack, n * n, &adj),
                     DEM_OK);
    size_t pairs = 0;
    for (size_t i = 0; i < n; i++) {
      size_t e = adj.start[i];
      for (size_t j = 0; j < n; j++) {
        double d[3];
        v3_sub(d, s[i].center, s[j].center);
        double reach = (s[i].radius + s[j].radius) * (1 + slack);
        if (j == i || !(v3_dot(d, d) < reach * reach))
          continue;
        ck_assert_msg(e < adj.start[i + 1] && adj.nbr[e] == j,
                      "trial %d: pair %zu-%zu missing", trial, i, j);
        e++;
        pairs++;
      }
      ck_assert_msg(e == adj.start[i + 1],
                    "trial %d: sphere %zu has extra "
                    "neighbours",
                    trial, i);
    }
    ck_assert_uint_eq(adj.start[n], pairs);
    dem_sphere_adjacency_free(&adj);
    free(s);
  }
}
END_TEST

/* A chain of n equal spheres, spacing d (r <= d < 2r: only neighbours
 * overlap): (n - 1) pairs minus the (n - 2) spheres counted twice. */
static void check_chain(int axis, size_t n, double r, double d) {
  const double rho = 1000;
  double ex[3];
  lens_union_exact(r, d, ex);
  double vs = ball_volume(r), is = 0.4 * vs * r * r;
  double v = (double)(n - 1) * ex[0] - (double)(n - 2) * vs;
  double iax = (double)(n - 1) * ex[1] - (double)(n - 2) * is;
  struct dem_sphere_def *s = calloc(n, sizeof *s);
  for (size_t i = 0; i < n; i++) {
    s[i].center[axis] = d * (double)i;
    s[i].radius = r;
  }
  struct dem_clump_props p;
  ck_assert_int_eq(dem_clump_compute(s, n, rho, 1e-7, &p), DEM_OK);
  ck_assert_int_eq(p.exact, 0);
  ck_assert_rel(p.volume, v, 1e-6);
  ck_assert_rel(p.inertia[0], rho * iax, 1e-6);
  ck_assert_near(p.com[axis], 0.5 * d * (double)(n - 1), 1e-9 * d * n);
  free(s);
}

/* Long chains across and along the slicing direction: every plane cuts all
 * the spheres of the first (the search keeps each circle to its two
 * neighbours), and the second has a breakpoint per pair (the sweep keeps
 * each plane to the two spheres it cuts). Either took minutes before. */
START_TEST(test_long_chains) {
  check_chain(0, 4000, 0.01, 0.015);
  check_chain(2, 4000, 0.01, 0.015);
}
END_TEST

/* Moves props p (input frame) into the tensor about `about` and adds it. */
static void add_tensor(const struct dem_clump_props *p, const double about[3],
                       double t[9]) {
  double own[9], d[3];
  tensor_from_props(p, own);
  v3_sub(d, p->com, about);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      t[3 * i + j] += own[3 * i + j] +
                      p->mass * ((i == j ? v3_dot(d, d) : 0.0) - d[i] * d[j]);
}

/* Groups that do not touch each other and spheres that overlap nothing:
 * the clump is the sum of its parts, each computed on its own. */
START_TEST(test_separate_groups) {
  const double rho = 2000, tol = 1e-9;
  struct dem_sphere_def s[11];
  size_t n = 0;
  for (int g = 0; g < 2; g++) /* the blob twice, apart */
    for (int i = 0; i < 4; i++) {
      s[n] = blob[i];
      s[n].center[0] += 0.3 * g;
      s[n].center[2] -= 0.2 * g;
      n++;
    }
  const struct dem_sphere_def lone[3] = {{{-0.2, 0.1, 0.0}, 0.02},
                                         {{0.1, -0.3, 0.1}, 0.04},
                                         {{0.0, 0.2, -0.2}, 0.01}};
  for (int i = 0; i < 3; i++)
    s[n++] = lone[i];
  struct dem_clump_props all, part[5];
  ck_assert_int_eq(dem_clump_compute(s, n, rho, tol, &all), DEM_OK);
  ck_assert_int_eq(all.exact, 0);
  ck_assert_int_eq(dem_clump_compute(s, 4, rho, tol, &part[0]), DEM_OK);
  ck_assert_int_eq(dem_clump_compute(s + 4, 4, rho, tol, &part[1]), DEM_OK);
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(dem_clump_compute(&lone[i], 1, rho, tol, &part[2 + i]),
                     DEM_OK);
  double mass = 0, com[3] = {0, 0, 0}, t[9] = {0}, tall[9];
  for (int q = 0; q < 5; q++) {
    mass += part[q].mass;
    v3_axpy(com, part[q].mass, part[q].com);
  }
  v3_scale(com, com, 1.0 / mass);
  for (int q = 0; q < 5; q++)
    add_tensor(&part[q], com, t);
  ck_assert_rel(all.mass, mass, 1e-8);
  for (int k = 0; k < 3; k++)
    ck_assert_near(all.com[k], com[k], 1e-9);
  tensor_from_props(&all, tall);
  for (int i = 0; i < 9; i++)
    ck_assert_near(tall[i], t[i], 1e-8 * all.inertia[2]);
}
END_TEST

START_TEST(test_absurd_sizes) {
  /* More spheres than any shape may have: refused before any work. */
  size_t n = DEM_CLUMP_MAX_SPHERES + 1;
  struct dem_sphere_def *s = calloc(n, sizeof *s);
  for (size_t i = 0; i < n; i++)
    s[i].radius = 1;
  expect_setup_error(s, n, 1000, 1e-4, "more than 1000000");
  /* Thousands of spheres on one spot: millions of overlapping pairs. */
  expect_setup_error(s, 2500, 1000, 1e-4, "overlap too much");
  /* One connected pack of 20,000 spheres each overlapping about 8 others:
   * slicing it would take far more than the limit. */
  double side = cbrt(20000 / 2.0);
  for (size_t i = 0; i < 20000; i++) {
    for (int k = 0; k < 3; k++)
      s[i].center[k] = side * lcg_uniform();
    s[i].radius = 0.5;
  }
  expect_setup_error(s, 20000, 1000, 1e-4, "circle evaluations");
  free(s);
}
END_TEST

START_TEST(test_invalid_input) {
  struct dem_sphere_def s[2] = {{{0, 0, 0}, 0.01}, {{0.01, 0, 0}, 0.01}};
  expect_setup_error(s, 0, 1000, 1e-6, "no spheres");
  expect_setup_error(NULL, 2, 1000, 1e-6, "no spheres");
  expect_setup_error(s, 2, 0.0, 1e-6, "density");
  expect_setup_error(s, 2, -5.0, 1e-6, "density");
  expect_setup_error(s, 2, INFINITY, 1e-6, "density");
  expect_setup_error(s, 2, NAN, 1e-6, "density");
  expect_setup_error(s, 2, 1000, 0.0, "tolerance");
  s[1].radius = 0.0;
  expect_setup_error(s, 2, 1000, 1e-6, "sphere 1 of the clump: radius");
  s[1].radius = -0.01;
  expect_setup_error(s, 2, 1000, 1e-6, "radius");
  s[1].radius = NAN;
  expect_setup_error(s, 2, 1000, 1e-6, "radius");
  s[1].radius = 0.01;
  s[0].center[2] = NAN;
  expect_setup_error(s, 2, 1000, 1e-6, "sphere 0 of the clump: centre");
  s[0].center[2] = INFINITY;
  expect_setup_error(s, 2, 1000, 1e-6, "centre");
  s[0].center[2] = 0.0;
  /* An unreachable tolerance fails with a message, not a hang. */
  expect_setup_error(blob, 4, 1000, 1e-16, "did not converge");
  dem_error_clear();
}
END_TEST

static Suite *clump_suite(void) {
  Suite *s = suite_create("clump");
  TCase *tc = tcase_create("eigen");
  tcase_add_test(tc, test_sym3_eigen_random);
  tcase_add_test(tc, test_sym3_eigen_degenerate);
  tcase_add_test(tc, test_mat3_to_quat);
  suite_add_tcase(s, tc);
  tc = tcase_create("exact");
  tcase_add_test(tc, test_single_sphere);
  tcase_add_test(tc, test_two_touching_spheres);
  tcase_add_test(tc, test_rod_of_three);
  suite_add_tcase(s, tc);
  tc = tcase_create("union");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_two_overlapping_spheres);
  tcase_add_test(tc, test_duplicate_and_nested);
  tcase_add_test(tc, test_overlapping_rod);
  tcase_add_test(tc, test_rotated_input);
  tcase_add_test(tc, test_body_offsets);
  tcase_add_test(tc, test_independent_grid);
  tcase_add_test(tc, test_invalid_input);
  suite_add_tcase(s, tc);
  tc = tcase_create("many");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_adjacency_brute_force);
  tcase_add_test(tc, test_long_chains);
  tcase_add_test(tc, test_separate_groups);
  tcase_add_test(tc, test_absurd_sizes);
  suite_add_tcase(s, tc);
  tc = tcase_create("chess");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_chess_pieces, 0, 6);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(clump_suite());
  printf("| piece | volume (m^3) | mass (kg) | com (m) | principal moments "
         "(kg m^2) | bounding radius (m) | planes | rel change | error vs "
         "1e-7 run | time (ms) |\n");
  fflush(stdout);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
