/* Lane kernels' geometry and kinematics (contact/lanes.h): what the
 * vectors give for sphere-sphere pairs and flat walls against the
 * definitions (contact point, material velocities, effective mass),
 * computed here one contact at a time; and the springs of the
 * hertz_mindlin law (contact/hertz_mindlin_lanes.h) turned into the
 * tangent plane and capped, against their definitions. Built three
 * times: test_lanes (two lanes a vector) and, where the compiler and the
 * processor have them, test_lanes_avx2 and test_lanes_avx512 (four, as
 * the AVX2 and AVX-512 kernels are compiled). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/lanes.h"
#include "core/rng.h"
#include "core/vec3.h"
/* The law's helpers; its loops get names of their own here. */
#define DEM_HM_LOOP(name) test_hm_##name
#include "contact/hertz_mindlin_lanes.h"

enum { N_BODIES = 6, N = DEM_LANES_VW };

struct bodies_data {
  double x[N_BODIES][3], v[N_BODIES][3], v_contact[N_BODIES][3];
  double w_contact[N_BODIES][3], w_move[N_BODIES][3], mass[N_BODIES];
};

static double uniform(struct dem_rng *r, double a, double b) {
  return a + (b - a) * dem_rng_uniform(r);
}

static void random3(struct dem_rng *r, double out[3], double scale) {
  for (int k = 0; k < 3; k++)
    out[k] = uniform(r, -scale, scale);
}

/* Bodies with every velocity different, so that a field read in place of
 * another shows. */
static void bodies_random(struct dem_rng *r, struct bodies_data *d,
                          struct dem_bodies *b) {
  for (int i = 0; i < N_BODIES; i++) {
    random3(r, d->x[i], 1.0);
    random3(r, d->v[i], 2.0);
    random3(r, d->v_contact[i], 2.0);
    random3(r, d->w_contact[i], 30.0);
    random3(r, d->w_move[i], 30.0);
    d->mass[i] = uniform(r, 0.5, 3.0);
  }
  memset(b, 0, sizeof *b);
  b->n = N_BODIES;
  b->x = d->x;
  b->v = d->v;
  b->v_contact = d->v_contact;
  b->w_contact = d->w_contact;
  b->w_move = d->w_move;
  b->mass = d->mass;
}

/* The velocity of body b's material at p, with velocity v and angular
 * velocity w. */
static void material_velocity(const struct bodies_data *d, int b,
                              const double v[3], const double w[3],
                              const double p[3], double out[3]) {
  double r[3] = {p[0] - d->x[b][0], p[1] - d->x[b][1], p[2] - d->x[b][2]};
  out[0] = v[0] + w[1] * r[2] - w[2] * r[1];
  out[1] = v[1] + w[2] * r[0] - w[0] * r[2];
  out[2] = v[2] + w[0] * r[1] - w[1] * r[0];
}

static void expect_close(double got, double want, double scale,
                         const char *what, int lane) {
  ck_assert_msg(fabs(got - want) <= 1e-12 * scale,
                "%s, lane %d: %.17g, expected %.17g", what, lane, got, want);
}

static void expect_close3(const vd got[3], int a, const double want[3],
                          double scale, const char *what) {
  for (int k = 0; k < 3; k++)
    expect_close(got[k][a], want[k], scale, what, a);
}

/* Two spheres of different bodies overlapping: the contact point at
 * arm_i from the owner's centre towards the partner, each body's material
 * velocity there, the periodic image of the partner; with `packed`, the
 * bodies' motion read from their packed rows (DEM_KIN). */
