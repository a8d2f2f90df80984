/* Vectors of DEM_VW doubles for lane kernels (GCC/clang vector extensions):
 * each operation is the scalar one in every lane, so a lane's result is
 * bitwise what the scalar code gives. Branches become selects: both sides
 * are computed in every lane, and each lane keeps the side it takes.
 * Include in files compiled with -fno-math-errno (so that vsqrt is one
 * instruction; CMakeLists.txt sets it for the files named *_lanes.c). */
#ifndef DEM_LANES_H
#define DEM_LANES_H

#include <math.h>
#include <string.h>

#include "contact/model.h"
#include "sim/sim.h"

/* Vectors passed between static functions change no ABI that matters
 * here (everything is inlined in one file). */
#pragma GCC diagnostic ignored "-Wpsabi"

/* As wide as the target's vectors: wider ones are lowered lane by lane
 * where they are compared. */
#ifdef __AVX__
#include <immintrin.h>
#define DEM_VW 4
#else
#define DEM_VW 2
#endif
typedef double vd __attribute__((vector_size(DEM_VW * sizeof(double))));
typedef long long vm __attribute__((vector_size(DEM_VW * sizeof(double))));

_Static_assert(DEM_LANES_VW % DEM_VW == 0, "whole vectors of lanes");

static inline vd vload(const double *p) {
  vd v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void vstore(double *p, vd v) { memcpy(p, &v, sizeof v); }
/* x in every lane (not 0 + x: that turns -0 into +0). */
static inline vd vsplat(double x) {
  vd v;
  for (int l = 0; l < DEM_VW; l++)
    v[l] = x;
  return v;
}
static inline vd vsqrt(vd a) {
  vd r;
  for (int l = 0; l < DEM_VW; l++)
    r[l] = sqrt(a[l]);
  return r;
}
/* Whether any lane of m (from a comparison) is set. */
static inline int vany(vm m) {
#if DEM_VW == 4
  return !_mm256_testz_si256((__m256i)m, (__m256i)m);
#else
  return (m[0] | m[1]) != 0;
#endif
}

/* Each lane: m ? a : b (m from a comparison: all ones or all zeros). */
static inline vd vsel(vm m, vd a, vd b) {
  return (vd)((m & (vm)a) | (~m & (vm)b));
}

/* Component q of the histories h of lanes [l, l + DEM_VW), and back. */
static inline vd vgather(double *const *h, int l, int q) {
  vd r;
  for (int a = 0; a < DEM_VW; a++)
    r[a] = h[l + a][q];
  return r;
}
static inline void vscatter(double *const *h, int l, int q, vd v) {
  for (int a = 0; a < DEM_VW; a++)
    h[l + a][q] = v[a];
}

/* Each lane's DEM_VW doubles as one vector, to components, one vector
 * each (and back: the transpose is its own inverse). */
static inline void vtranspose(vd r[DEM_VW]) {
#if DEM_VW == 4
  vd t0 = __builtin_shufflevector(r[0], r[1], 0, 4, 2, 6);
  vd t1 = __builtin_shufflevector(r[0], r[1], 1, 5, 3, 7);
  vd t2 = __builtin_shufflevector(r[2], r[3], 0, 4, 2, 6);
  vd t3 = __builtin_shufflevector(r[2], r[3], 1, 5, 3, 7);
  r[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  r[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  r[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  r[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
#else
  vd t0 = __builtin_shufflevector(r[0], r[1], 0, 2);
  r[1] = __builtin_shufflevector(r[0], r[1], 1, 3);
  r[0] = t0;
#endif
}

/* Components [q0, q1) (q1 - q0 >= DEM_VW) of the histories h of lanes
 * [l, l + DEM_VW) into r[q0..q1), one vector each: vgather's values, read
 * DEM_VW at a time from each history and transposed (the last block may
 * overlap the one before). */
static inline void vgather_range(vd *r, double *const *h, int l, int q0,
                                 int q1) {
  for (int q = q0;; q += DEM_VW) {
    if (q + DEM_VW > q1)
      q = q1 - DEM_VW;
    vd b[DEM_VW];
    for (int a = 0; a < DEM_VW; a++)
      b[a] = vload(h[l + a] + q);
    vtranspose(b);
    for (int k = 0; k < DEM_VW; k++)
      r[q + k] = b[k];
    if (q + DEM_VW == q1)
      return;
  }
}

/* r[q0..q1) into components [q0, q1) of the histories: vscatter's
 * writes, DEM_VW at a time to each history. */
static inline void vscatter_range(double *const *h, int l, int q0, int q1,
                                  const vd *r) {
  for (int q = q0;; q += DEM_VW) {
    if (q + DEM_VW > q1)
      q = q1 - DEM_VW;
    vd b[DEM_VW];
    for (int k = 0; k < DEM_VW; k++)
      b[k] = r[q + k];
    vtranspose(b);
    for (int a = 0; a < DEM_VW; a++)
      vstore(h[l + a] + q, b[a]);
    if (q + DEM_VW == q1)
      return;
  }
}

/* 3-vectors of lanes, as core/vec3.h's, the same operations in the same
 * order. */
static inline void w3_load(vd r[3], const double (*p)[DEM_LANES], int l) {
  for (int k = 0; k < 3; k++)
    r[k] = vload(p[k] + l);
}
static inline void w3_store(double (*p)[DEM_LANES], int l, const vd a[3]) {
  for (int k = 0; k < 3; k++)
    vstore(p[k] + l, a[k]);
}
static inline void w3_gather(vd r[3], double *const *h, int l, int q) {
  for (int k = 0; k < 3; k++)
    r[k] = vgather(h, l, q + k);
}
static inline void w3_scatter(double *const *h, int l, int q, const vd a[3]) {
  for (int k = 0; k < 3; k++)
    vscatter(h, l, q + k, a[k]);
}
static inline vd w3_dot(const vd a[3], const vd b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void w3_add(vd r[3], const vd a[3], const vd b[3]) {
  for (int k = 0; k < 3; k++)
    r[k] = a[k] + b[k];
}
static inline void w3_sub(vd r[3], const vd a[3], const vd b[3]) {
  for (int k = 0; k < 3; k++)
    r[k] = a[k] - b[k];
}
static inline void w3_scale(vd r[3], const vd a[3], vd s) {
  for (int k = 0; k < 3; k++)
    r[k] = a[k] * s;
}
/* r += s * a */
static inline void w3_axpy(vd r[3], vd s, const vd a[3]) {
  for (int k = 0; k < 3; k++)
    r[k] += s * a[k];
}
static inline void w3_cross(vd r[3], const vd a[3], const vd b[3]) {
  vd x = a[1] * b[2] - a[2] * b[1];
  vd y = a[2] * b[0] - a[0] * b[2];
  vd z = a[0] * b[1] - a[1] * b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline void w3_copy(vd r[3], const vd a[3]) {
  for (int k = 0; k < 3; k++)
    r[k] = a[k];
}
static inline void w3_sel(vd r[3], vm m, const vd a[3], const vd b[3]) {
  for (int k = 0; k < 3; k++)
    r[k] = vsel(m, a[k], b[k]);
}

/* What struct dem_pair holds, for DEM_VW lanes. */
struct vpair {
  vd d[3], dist, inv_dist /* 1 / dist */, overlap, rstar, ri, rj, arm_i, arm_j;
  vd mi, mj, mstar, v[3], w[3], v_move[3], w_move[3];
  vd inertia; /* DEM_LANES_PAIRS only (where mi and mj are not set) */
};

/* Lanes [l, l + DEM_VW) of `in` as the loop filled them (DEM_LANES_GIVEN). */
static inline void dem_lanes_load(const struct dem_lanes *in, int l,
                                  struct vpair *g) {
  w3_load(g->d, in->d, l);
  g->dist = vload(in->dist + l);
  g->inv_dist = 1.0 / g->dist;
  g->overlap = vload(in->overlap + l);
  g->rstar = vload(in->rstar + l);
  g->ri = vload(in->ri + l);
  g->rj = vload(in->rj + l);
  g->arm_i = vload(in->arm_i + l);
  g->arm_j = vload(in->arm_j + l);
  g->mi = vload(in->mi + l);
  g->mj = vload(in->mj + l);
  g->mstar = vload(in->mstar + l);
  w3_load(g->v, in->v, l);
  w3_load(g->w, in->w, l);
  w3_load(g->v_move, in->v_move, l);
  w3_load(g->w_move, in->w_move, l);
}

/* Component k of a[idx[l + a]], the bodies of lanes [l, l + DEM_VW). */
static inline vd vbody(const double *a, int width, const int *idx, int l,
                       int k) {
  vd r;
  for (int n = 0; n < DEM_VW; n++)
    r[n] = a[idx[l + n] * width + k];
  return r;
}
static inline void w3_body(vd r[3], const double (*a)[3], const int *idx,
                           int l) {
  for (int k = 0; k < 3; k++)
    r[k] = vbody(a[0], 3, idx, l, k);
}

/* The velocity of the material at p of bodies at xb moving at v, w. */
static inline void vpoint_velocity(vd out[3], const vd p[3], const vd xb[3],
                                   const vd v[3], const vd w[3]) {
  vd arm[3], wxr[3];
  w3_sub(arm, p, xb);
  w3_cross(wxr, w, arm);
  w3_add(out, v, wxr);
}

/* At p, the bodies idx[l + a]: the material's velocity vc and the body's
 * angular velocity wc that the forces see (v_contact, w_contact), and
 * those of the motion, vm and wm (v, w_move). */
static inline void vbody_motion(const struct dem_bodies *b, const int *idx,
                                int l, const vd p[3], vd vc[3], vd wc[3],
                                vd vm[3], vd wm[3]) {
  vd xb[3], v[3];
  w3_body(xb, b->x, idx, l);
  w3_body(v, b->v_contact, idx, l);
  w3_body(wc, b->w_contact, idx, l);
  vpoint_velocity(vc, p, xb, v, wc);
  w3_body(v, b->v, idx, l);
  w3_body(wm, b->w_move, idx, l);
  vpoint_velocity(vm, p, xb, v, wm);
}

/* The bodies' motion as the pair and flat-wall lanes read it, a row of
 * DEM_KIN doubles a body: x, v_contact, w_contact, v, w_move and the mass.
 * A vector of lanes then loads DEM_VW rows and transposes them, where it
 * gathered 15 doubles of each body one at a time (a quarter of the dense
 * pile's law). */
#define DEM_KIN 16
enum {
  DEM_KIN_X = 0,
  DEM_KIN_VC = 3,
  DEM_KIN_WC = 6,
  DEM_KIN_V = 9,
  DEM_KIN_WM = 12,
  DEM_KIN_MASS = 15
};

/* Bodies [i0, i1) of b into their rows of kin. Each 3-vector goes as
 * four doubles, the next body's first component in the fourth, which the
 * next vector's store (or, for w_move, the mass) takes: a load and a
 * store each. The last body of the arrays (n) has nothing after its
 * vectors: three doubles each. */
static inline void dem_lanes_pack_bodies(const struct dem_bodies *b, size_t i0,
                                         size_t i1, size_t n, double *kin) {
  enum { N_VEC = 5 };
  static const int at[N_VEC] = {DEM_KIN_X, DEM_KIN_VC, DEM_KIN_WC, DEM_KIN_V,
                                DEM_KIN_WM};
  const double(*const from[N_VEC])[3] = {b->x, b->v_contact, b->w_contact, b->v,
                                         b->w_move};
  const size_t i4 = i1 < n ? i1 : n - 1; /* rows read four at a time */
  for (size_t i = i0; i < i4; i++) {
    for (int a = 0; a < N_VEC; a++)
      for (int q = 0; q < 4; q += DEM_VW)
        vstore(kin + i * DEM_KIN + at[a] + q, vload(from[a][i] + q));
    kin[i * DEM_KIN + DEM_KIN_MASS] = b->mass[i];
  }
  for (size_t i = i4 > i0 ? i4 : i0; i < i1; i++) {
    for (int a = 0; a < N_VEC; a++)
      memcpy(kin + i * DEM_KIN + at[a], from[a][i], sizeof from[a][i]);
    kin[i * DEM_KIN + DEM_KIN_MASS] = b->mass[i];
  }
}

/* vbody_motion's values from the packed rows kin of the bodies idx[l + a]:
 * the same numbers, so the same operations on them; their masses into
 * *mass if it is not NULL. */
static inline void vkin_motion(const double *kin, const int *idx, int l,
                               const vd p[3], vd vc[3], vd wc[3], vd vm[3],
                               vd wm[3], vd *mass) {
  vd r[DEM_KIN];
  for (int q = 0; q < DEM_KIN; q += DEM_VW) {
    vd b[DEM_VW];
    for (int a = 0; a < DEM_VW; a++)
      b[a] = vload(kin + (size_t)idx[l + a] * DEM_KIN + q);
    vtranspose(b);
    for (int k = 0; k < DEM_VW; k++)
      r[q + k] = b[k];
  }
  w3_copy(wc, r + DEM_KIN_WC);
  vpoint_velocity(vc, p, r + DEM_KIN_X, r + DEM_KIN_VC, wc);
  w3_copy(wm, r + DEM_KIN_WM);
  vpoint_velocity(vm, p, r + DEM_KIN_X, r + DEM_KIN_V, wm);
  if (mass)
    *mass = r[DEM_KIN_MASS];
}

/* Flat walls' lanes [l, l + DEM_VW): the rest of the geometry
 * (dem_wall_touch) and the kinematics (dem_pair_kinematics against a wall
 * at rest) that contact/loop.h gives one contact at a time, the same
 * values (the arm times 1/dist rather than over dist: dist is 1). */
static inline void dem_lanes_wall(const struct dem_lanes *in, int l,
                                  struct vpair *g) {
  const struct dem_bodies *b = in->bodies;
  const vd zero = vsplat(0.0);
  w3_load(g->d, in->d, l);
  g->dist = vload(in->dist + l);
  g->inv_dist = 1.0 / g->dist;
  g->overlap = vload(in->overlap + l);
  g->ri = g->rstar = vload(in->ri + l);
  g->rj = g->arm_j = zero;
  g->arm_i = vload(in->arm_i + l);

  vd p[3];
  w3_load(p, in->x, l);
  w3_axpy(p, -g->arm_i * g->inv_dist, g->d);
  if (in->kin) {
    vkin_motion(in->kin, in->bi, l, p, g->v, g->w, g->v_move, g->w_move,
                &g->mi);
  } else {
    vbody_motion(b, in->bi, l, p, g->v, g->w, g->v_move, g->w_move);
    g->mi = vbody(b->mass, 1, in->bi, l, 0);
  }
  g->mstar = g->mi;
  g->mj = zero;
}

/* Sphere-sphere pairs' lanes [l, l + DEM_VW): the geometry and kinematics
 * that dem_pair_close and dem_pair_kinematics (contact/loop.h) give one
 * contact at a time, the same operations but one: the contact point's
 * arm is taken times 1/dist, which the law's normal shares, where the
 * scalar code divides by dist (one division fewer; the point may differ
 * in its last bit). R*, m* and the rolling inertia as the list's build
 * computed them (the bodies' masses not read). */
static inline void dem_lanes_pair(const struct dem_lanes *in, int l,
                                  struct vpair *g) {
  const struct dem_bodies *b = in->bodies;
  const vd rsum = vload(in->rsum + l);
  w3_load(g->d, in->d, l);
  g->dist = vsqrt(vload(in->dist + l));
  g->inv_dist = 1.0 / g->dist;
  g->overlap = rsum - g->dist;
  g->ri = vload(in->ri + l);
  g->rj = vload(in->rj + l);
  g->rstar = vload(in->rstar + l);
  g->arm_i = g->ri - 0.5 * g->overlap;
  g->arm_j = g->rj - 0.5 * g->overlap;

  vd p[3], wc_i[3], wm_i[3], wc_j[3], wm_j[3];
  vd vi[3], mi[3], vj[3], mj[3];
  w3_load(p, in->x, l);
  w3_axpy(p, -g->arm_i * g->inv_dist, g->d);
  if (in->kin)
    vkin_motion(in->kin, in->bi, l, p, vi, wc_i, mi, wm_i, NULL);
  else
    vbody_motion(b, in->bi, l, p, vi, wc_i, mi, wm_i);
  if (in->periodic) { /* the point in the partner's image */
    vd shift[3];
    w3_load(shift, in->shift, l);
    w3_sub(p, p, shift);
  }
  if (in->kin)
    vkin_motion(in->kin, in->bj, l, p, vj, wc_j, mj, wm_j, NULL);
  else
    vbody_motion(b, in->bj, l, p, vj, wc_j, mj, wm_j);
  w3_sub(g->v, vi, vj);
  w3_sub(g->v_move, mi, mj);
  w3_sub(g->w, wc_i, wc_j);
  w3_sub(g->w_move, wm_i, wm_j);
  g->mstar = vload(in->mstar + l);
  g->inertia = vload(in->inertia + l);
}

#endif
