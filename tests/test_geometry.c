/* Mesh geometry: closest points on triangles against a brute-force search,
 * STL files (ASCII and binary) of a cube, its patches, bad files, and a
 * moving mesh placed exactly. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "geometry/mesh.h"
#include "geometry/stl.h"
#include "geometry/triangle.h"

/* The closest point by sampling the triangle densely, and its distance. */
static double brute_closest(const double p[3], const double a[3],
                            const double b[3], const double c[3]) {
  double best = HUGE_VAL;
  const int n = 400;
  for (int i = 0; i <= n; i++)
    for (int j = 0; i + j <= n; j++) {
      double u = (double)i / n, v = (double)j / n, x[3];
      for (int k = 0; k < 3; k++)
        x[k] = a[k] + u * (b[k] - a[k]) + v * (c[k] - a[k]);
      double d[3];
      v3_sub(d, p, x);
      best = fmin(best, v3_dot(d, d));
    }
  return sqrt(best);
}

START_TEST(closest_point_matches_brute_force) {
  struct dem_rng rng;
  dem_rng_seed(&rng, 5);
  const double a[3] = {0, 0, 0}, b[3] = {1, 0.1, 0}, c[3] = {0.3, 0.9, 0.2};
  int seen[7] = {0};
  for (int trial = 0; trial < 300; trial++) {
    double p[3], x[3], d[3];
    for (int k = 0; k < 3; k++)
      p[k] = 3.0 * dem_rng_uniform(&rng) - 1.0;
    enum dem_tri_feature f = dem_triangle_closest(p, a, b, c, x);
    seen[f]++;
    v3_sub(d, p, x);
    double dist = sqrt(v3_dot(d, d)), brute = brute_closest(p, a, b, c);
    /* The sampled grid is 1/400 of an edge fine: within that. */
    ck_assert_msg(dist <= brute + 1e-12 && dist > brute - 5e-3,
                  "trial %d: closest %g, brute force %g", trial, dist, brute);
  }
  for (int f = 0; f < 7; f++) /* every region was visited */
    ck_assert_int_gt(seen[f], 0);
}
END_TEST

/* The unit cube [0,1]^3 as 12 triangles, outward normals. */
static const double cube[12][3][3] = {
    {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}}, {{0, 0, 0}, {1, 1, 0}, {1, 0, 0}},
    {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}}, {{0, 0, 1}, {1, 1, 1}, {0, 1, 1}},
    {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}}, {{0, 0, 0}, {1, 0, 1}, {0, 0, 1}},
    {{0, 1, 0}, {0, 1, 1}, {1, 1, 1}}, {{0, 1, 0}, {1, 1, 1}, {1, 1, 0}},
    {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}}, {{0, 0, 0}, {0, 1, 1}, {0, 1, 0}},
    {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}, {{1, 0, 0}, {1, 1, 1}, {1, 0, 1}}};

static FILE *ascii_cube(void) {
  FILE *f = tmpfile();
  fprintf(f, "solid cube\n");
  for (int t = 0; t < 12; t++) {
    fprintf(f, " facet normal 0 0 0\n  outer loop\n");
    for (int v = 0; v < 3; v++)
      fprintf(f, "   vertex %.17g %.17g %.17g\n", cube[t][v][0], cube[t][v][1],
              cube[t][v][2]);
    fprintf(f, "  endloop\n endfacet\n");
  }
  fprintf(f, "endsolid cube\n");
  rewind(f);
  return f;
}

static FILE *binary_cube(void) {
  FILE *f = tmpfile();
  unsigned char head[80] = "solid but binary";
  unsigned int n = 12; /* little-endian on every machine dem builds on */
  fwrite(head, 1, 80, f);
  fwrite(&n, 4, 1, f);
  for (int t = 0; t < 12; t++) {
    float rec[12] = {0};
    for (int v = 0; v < 3; v++)
      for (int k = 0; k < 3; k++)
        rec[3 + 3 * v + k] = (float)cube[t][v][k];
    fwrite(rec, 4, 12, f);
    unsigned short attr = 0;
    fwrite(&attr, 2, 1, f);
  }
  rewind(f);
  return f;
}