static void check_pairs(int periodic, int packed) {
  struct dem_rng r;
  dem_rng_seed(&r, 11 + (uint64_t)periodic);
  struct bodies_data d;
  struct dem_lanes *l = calloc(1, sizeof *l);
  struct dem_bodies b;
  bodies_random(&r, &d, &b);
  double *kin = NULL;
  if (packed) {
    kin = calloc(N_BODIES * DEM_KIN, sizeof *kin);
    dem_lanes_pack_bodies(&b, 0, N_BODIES, N_BODIES, kin);
  }
  l->bodies = &b;
  l->kin = kin;
  l->mode = DEM_LANES_PAIRS;
  l->periodic = periodic;
  double xj[N][3];
  for (int e = 0; e < N; e++) {
    double ri = uniform(&r, 0.5, 1.0), rj = uniform(&r, 0.5, 1.0), dir[3];
    random3(&r, dir, 1.0);
    double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    double dist = (ri + rj) * uniform(&r, 0.9, 0.99);
    for (int k = 0; k < 3; k++) {
      l->x[k][e] = uniform(&r, -1.0, 1.0);
      l->shift[k][e] = periodic ? 4.0 * (k - 1) : 0.0;
      l->d[k][e] = dist * dir[k] / len;
      /* the partner as stored, an image away from where it touches */
      xj[e][k] = l->x[k][e] - l->d[k][e] - l->shift[k][e];
    }
    l->dist[e] = l->d[0][e] * l->d[0][e] + l->d[1][e] * l->d[1][e] +
                 l->d[2][e] * l->d[2][e];
    l->rsum[e] = ri + rj;
    l->ri[e] = ri;
    l->rj[e] = rj;
    l->bi[e] = e;
    l->bj[e] = (e + 2) % N_BODIES;
    /* the pair's constants, as the list's build gives them */
    l->rstar[e] = 1 / (1 / ri + 1 / rj);
    l->mstar[e] = 1 / (1 / d.mass[e] + 1 / d.mass[l->bj[e]]);
    l->inertia[e] = uniform(&r, 1.0, 2.0);
  }
  for (int a0 = 0; a0 < N; a0 += DEM_VW) {
    struct vpair g;
    dem_lanes_pair(l, a0, &g);
    for (int a = 0; a < DEM_VW; a++) {
      const int e = a0 + a, bi = l->bi[e], bj = l->bj[e];
      const double dist = sqrt(l->dist[e]), overlap = l->rsum[e] - dist;
      const double arm_i = l->ri[e] - overlap / 2,
                   arm_j = l->rj[e] - overlap / 2;
      expect_close(g.dist[a], dist, 1, "dist", e);
      expect_close(g.overlap[a], overlap, 1, "overlap", e);
      expect_close(g.rstar[a], 1 / (1 / l->ri[e] + 1 / l->rj[e]), 1, "R*", e);
      expect_close(g.arm_i[a], arm_i, 1, "arm_i", e);
      expect_close(g.arm_j[a], arm_j, 1, "arm_j", e);
      double p[3], pj[3], vi[3], vj[3], mi[3], mj[3], want[3];
      for (int k = 0; k < 3; k++) {
        p[k] = l->x[k][e] - arm_i * l->d[k][e] / dist;
        pj[k] = p[k] - l->shift[k][e];
        /* the same point seen from the partner's side */
        expect_close(xj[e][k] + arm_j * l->d[k][e] / dist, pj[k], 10,
                     "contact point from the partner", e);
      }
      material_velocity(&d, bi, d.v_contact[bi], d.w_contact[bi], p, vi);
      material_velocity(&d, bj, d.v_contact[bj], d.w_contact[bj], pj, vj);
      material_velocity(&d, bi, d.v[bi], d.w_move[bi], p, mi);
      material_velocity(&d, bj, d.v[bj], d.w_move[bj], pj, mj);
      for (int k = 0; k < 3; k++)
        want[k] = vi[k] - vj[k];
      expect_close3(g.v, a, want, 100, "v");
      for (int k = 0; k < 3; k++)
        want[k] = mi[k] - mj[k];
      expect_close3(g.v_move, a, want, 100, "v_move");
      for (int k = 0; k < 3; k++)
        want[k] = d.w_contact[bi][k] - d.w_contact[bj][k];
      expect_close3(g.w, a, want, 100, "w");
      for (int k = 0; k < 3; k++)
        want[k] = d.w_move[bi][k] - d.w_move[bj][k];
      expect_close3(g.w_move, a, want, 100, "w_move");
      expect_close(g.mstar[a], 1 / (1 / d.mass[bi] + 1 / d.mass[bj]), 1, "m*",
                   e);
      expect_close(g.inertia[a], l->inertia[e], 1, "rolling inertia", e);
      for (int k = 0; k < 3; k++)
        expect_close(g.d[k][a], l->d[k][e], 1, "d", e);
    }
  }
  free(kin);
  free(l);
}

