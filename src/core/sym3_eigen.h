/* Symmetric 3x3 eigen-solver (cyclic Jacobi), rotation matrix -> quaternion. */
#ifndef DEM_SYM3_EIGEN_H
#define DEM_SYM3_EIGEN_H

/* Eigen-decomposition of the symmetric 3x3 matrix a (row-major; only the
 * upper triangle is read). eval: eigenvalues, ascending. evec (row-major):
 * column k is the unit eigenvector of eval[k]; the columns form a
 * right-handed orthonormal frame (det +1). Deterministic: a fixed cyclic
 * Jacobi sweep order, a stable sort, and each of the first two columns
 * signed so that its largest-magnitude component (the first one on a tie) is
 * positive; the third column is their cross product. A diagonal matrix with
 * ascending (or equal) entries gives the identity. */
void dem_sym3_eigen(const double a[9], double eval[3], double evec[9]);

/* Unit quaternion (w, x, y, z), w >= 0, of a rotation matrix r (row-major,
 * lab = r body, as q_to_matrix), by Shepperd's method: robust for every
 * rotation angle including 180 degrees. r must be close to orthonormal with
 * det +1; the result is normalised. */
void dem_mat3_to_quat(const double r[9], double q[4]);

#endif
