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

/* Vectors passed between static functions change no ABI that matters
 * here (everything is inlined in one file). */
#pragma GCC diagnostic ignored "-Wpsabi"

/* As wide as the target's vectors: wider ones are lowered lane by lane
 * where they are compared. */
#ifdef __AVX__
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

#endif