START_TEST(pair_kinematics_are_the_bodies_motion_at_the_contact_point) {
  for (int packed = 0; packed < 2; packed++) {
    check_pairs(0, packed);
    check_pairs(1, packed);
  }
}
END_TEST

/* A sphere on a flat wall at rest: the contact point on the wall, the
 * body's material velocity there, the body's mass as the effective one;
 * with `packed`, the body's motion and mass read from its packed row. */
static void check_walls(int packed) {
  struct dem_rng r;
  dem_rng_seed(&r, 5);
  struct bodies_data d;
  struct dem_bodies b;
  struct dem_lanes *l = calloc(1, sizeof *l);
  bodies_random(&r, &d, &b);
  double *kin = NULL;
  if (packed) {
    kin = calloc(N_BODIES * DEM_KIN, sizeof *kin);
    dem_lanes_pack_bodies(&b, 0, N_BODIES, N_BODIES, kin);
  }
  l->bodies = &b;
  l->kin = kin;
  l->mode = DEM_LANES_WALLS;
  for (int e = 0; e < N; e++) {
    const int axis = e % 3;
    const double radius = uniform(&r, 0.5, 1.0);
    const double overlap = radius * uniform(&r, 0.01, 0.1);
    for (int k = 0; k < 3; k++) {
      l->x[k][e] = uniform(&r, -1.0, 1.0);
      l->d[k][e] = k == axis ? (e & 1 ? -1.0 : 1.0) : 0.0;
    }
    l->dist[e] = 1.0;
    l->overlap[e] = overlap;
    l->ri[e] = radius;
    l->arm_i[e] = radius - overlap;
    l->bi[e] = N_BODIES - 1 - e;
  }
  for (int a0 = 0; a0 < N; a0 += DEM_VW) {
    struct vpair g;
    dem_lanes_wall(l, a0, &g);
    for (int a = 0; a < DEM_VW; a++) {
      const int e = a0 + a, bi = l->bi[e];
      double p[3], want[3];
      for (int k = 0; k < 3; k++) /* on the wall plane */
        p[k] = l->x[k][e] - l->arm_i[e] * l->d[k][e];
      material_velocity(&d, bi, d.v_contact[bi], d.w_contact[bi], p, want);
      expect_close3(g.v, a, want, 100, "v");
      material_velocity(&d, bi, d.v[bi], d.w_move[bi], p, want);
      expect_close3(g.v_move, a, want, 100, "v_move");
      expect_close3(g.w, a, d.w_contact[bi], 100, "w");
      expect_close3(g.w_move, a, d.w_move[bi], 100, "w_move");
      expect_close(g.mi[a], d.mass[bi], 1, "m_i", e);
      expect_close(g.mstar[a], d.mass[bi], 1, "m*", e);
      expect_close(g.mj[a], 0.0, 1, "m_j", e);
      expect_close(g.rj[a], 0.0, 1, "r_j", e);
      expect_close(g.arm_j[a], 0.0, 1, "arm_j", e);
      expect_close(g.rstar[a], l->ri[e], 1, "R*", e);
      expect_close(g.arm_i[a], l->arm_i[e], 1, "arm_i", e);
      expect_close(g.overlap[a], l->overlap[e], 1, "overlap", e);
    }
  }
  free(kin);
  free(l);
}

START_TEST(wall_kinematics_are_the_sphere_motion_at_the_wall) {
  check_walls(0);
  check_walls(1);
}
END_TEST

/* Selects keep each lane's side bitwise (-0 and NaN included); a splat
 * keeps the sign of zero. */
START_TEST(selects_and_splats_keep_every_bit) {
  vd a = vsplat(-0.0), b = vsplat(NAN), m;
  for (int l = 0; l < DEM_VW; l++) {
    ck_assert(signbit(a[l]));
    m[l] = l % 2 ? 1.0 : -1.0;
  }
  vd s = vsel(m > 0, a, b);
  for (int l = 0; l < DEM_VW; l++)
    ck_assert(l % 2 ? signbit(s[l]) && s[l] == 0 : isnan(s[l]));
}
END_TEST