static void check_cube(FILE *f) {
  double(*tri)[3][3];
  size_t n;
  ck_assert_int_eq(dem_stl_read(f, "cube.stl", 1000, &tri, &n), DEM_OK);
  ck_assert_uint_eq(n, 12);
  ck_assert_mem_eq(tri, cube, sizeof cube);
  struct dem_mesh m = {0};
  m.name = strdup("cube");
  ck_assert_int_eq(dem_mesh_build(&m, "cube", (const double(*)[3][3])tri, n),
                   DEM_OK);
  ck_assert_uint_eq(m.n_vert, 8);    /* welded */
  ck_assert_uint_eq(m.n_patches, 6); /* one per face */
  for (size_t t = 0; t < 12; t += 2)
    ck_assert_int_eq(m.patch[t], m.patch[t + 1]);
  /* An edge between two faces belongs to the lower patch; the diagonal
   * inside a face to that face; a corner to the lowest of its three. */
  for (size_t t = 0; t < 12; t++)
    for (int k = 0; k < 3; k++) {
      int low = 99, high = -1;
      for (size_t u = 0; u < 12; u++)
        for (int j = 0; j < 3; j++) {
          int a = m.tri[t][k], b = m.tri[t][(k + 1) % 3];
          int c = m.tri[u][j], d = m.tri[u][(j + 1) % 3];
          if ((a == c && b == d) || (a == d && b == c)) {
            low = m.patch[u] < low ? m.patch[u] : low;
            high = m.patch[u] > high ? m.patch[u] : high;
          }
        }
      ck_assert_int_eq(m.edge_owner[t][k], low);
      /* Shared: a cube's edge (two faces), not a face's diagonal. */
      ck_assert_int_eq(m.edge_shared[t][k], low != high);
      int vlow = 99, vhigh = -1;
      for (size_t u = 0; u < 12; u++)
        for (int j = 0; j < 3; j++)
          if (m.tri[u][j] == m.tri[t][k]) {
            vlow = m.patch[u] < vlow ? m.patch[u] : vlow;
            vhigh = m.patch[u] > vhigh ? m.patch[u] : vhigh;
          }
      ck_assert_int_eq(m.vertex_owner[t][k], vlow);
      ck_assert_int_eq(m.vertex_shared[t][k], 1); /* every corner: 3 faces */
    }
  /* The first triangle (z = 0 face) faces -z. */
  ck_assert_double_eq_tol(m.normal[0][2], -1.0, 1e-15);
  dem_mesh_release(&m);
  free(tri);
  fclose(f);
}

START_TEST(stl_cube_ascii_and_binary) {
  check_cube(ascii_cube());
  check_cube(binary_cube());
}
END_TEST

static const char *read_error(const char *text) {
  FILE *f = tmpfile();
  fputs(text, f);
  rewind(f);
  double(*tri)[3][3];
  size_t n;
  dem_error_clear();
  dem_status st = dem_stl_read(f, "bad.stl", 1000, &tri, &n);
  fclose(f);
  ck_assert_int_eq(st, DEM_ERR_CONFIG);
  return dem_last_error();
}

START_TEST(bad_stl_files_say_why) {
  ck_assert_ptr_nonnull(strstr(read_error("hello\n"), "not an STL file"));
  ck_assert_ptr_nonnull(
      strstr(read_error("solid x\nendsolid x\n"), "holds no triangles"));
  ck_assert_ptr_nonnull(
      strstr(read_error("solid x\nfacet normal 0 0 0\nouter loop\nvertex 0 "
                        "0 0\nvertex 1 0 nan\nvertex 0 1 0\nendloop\n"),
             "not a finite number"));
  ck_assert_ptr_nonnull(
      strstr(read_error("solid x\nfacet normal 0 0 0\nouter loop\nvertex 0 "
                        "0 0\nvertex 1 0 0\nendloop\n"),
             "2 vertices, not 3"));
  /* A degenerate triangle is refused when the mesh is built. */
  const double flat[1][3][3] = {{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}};
  struct dem_mesh m = {0};
  dem_error_clear();
  ck_assert_int_eq(dem_mesh_build(&m, "flat", flat, 1), DEM_ERR_CONFIG);
  ck_assert_ptr_nonnull(strstr(dem_last_error(), "triangle 1 is degenerate"));
  dem_mesh_release(&m);
}
END_TEST

/* A mesh turning about z at 1 rad/s about (1, 0, 0), from t = 1 s: at
 * t = 1 + pi/2 the vertex at the origin is at (1, -1, 0), and the velocity
 * there is w x r. */
START_TEST(moving_mesh_is_placed_exactly) {
  const double one[1][3][3] = {{{0, 0, 0}, {0.5, 0, 0}, {0, 0.5, 0}}};
  struct dem_mesh m = {0};
  ck_assert_int_eq(dem_mesh_build(&m, "turn", one, 1), DEM_OK);
  m.motion = (struct dem_motion){{0, 0, 0}, {0, 0, 1}, {1, 0, 0}, 1.0, 1};
  dem_mesh_place(&m, 0.5); /* before the start: at rest */
  ck_assert_double_eq(m.v[0][0], 0.0);
  double t = 1.0 + 3.14159265358979323846 / 2;
  dem_mesh_place(&m, t);
  size_t origin = 0; /* the welded vertex at (0, 0, 0) sorts first */
  ck_assert_double_eq_tol(m.v[origin][0], 1.0, 1e-15);
  ck_assert_double_eq_tol(m.v[origin][1], -1.0, 1e-15);
  double v[3];
  dem_mesh_velocity(&m, t, m.v[origin], v);
  ck_assert_double_eq_tol(v[0], 1.0, 1e-15); /* w x (0, -1, 0) = (1, 0, 0) */
  ck_assert_double_eq_tol(v[1], 0.0, 1e-15);
  dem_mesh_release(&m);
}
END_TEST

static Suite *geometry_suite(void) {
  Suite *s = suite_create("geometry");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, closest_point_matches_brute_force);
  tcase_add_test(tc, stl_cube_ascii_and_binary);
  tcase_add_test(tc, bad_stl_files_say_why);
  tcase_add_test(tc, moving_mesh_is_placed_exactly);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(geometry_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
