/* The point of a triangle closest to a point, and which part of the
 * triangle it lies on (face, edge or vertex): static inline, no state. */
#ifndef DEM_TRIANGLE_H
#define DEM_TRIANGLE_H

#include "core/vec3.h"

/* Where on a triangle a closest point lies. */
enum dem_tri_feature {
  DEM_TRI_FACE = 0,
  DEM_TRI_EDGE_AB = 1,
  DEM_TRI_EDGE_BC = 2,
  DEM_TRI_EDGE_CA = 3,
  DEM_TRI_VERTEX_A = 4,
  DEM_TRI_VERTEX_B = 5,
  DEM_TRI_VERTEX_C = 6
};

/* The point c of triangle (a, b, c) closest to p, by the regions of Ericson
 * (Real-Time Collision Detection, 5.1.5), and its feature. */
static inline enum dem_tri_feature
dem_triangle_closest(const double p[3], const double a[3], const double b[3],
                     const double c[3], double out[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  v3_sub(ab, b, a);
  v3_sub(ac, c, a);
  v3_sub(ap, p, a);
  double d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    v3_copy(out, a);
    return DEM_TRI_VERTEX_A;
  }
  v3_sub(bp, p, b);
  double d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    v3_copy(out, b);
    return DEM_TRI_VERTEX_B;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    double v = d1 / (d1 - d3);
    v3_copy(out, a);
    v3_axpy(out, v, ab);
    return DEM_TRI_EDGE_AB;
  }
  v3_sub(cp, p, c);
  double d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    v3_copy(out, c);
    return DEM_TRI_VERTEX_C;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    double w = d2 / (d2 - d6);
    v3_copy(out, a);
    v3_axpy(out, w, ac);
    return DEM_TRI_EDGE_CA;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    double bc[3];
    v3_sub(bc, c, b);
    v3_copy(out, b);
    v3_axpy(out, w, bc);
    return DEM_TRI_EDGE_BC;
  }
  double denom = 1.0 / (va + vb + vc);
  double v = vb * denom, w = vc * denom;
  v3_copy(out, a);
  v3_axpy(out, v, ab);
  v3_axpy(out, w, ac);
  return DEM_TRI_FACE;
}

#endif