/* The transpose turns DEM_VW rows of DEM_VW doubles into their columns,
 * and back (the packed bodies' rows, vkin_motion). */
START_TEST(transposes_turn_rows_into_columns) {
  vd r[DEM_VW];
  for (int i = 0; i < DEM_VW; i++)
    for (int j = 0; j < DEM_VW; j++)
      r[i][j] = 10.0 * i + j;
  vtranspose(r);
  for (int i = 0; i < DEM_VW; i++)
    for (int j = 0; j < DEM_VW; j++)
      ck_assert_msg(r[i][j] == 10.0 * j + i, "%d lanes: [%d][%d] is %g", DEM_VW,
                    i, j, r[i][j]);
  vtranspose(r);
  for (int i = 0; i < DEM_VW; i++)
    for (int j = 0; j < DEM_VW; j++)
      ck_assert(r[i][j] == 10.0 * i + j);
}
END_TEST

/* Histories read and written a block at a time: every lane's component
 * q in vector q, for ranges that are and are not whole blocks; a write
 * touches only its range. */
START_TEST(history_blocks_are_each_lanes_components) {
  enum { W = 18 };
  static const int ranges[][2] = {{1, W}, {0, W}, {0, DEM_VW}, {3, 9},
                                  {1, 7}, {7, W}, {2, 6}};
  double hist[DEM_LANES_VW][W], *h[DEM_LANES_VW];
  for (int e = 0; e < DEM_LANES_VW; e++)
    h[e] = hist[(e * 3 + 1) % DEM_LANES_VW]; /* not in order */
  for (size_t t = 0; t < sizeof ranges / sizeof *ranges; t++) {
    const int q0 = ranges[t][0], q1 = ranges[t][1];
    for (int l = 0; l < DEM_LANES_VW; l += DEM_VW) {
      for (int e = 0; e < DEM_LANES_VW; e++)
        for (int q = 0; q < W; q++)
          hist[e][q] = 100.0 * e + q;
      vd r[W];
      vgather_range(r, h, l, q0, q1);
      for (int q = q0; q < q1; q++)
        for (int a = 0; a < DEM_VW; a++)
          ck_assert_msg(r[q][a] == h[l + a][q], "read: lane %d, component %d",
                        l + a, q);
      for (int q = q0; q < q1; q++)
        for (int a = 0; a < DEM_VW; a++)
          r[q][a] = -1.0 - 100.0 * (l + a) - q;
      vscatter_range(h, l, q0, q1, r);
      for (int e = 0; e < DEM_LANES_VW; e++) {
        const int mine = e >= l && e < l + DEM_VW;
        for (int q = 0; q < W; q++) {
          const double want = mine && q >= q0 && q < q1
                                  ? -1.0 - 100.0 * e - q
                                  : 100.0 * (double)(h[e] - hist[0]) / W + q;
          ck_assert_msg(h[e][q] == want, "write: lane %d, component %d: %g", e,
                        q, h[e][q]);
        }
      }
    }
  }
}
END_TEST

/* Lane a of the 3-vector of lanes v. */
static void lane3(const vd v[3], int a, double out[3]) {
  for (int k = 0; k < 3; k++)
    out[k] = v[k][a];
}

/* A spring turned into the plane normal to n keeps its length and its
 * direction in the plane: it becomes its projection t = h - (h.n) n,
 * scaled to |h|. A zero spring stays zero. Both springs (force, torque)
 * of every lane, with lengths from 1e-9 to 1e3 and random normals, so
 * that a spring lies anywhere from in the plane to nearly along n. */
