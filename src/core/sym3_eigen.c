/* Symmetric 3x3 eigen-solver (cyclic Jacobi), rotation matrix -> quaternion. */
#include "core/sym3_eigen.h"

#include <float.h>
#include <math.h>

enum { MAX_SWEEPS = 64 };

/* One Jacobi rotation zeroing a[p][q] of the full symmetric matrix a, with
 * the rotation accumulated into the columns of v. */
static void jacobi_rotate(double a[3][3], double v[3][3], int p, int q) {
  double apq = a[p][q];
  double theta = (a[q][q] - a[p][p]) / (2.0 * apq);
  double t;
  if (fabs(theta) > 1e150)
    t = 0.5 / theta;
  else
    t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
  double c = 1.0 / sqrt(t * t + 1.0);
  double s = t * c;
  a[p][p] -= t * apq;
  a[q][q] += t * apq;
  a[p][q] = a[q][p] = 0.0;
  for (int r = 0; r < 3; r++) {
    if (r != p && r != q) {
      double arp = a[r][p], arq = a[r][q];
      a[r][p] = a[p][r] = c * arp - s * arq;
      a[r][q] = a[q][r] = s * arp + c * arq;
    }
    double vrp = v[r][p], vrq = v[r][q];
    v[r][p] = c * vrp - s * vrq;
    v[r][q] = s * vrp + c * vrq;
  }
}

/* Flips column k of v so that its largest-magnitude component is positive. */
static void canonical_sign(double v[3][3], int k) {
  int imax = 0;
  for (int i = 1; i < 3; i++)
    if (fabs(v[i][k]) > fabs(v[imax][k]))
      imax = i;
  if (v[imax][k] < 0)
    for (int i = 0; i < 3; i++)
      v[i][k] = -v[i][k];
}

void dem_sym3_eigen(const double a_in[9], double eval[3], double evec[9]) {
  static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  double a[3][3], v[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      a[i][j] = i <= j ? a_in[3 * i + j] : a_in[3 * j + i];
      v[i][j] = i == j ? 1.0 : 0.0;
    }
  for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    int rotated = 0;
    for (int k = 0; k < 3; k++) {
      int p = pairs[k][0], q = pairs[k][1];
      double apq = a[p][q];
      if (apq == 0.0)
        continue;
      /* Negligible against both diagonal entries: drop it (the eigenvalues
       * would not change in double precision). */
      double scale = fabs(a[p][p]) + fabs(a[q][q]);
      if (fabs(apq) <= 1e-3 * DBL_EPSILON * scale) {
        a[p][q] = a[q][p] = 0.0;
        continue;
      }
      jacobi_rotate(a, v, p, q);
      rotated = 1;
    }
    if (!rotated)
      break;
  }
  /* Stable insertion sort of the eigenpairs, ascending. */
  int idx[3] = {0, 1, 2};
  for (int i = 1; i < 3; i++) {
    int cur = idx[i], j = i - 1;
    while (j >= 0 && a[idx[j]][idx[j]] > a[cur][cur]) {
      idx[j + 1] = idx[j];
      j--;
    }
    idx[j + 1] = cur;
  }
  double w[3][3];
  for (int k = 0; k < 3; k++) {
    eval[k] = a[idx[k]][idx[k]];
    for (int i = 0; i < 3; i++)
      w[i][k] = v[i][idx[k]];
  }
  canonical_sign(w, 0);
  canonical_sign(w, 1);
  /* Third axis = first x second: right-handed by construction. */
  w[0][2] = w[1][0] * w[2][1] - w[2][0] * w[1][1];
  w[1][2] = w[2][0] * w[0][1] - w[0][0] * w[2][1];
  w[2][2] = w[0][0] * w[1][1] - w[1][0] * w[0][1];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      evec[3 * i + k] = w[i][k];
}

void dem_mat3_to_quat(const double r[9], double q[4]) {
  double m00 = r[0], m01 = r[1], m02 = r[2];
  double m10 = r[3], m11 = r[4], m12 = r[5];
  double m20 = r[6], m21 = r[7], m22 = r[8];
  double tr = m00 + m11 + m22;
  double w, x, y, z;
  /* Shepperd: take the square root of the largest of 4w^2-1 (= tr),
   * 4x^2-1, 4y^2-1, 4z^2-1 (up to the same affine map), then the others
   * from off-diagonal sums/differences divided by it. */
  if (tr >= m00 && tr >= m11 && tr >= m22) {
    double s = 2.0 * sqrt(fmax(1.0 + tr, 0.0));
    w = 0.25 * s;
    x = (m21 - m12) / s;
    y = (m02 - m20) / s;
    z = (m10 - m01) / s;
  } else if (m00 >= m11 && m00 >= m22) {
    double s = 2.0 * sqrt(fmax(1.0 + m00 - m11 - m22, 0.0));
    x = 0.25 * s;
    w = (m21 - m12) / s;
    y = (m01 + m10) / s;
    z = (m02 + m20) / s;
  } else if (m11 >= m22) {
    double s = 2.0 * sqrt(fmax(1.0 - m00 + m11 - m22, 0.0));
    y = 0.25 * s;
    w = (m02 - m20) / s;
    x = (m01 + m10) / s;
    z = (m12 + m21) / s;
  } else {
    double s = 2.0 * sqrt(fmax(1.0 - m00 - m11 + m22, 0.0));
    z = 0.25 * s;
    w = (m10 - m01) / s;
    x = (m02 + m20) / s;
    y = (m12 + m21) / s;
  }
  double n = sqrt(w * w + x * x + y * y + z * z);
  double sign = 1.0;
  /* Canonical sign: w > 0, or on w == 0 the first nonzero component > 0. */
  if (w < 0 || (w == 0 && (x < 0 || (x == 0 && (y < 0 || (y == 0 && z < 0))))))
    sign = -1.0;
  q[0] = sign * w / n;
  q[1] = sign * x / n;
  q[2] = sign * y / n;
  q[3] = sign * z / n;
}
