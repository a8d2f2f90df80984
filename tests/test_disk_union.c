/* Tests of one clump slice: area moments of a union of disks, exactly. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "shape/clump_internal.h"
#include "shape/sphere_pairs.h"

#define PI 3.14159265358979323846

/* Moments {A, int x, int y, int x^2, int y^2, int xy} of the segment
 * x >= h of the disk of radius r centred at the origin (|h| < r), from
 * x = r cos(phi): int x^2 = 2 r^4 int cos^2 sin^2, int y^2 = 2/3 r^4 int
 * sin^4 over phi in [0, acos(h/r)]. */
static void segment(double r, double h, double m[6]) {
  double p = acos(h / r), r4 = r * r * r * r;
  m[0] = r * r * p - h * sqrt(r * r - h * h);
  m[1] = 2.0 / 3.0 * pow(r * r - h * h, 1.5);
  m[2] = 0;
  m[3] = 0.5 * r4 * (0.5 * p - sin(4 * p) / 8);
  m[4] = 2.0 / 3.0 * r4 * (0.375 * p - sin(2 * p) / 4 + sin(4 * p) / 32);
  m[5] = 0;
}

/* Adds s times the moments of the disk of radius r centred at (x, y). */
static void add_disk(double x, double y, double r, double s, double m[6]) {
  double a = PI * r * r;
  m[0] += s * a;
  m[1] += s * a * x;
  m[2] += s * a * y;
  m[3] += s * a * (x * x + 0.25 * r * r);
  m[4] += s * a * (y * y + 0.25 * r * r);
  m[5] += s * a * x * y;
}

/* The union of the disks (x, y, r1) and (x, y, r2) + d (cos b, sin b),
 * which cut each other: both disks less the two segments of their lens,
 * worked out along the line of the centres, then turned by b and moved
 * to (x, y). Adds it to m. */
static void two_disk_union(double x, double y, double r1, double r2, double d,
                           double beta, double m[6]) {
  double l[6] = {0}, s1[6], s2[6];
  add_disk(0, 0, r1, 1, l);
  add_disk(d, 0, r2, 1, l);
  double h = (d * d + r1 * r1 - r2 * r2) / (2 * d); /* the chord */
  segment(r1, h, s1);
  segment(r2, d - h, s2); /* mirrored: x' = d - x */
  l[0] -= s1[0] + s2[0];
  l[1] -= s1[1] + (d * s2[0] - s2[1]);
  l[3] -= s1[3] + (s2[3] - 2 * d * s2[1] + d * d * s2[0]);
  l[4] -= s1[4] + s2[4];
  double c = cos(beta), s = sin(beta);
  double u = c * l[1] - s * l[2], v = s * l[1] + c * l[2]; /* int of turned */
  double uu = c * c * l[3] - 2 * c * s * l[5] + s * s * l[4];
  double vv = s * s * l[3] + 2 * s * c * l[5] + c * c * l[4];
  double uv = c * s * l[3] + (c * c - s * s) * l[5] - s * c * l[4];
  m[0] += l[0];
  m[1] += x * l[0] + u;
  m[2] += y * l[0] + v;
  m[3] += x * x * l[0] + 2 * x * u + uu;
  m[4] += y * y * l[0] + 2 * y * v + vv;
  m[5] += x * y * l[0] + x * v + y * u + uv;
}

/* The moments dem_disk_union_moments gives for the spheres s cut by the
 * plane z = 0 (ref at the origin), as the clump slicing sets them up. */
static void slice_of(const struct dem_sphere_def *s, size_t n, double m[6]) {
  const double ref[3] = {0, 0, 0};
  struct dem_sphere_adjacency adj;
  ck_assert_int_eq(dem_sphere_adjacency_build(s, n, 1e-9, 1000, &adj), DEM_OK);
  struct slicing sl;
  ck_assert_int_eq(dem_clump_slicing_init(&sl, s, n, ref, &adj), DEM_OK);
  ck_assert(sl.overlaps);
  struct slice_work *w = &sl.w;
  for (size_t i = 0; i < n; i++) {
    w->a[i] = s[i].center[0];
    w->b[i] = s[i].center[1];
    w->rho[i] = s[i].radius;
    w->disk_sphere[i] = i;
    w->slot[i] = (long)i;
  }
  dem_disk_union_moments(n, w, m);
  dem_clump_slicing_free(&sl);
  dem_sphere_adjacency_free(&adj);
}

/* Each moment within tol of the exact one, on the scale of the union's
 * area times its extent L to the moment's power. */
static void check_moments(const double got[6], const double want[6], double L,
                          double tol) {
  static const int power[6] = {0, 1, 1, 2, 2, 2};
  for (int q = 0; q < 6; q++) {
    double scale = want[0] * pow(L, power[q]);
    ck_assert_msg(fabs(got[q] - want[q]) <= tol * scale,
                  "moment %d = %.17g, exact %.17g (error %.3g of scale)", q,
                  got[q], want[q], fabs(got[q] - want[q]) / scale);
  }
}

/* Two disks that cut each other, their line of centres at angles all
 * round (0 and pi: the covered arc of one circle wraps past angle 0), with
 * a disk inside the first (it adds nothing) and one apart (a whole
 * circle): to rounding, against the lens in closed form. */
START_TEST(test_two_disks_all_round) {
  const double x = 0.31, y = -0.17, r1 = 0.05, r2 = 0.035, d = 0.06;
  const double betas[] = {0.0, 1e-9,      0.4, PI / 2, 2.0,
                          PI,  PI + 1e-9, 4.0, 5.5,    2 * PI - 1e-6};
  for (size_t t = 0; t < sizeof betas / sizeof *betas; t++) {
    double c = cos(betas[t]), s = sin(betas[t]);
    struct dem_sphere_def sp[4] = {
        {{x, y, 0}, r1},
        {{x + d * c, y + d * s, 0}, r2},
        {{x - 0.02 * c, y - 0.02 * s, 0}, 0.02}, /* inside the first */
        {{x - 0.2, y + 0.1, 0}, 0.03}};          /* apart */
    double got[6], want[6] = {0};
    slice_of(sp, 4, got);
    two_disk_union(x, y, r1, r2, d, betas[t], want);
    add_disk(x - 0.2, y + 0.1, 0.03, 1, want);
    check_moments(got, want, 0.5, 1e-13);
  }
}
END_TEST

/* Equal disks, nearly apart and nearly on top of each other: the cut's
 * half-angle near 0 and near pi/2. */
START_TEST(test_two_disks_extremes) {
  const double r = 0.04, ds[] = {1e-5, 0.001, 0.03, 0.079, 0.0799999};
  for (size_t t = 0; t < sizeof ds / sizeof *ds; t++) {
    struct dem_sphere_def sp[2] = {
        {{0.1, 0.2, 0}, r}, {{0.1 + 0.6 * ds[t], 0.2 + 0.8 * ds[t], 0}, r}};
    double got[6], want[6] = {0};
    slice_of(sp, 2, got);
    two_disk_union(0.1, 0.2, r, r, ds[t], atan2(0.8, 0.6), want);
    check_moments(got, want, 0.3, 1e-13);
  }
}
END_TEST

static Suite *disk_union_suite(void) {
  Suite *s = suite_create("disk_union");
  TCase *tc = tcase_create("exact");
  tcase_add_test(tc, test_two_disks_all_round);
  tcase_add_test(tc, test_two_disks_extremes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(disk_union_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