START_TEST(springs_turned_into_the_plane_keep_their_length) {
  struct dem_rng r;
  dem_rng_seed(&r, 11);
  for (int trial = 0; trial < 200; trial++) {
    vd a[3], b[3], n[3];
    double ha[DEM_VW][3], hb[DEM_VW][3], nn[DEM_VW][3];
    for (int l = 0; l < DEM_VW; l++) {
      random3(&r, nn[l], 1.0);
      const double len = v3_norm(nn[l]);
      for (int k = 0; k < 3; k++)
        nn[l][k] /= len;
      random3(&r, ha[l], pow(10.0, uniform(&r, -9, 3)));
      random3(&r, hb[l], pow(10.0, uniform(&r, -9, 3)));
      if ((trial + l) % 7 == 0) /* a spring not yet stretched */
        ha[l][0] = ha[l][1] = ha[l][2] = 0.0;
      for (int k = 0; k < 3; k++)
        a[k][l] = ha[l][k], b[k][l] = hb[l][k], n[k][l] = nn[l][k];
    }
    into_plane2(a, b, n);
    for (int l = 0; l < DEM_VW; l++)
      for (int s = 0; s < 2; s++) {
        const double *h = s ? hb[l] : ha[l];
        double got[3], t[3];
        lane3(s ? b : a, l, got);
        const double hn = v3_dot(h, nn[l]);
        for (int k = 0; k < 3; k++)
          t[k] = h[k] - hn * nn[l][k];
        const double hl = v3_norm(h), tl = v3_norm(t);
        if (hl == 0) {
          ck_assert(got[0] == 0 && got[1] == 0 && got[2] == 0);
          continue;
        }
        for (int k = 0; k < 3; k++)
          ck_assert_msg(fabs(got[k] - t[k] * hl / tl) <= 1e-14 * hl,
                        "trial %d lane %d spring %d component %d: %.17g, "
                        "want %.17g",
                        trial, l, s, k, got[k], t[k] * hl / tl);
        ck_assert_msg(fabs(v3_norm(got) - hl) <= 1e-14 * hl,
                      "length %.17g of %.17g", v3_norm(got), hl);
      }
  }
}
END_TEST

/* Capping: a spring longer than its limit is scaled to the limit (its
 * direction kept), one within it is kept bitwise, and `over` says which;
 * a zero limit caps any nonzero spring to zero. */
START_TEST(springs_over_their_limit_are_capped_to_it) {
  struct dem_rng r;
  dem_rng_seed(&r, 12);
  for (int trial = 0; trial < 200; trial++) {
    vd a[3], b[3], la, lb;
    double ha[DEM_VW][3], hb[DEM_VW][3];
    for (int l = 0; l < DEM_VW; l++) {
      random3(&r, ha[l], 10.0);
      random3(&r, hb[l], 1e-3);
      la[l] = v3_norm(ha[l]) * uniform(&r, 0.5, 1.5);
      lb[l] = trial % 5 == 0 ? 0.0 : v3_norm(hb[l]) * uniform(&r, 0.5, 1.5);
      for (int k = 0; k < 3; k++)
        a[k][l] = ha[l][k], b[k][l] = hb[l][k];
    }
    vm over[2];
    cap2(a, la, b, lb, over);
    for (int l = 0; l < DEM_VW; l++)
      for (int s = 0; s < 2; s++) {
        const double *h = s ? hb[l] : ha[l], limit = s ? lb[l] : la[l];
        double got[3];
        lane3(s ? b : a, l, got);
        const int want_over = v3_norm(h) > limit;
        ck_assert_msg((over[s][l] != 0) == want_over,
                      "trial %d lane %d spring %d: over %lld, |h| %.17g, "
                      "limit %.17g",
                      trial, l, s, (long long)over[s][l], v3_norm(h), limit);
        for (int k = 0; k < 3; k++) {
          const double want = want_over ? h[k] * limit / v3_norm(h) : h[k];
          ck_assert_msg(want_over ? fabs(got[k] - want) <= 1e-15 * v3_norm(h)
                                  : got[k] == want,
                        "trial %d lane %d spring %d component %d: %.17g, "
                        "want %.17g",
                        trial, l, s, k, got[k], want);
        }
      }
  }
}
END_TEST

static Suite *lanes_suite(void) {
  Suite *s = suite_create("lanes");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc,
                 pair_kinematics_are_the_bodies_motion_at_the_contact_point);
  tcase_add_test(tc, wall_kinematics_are_the_sphere_motion_at_the_wall);
  tcase_add_test(tc, selects_and_splats_keep_every_bit);
  tcase_add_test(tc, transposes_turn_rows_into_columns);
  tcase_add_test(tc, history_blocks_are_each_lanes_components);
  tcase_add_test(tc, springs_turned_into_the_plane_keep_their_length);
  tcase_add_test(tc, springs_over_their_limit_are_capped_to_it);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(lanes_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
