/* Exact area moments of a union of disks in one plane (a clump slice). */
#include <math.h>
#include <stdlib.h>

#include "shape/clump_internal.h"

/* Antiderivatives at angle t of the trigonometric monomials the arc
 * integrals need: f[0] c, f[1] s, f[2] c^2, f[3] s^2, f[4] c^3, f[5] s^3,
 * f[6] c^4, f[7] s^4, f[8] s c, f[9] c^2 s, f[10] c^3 s. */
static void trig_antiderivatives(double t, double f[11]) {
  double c = cos(t), s = sin(t);
  double s2 = 2 * s * c, c2 = c * c - s * s; /* sin 2t, cos 2t */
  double s4 = 2 * s2 * c2;                   /* sin 4t */
  f[0] = s;
  f[1] = -c;
  f[2] = 0.5 * t + 0.5 * s * c;
  f[3] = 0.5 * t - 0.5 * s * c;
  f[4] = s - s * s * s / 3.0;
  f[5] = -c + c * c * c / 3.0;
  f[6] = 0.375 * t + 0.25 * s2 + s4 / 32.0;
  f[7] = 0.375 * t - 0.25 * s2 + s4 / 32.0;
  f[8] = 0.5 * s * s;
  f[9] = -c * c * c / 3.0;
  f[10] = -0.25 * c * c * c * c;
}

/* Adds to m[6] = {A, int x, int y, int x^2, int y^2, int xy} (over the
 * area) the Green's-theorem line integrals along the counter-clockwise arc
 * t1..t2 of the circle of centre (a, b) and radius r, given the
 * antiderivatives f1 at t1 and f2 at t2:
 * A = int x dy, int x = int x^2/2 dy, int y = -int y^2/2 dx,
 * int x^2 = int x^3/3 dy, int y^2 = -int y^3/3 dx, int xy = int x^2 y/2 dy. */
static void arc_integrals(double a, double b, double r, const double f1[11],
                          const double f2[11], double m[6]) {
  double g[11];
  for (int i = 0; i < 11; i++)
    g[i] = f2[i] - f1[i];
  double r2 = r * r, r3 = r2 * r;
  m[0] += a * r * g[0] + r2 * g[2];
  m[1] += 0.5 * r * (a * a * g[0] + 2 * a * r * g[2] + r2 * g[4]);
  m[2] += 0.5 * r * (b * b * g[1] + 2 * b * r * g[3] + r2 * g[5]);
  m[3] += r *
          (a * a * a * g[0] + 3 * a * a * r * g[2] + 3 * a * r2 * g[4] +
           r3 * g[6]) /
          3.0;
  m[4] += r *
          (b * b * b * g[1] + 3 * b * b * r * g[3] + 3 * b * r2 * g[5] +
           r3 * g[7]) /
          3.0;
  m[5] += 0.5 * r *
          (a * a * b * g[0] + a * a * r * g[8] + 2 * a * b * r * g[2] +
           2 * a * r2 * g[9] + b * r2 * g[4] + r3 * g[10]);
}

void dem_disk_union_prepare(struct slice_work *w, size_t n) {
  const struct dem_sphere_adjacency *adj = w->adj;
  const double *ref = w->ref;
  for (size_t i = 0; i < n; i++) {
    /* As the disks have them: centres relative to ref, then j - i. */
    double ai = w->sp[i].center[0] - ref[0], bi = w->sp[i].center[1] - ref[1];
    for (size_t e = adj->start[i]; e < adj->start[i + 1]; e++) {
      const double *cj = w->sp[adj->nbr[e]].center;
      w->theta[e] = atan2((cj[1] - ref[1]) - bi, (cj[0] - ref[0]) - ai);
    }
  }
  trig_antiderivatives(0.0, w->f_zero);
  trig_antiderivatives(2.0 * DEM_PI, w->f_two_pi);
}

