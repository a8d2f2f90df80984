/* Mesh geometry: closest points on triangles against a brute-force search,
 * STL files (ASCII and binary) of a cube, its patches, bad files, a
 * moving mesh placed exactly, and meshes joined to their periodic
 * copies. */
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

/* A profile z(x) along x, uniform in y over [0, w]: the strip between
 * x[k] and x[k + 1] as two triangles, k < n - 1; into tri (2 (n - 1)). */
static size_t profile(const double *x, const double *z, size_t n, double w,
                      double (*tri)[3][3]) {
  size_t t = 0;
  for (size_t k = 0; k + 1 < n; k++) {
    const double a[3] = {x[k], 0, z[k]}, b[3] = {x[k + 1], 0, z[k + 1]},
                 c[3] = {x[k + 1], w, z[k + 1]}, d[3] = {x[k], w, z[k]};
    memcpy(tri[t][0], a, sizeof a), memcpy(tri[t][1], b, sizeof b);
    memcpy(tri[t++][2], c, sizeof c);
    memcpy(tri[t][0], a, sizeof a), memcpy(tri[t][1], c, sizeof c);
    memcpy(tri[t++][2], d, sizeof d);
  }
  return t;
}

/* Whether edge j of triangle t runs along y at x (both ends there). */
static int edge_at(const struct dem_mesh *m, size_t t, int j, double x) {
  return m->rest[m->tri[t][j]][0] == x &&
         m->rest[m->tri[t][(j + 1) % 3]][0] == x;
}

/* A ridge z = |x - 0.15| over [0, 0.3] x [0, 0.2], periodic along x and
 * y: its crest at x = 0 and x = 0.3 (the second 3e-9 off, as a binary
 * STL's single precision puts it) is one edge of the surface, shared by
 * the two slopes and owned by the lower; the edges on y = 0 and y = 0.2
 * are inside their slope. 1e-5 of the period off, the ends stay apart. */
START_TEST(periodic_join_shares_edges_across_the_boundary) {
  const double lo[3] = {0, 0, 0}, period[3] = {0.3, 0.2, 0};
  const double z[3] = {0.15, 0, 0.15};
  for (int far = 0; far < 2; far++) {
    const double x[3] = {0, 0.15, far ? 0.3 + 3e-6 : 0.3 + 3e-9};
    double tri[4][3][3];
    size_t n = profile(x, z, 3, 0.2, tri);
    struct dem_mesh m = {0};
    m.name = strdup("ridge");
    ck_assert_int_eq(dem_mesh_build(&m, "ridge", tri, n), DEM_OK);
    ck_assert_uint_eq(m.n_patches, 2);
    for (size_t t = 0; t < n; t++)
      for (int j = 0; j < 3; j++)
        if (edge_at(&m, t, j, x[0]) || edge_at(&m, t, j, x[2]))
          ck_assert_int_eq(m.edge_shared[t][j], 0); /* free border */
    ck_assert_int_eq(dem_mesh_join_periodic(&m, lo, period), DEM_OK);
    ck_assert_uint_eq(m.joined, (far ? 2u : 3u)); /* x (unless far) and y */
    ck_assert_uint_eq(m.n_patches, 2);
    int crest = 0;
    for (size_t t = 0; t < n; t++)
      for (int j = 0; j < 3; j++) {
        const double *a = m.rest[m.tri[t][j]],
                     *b = m.rest[m.tri[t][(j + 1) % 3]];
        if (edge_at(&m, t, j, x[0]) || edge_at(&m, t, j, x[2])) {
          crest++;
          ck_assert_int_eq(m.edge_shared[t][j], !far);
          ck_assert_int_eq(m.edge_owner[t][j], far ? m.patch[t] : 0);
        } else if (a[1] == b[1]) { /* along x, on y = 0 or y = 0.2 */
          ck_assert_int_eq(m.edge_shared[t][j], 0);
        }
      }
    ck_assert_int_eq(crest, 2);
    for (size_t t = 0; t < n; t++)
      for (int k = 0; k < 3; k++)
        if (m.rest[m.tri[t][k]][0] != x[1]) { /* a crest corner */
          ck_assert_int_eq(m.vertex_shared[t][k], !far);
          ck_assert_int_eq(m.vertex_owner[t][k], far ? m.patch[t] : 0);
        }
    dem_mesh_release(&m);
  }
}
END_TEST

/* Flat, a bump, flat, along x over one period: the two flat ends meet
 * only across the boundary, in one plane, and become one patch. */
START_TEST(periodic_join_merges_flat_patches_in_one_plane) {
  const double lo[3] = {0, 0, 0}, period[3] = {0.3, 0, 0};
  const double x[5] = {0, 0.1, 0.15, 0.2, 0.3}, z[5] = {0, 0, 0.02, 0, 0};
  double tri[8][3][3];
  size_t n = profile(x, z, 5, 0.2, tri);
  struct dem_mesh m = {0};
  m.name = strdup("bump");
  ck_assert_int_eq(dem_mesh_build(&m, "bump", tri, n), DEM_OK);
  ck_assert_uint_eq(m.n_patches, 4);
  ck_assert_int_ne(m.patch[0], m.patch[n - 1]);
  ck_assert_int_eq(dem_mesh_join_periodic(&m, lo, period), DEM_OK);
  ck_assert_uint_eq(m.joined, 1u);
  ck_assert_uint_eq(m.n_patches, 3);
  ck_assert_int_eq(m.patch[0], m.patch[n - 1]);
  int seen = 0;
  for (size_t t = 0; t < 2; t++) /* the join: inside the merged patch */
    for (int j = 0; j < 3; j++)
      if (edge_at(&m, t, j, 0.0)) {
        seen++;
        ck_assert_int_eq(m.edge_shared[t][j], 0);
      }
  ck_assert_int_eq(seen, 1);
  dem_mesh_release(&m);
  /* Rising at slope 1 through the boundary (z = x + 0.1 from x = 0,
   * z = x - 0.2 up to x = 0.3, a drop between): the first slope's copy a
   * period on continues the last one's plane, but the first itself lies
   * in another plane: not one patch, but the edge is shared. */
  const double xs[4] = {0, 0.1, 0.2, 0.3}, zs[4] = {0.1, 0.2, 0, 0.1};
  n = profile(xs, zs, 4, 0.2, tri);
  m = (struct dem_mesh){0};
  m.name = strdup("slope");
  ck_assert_int_eq(dem_mesh_build(&m, "slope", tri, n), DEM_OK);
  ck_assert_int_eq(dem_mesh_join_periodic(&m, lo, period), DEM_OK);
  ck_assert_uint_eq(m.joined, 1u);
  ck_assert_uint_eq(m.n_patches, 3);
  ck_assert_int_ne(m.patch[0], m.patch[n - 1]);
  seen = 0;
  for (size_t t = 0; t < 2; t++)
    for (int j = 0; j < 3; j++)
      if (edge_at(&m, t, j, 0.0)) {
        seen++;
        ck_assert_int_eq(m.edge_shared[t][j], 1);
        ck_assert_int_eq(m.edge_owner[t][j], 0);
      }
  ck_assert_int_eq(seen, 1);
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
  tcase_add_test(tc, periodic_join_shares_edges_across_the_boundary);
  tcase_add_test(tc, periodic_join_merges_flat_patches_in_one_plane);
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