static int compare_interval(const void *pa, const void *pb) {
  const struct interval *a = pa, *b = pb;
  return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Sorts k angular intervals by their start: insertion sort when k is small
 * (stable: the order every clump had before the neighbour search), qsort
 * otherwise (the merge below gives the same union for any order of equal
 * starts). */
static void sort_intervals(struct interval *iv, size_t k) {
  if (k > 32) {
    qsort(iv, k, sizeof *iv, compare_interval);
    return;
  }
  for (size_t i = 1; i < k; i++) {
    struct interval x = iv[i];
    size_t j = i;
    while (j > 0 && iv[j - 1].lo > x.lo) {
      iv[j] = iv[j - 1];
      j--;
    }
    iv[j] = x;
  }
}

/* Exact area moments m[6] (see arc_integrals) of the union of the k disks
 * (a_i, b_i, rho_i): each circle contributes the arcs that no other disk
 * covers. A disk inside another contributes nothing; of identical disks the
 * first one counts. Only disks of neighbouring spheres can cover a circle,
 * so each circle looks at those alone. The antiderivatives at an arc's ends
 * are evaluated once each, and taken from w at 0 and 2 pi. */
void dem_disk_union_moments(size_t k, struct slice_work *w, double m[6]) {
  const double two_pi = 2.0 * DEM_PI;
  const struct dem_sphere_adjacency *adj = w->adj;
  for (int q = 0; q < 6; q++)
    m[q] = 0.0;
  for (size_t i = 0; i < k; i++) {
    double ai = w->a[i], bi = w->b[i], ri = w->rho[i];
    size_t na = 0, si = w->disk_sphere[i];
    int covered = 0;
    for (size_t e = adj->start[si]; e < adj->start[si + 1] && !covered; e++) {
      long jl = w->slot[adj->nbr[e]];
      if (jl < 0)
        continue;
      size_t j = (size_t)jl;
      double dx = w->a[j] - ai, dy = w->b[j] - bi, rj = w->rho[j];
      double d2 = dx * dx + dy * dy;
      if (d2 >= (ri + rj) * (ri + rj))
        continue; /* apart or touching from outside */
      double d = sqrt(d2);
      if (rj >= d + ri) { /* circle i inside disk j */
        if (rj > ri || d > 0 || j < i)
          covered = 1;
        continue;
      }
      if (ri >= d + rj)
        continue; /* disk j inside disk i */
      double ca = (ri * ri + d2 - rj * rj) / (2.0 * ri * d);
      double alpha = acos(ca < -1.0 ? -1.0 : ca > 1.0 ? 1.0 : ca);
      double lo = w->theta[e] - alpha;
      if (lo < 0)
        lo += two_pi;
      double hi = lo + 2.0 * alpha;
      if (hi > two_pi) { /* wraps past 0: split */
        w->arcs[na++] = (struct interval){0.0, hi - two_pi};
        hi = two_pi;
      }
      w->arcs[na++] = (struct interval){lo, hi};
    }
    if (covered)
      continue;
    if (na == 0) {
      arc_integrals(ai, bi, ri, w->f_zero, w->f_two_pi, m);
      continue;
    }
    sort_intervals(w->arcs, na);
    double t = 0.0; /* end of the covered part so far */
    double ft[11], flo[11];
    for (size_t c = 0; c < na; c++) {
      double lo = w->arcs[c].lo, hi = w->arcs[c].hi;
      if (lo > t) {
        if (t != 0.0)
          trig_antiderivatives(t, ft);
        trig_antiderivatives(lo, flo);
        arc_integrals(ai, bi, ri, t != 0.0 ? ft : w->f_zero, flo, m);
      }
      t = hi > t ? hi : t;
    }
    if (t < two_pi) {
      if (t != 0.0)
        trig_antiderivatives(t, ft);
      arc_integrals(ai, bi, ri, t != 0.0 ? ft : w->f_zero, w->f_two_pi, m);
    }
  }
}
