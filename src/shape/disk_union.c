/* Exact area moments of a union of disks in one plane (a clump slice). */
#include <math.h>
#include <stdlib.h>

#include "shape/clump_internal.h"

/* The arcs of one circle as signed sums over their ends (+ at an arc's
 * end, - at its start) of t, s, c, s c, s^2, s^3, c^3, c^4 and
 * s c (c^2 - s^2), with c = cos t and s = sin t: the antiderivatives the
 * arc integrals need are combinations of these (arc_increases). */
struct arc_ends {
  double t, s, c, sc, ss, sss, ccc, cccc, x;
};

/* Adds the end at angle t (c = cos t, s = sin t) with sign sg. */
static void add_end(struct arc_ends *e, double t, double c, double s,
                    double sg) {
  double cc = c * c, ss = s * s, sc = s * c;
  e->t += sg * t;
  e->s += sg * s;
  e->c += sg * c;
  e->sc += sg * sc;
  e->ss += sg * ss;
  e->sss += sg * ss * s;
  e->ccc += sg * cc * c;
  e->cccc += sg * cc * cc;
  e->x += sg * sc * (cc - ss);
}

/* The increase over the arcs of e of the antiderivatives of the
 * trigonometric monomials g[0] c, g[1] s, g[2] c^2, g[3] s^2, g[4] c^3,
 * g[5] s^3, g[6] c^4, g[7] s^4, g[8] s c, g[9] c^2 s, g[10] c^3 s
 * (sin 2t = 2 s c, sin 4t = 4 s c (c^2 - s^2)). */
static void arc_increases(const struct arc_ends *e, double g[11]) {
  g[0] = e->s;
  g[1] = -e->c;
  g[2] = 0.5 * e->t + 0.5 * e->sc;
  g[3] = 0.5 * e->t - 0.5 * e->sc;
  g[4] = e->s - e->sss / 3.0;
  g[5] = -e->c + e->ccc / 3.0;
  g[6] = 0.375 * e->t + 0.5 * e->sc + 0.125 * e->x;
  g[7] = 0.375 * e->t - 0.5 * e->sc + 0.125 * e->x;
  g[8] = 0.5 * e->ss;
  g[9] = -e->ccc / 3.0;
  g[10] = -0.25 * e->cccc;
}

/* Adds to m[6] = {A, int x, int y, int x^2, int y^2, int xy} (over the
 * area) the Green's-theorem line integrals along counter-clockwise arcs of
 * the circle of centre (a, b) and radius r, given g, the sum over the arcs
 * of the antiderivatives' increase from start to end:
 * A = int x dy, int x = int x^2/2 dy, int y = -int y^2/2 dx,
 * int x^2 = int x^3/3 dy, int y^2 = -int y^3/3 dx, int xy = int x^2 y/2 dy. */
static void arc_integrals(double a, double b, double r, const double g[11],
                          double m[6]) {
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
      double dx = (cj[0] - ref[0]) - ai, dy = (cj[1] - ref[1]) - bi;
      double d = sqrt(dx * dx + dy * dy);
      /* Concentric disks never cut each other: the direction is unused. */
      w->dir[e] = d > 0 ? (struct direction){atan2(dy, dx), dx / d, dy / d}
                        : (struct direction){0.0, 1.0, 0.0};
    }
  }
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
 * so each circle looks at those alone. The cosine and sine of an arc's end
 * come from the angle theta to the neighbour's centre and the half-angle
 * alpha of the cut (cos alpha is exact from the radii): no sin or cos. */
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
      ca = ca < -1.0 ? -1.0 : ca > 1.0 ? 1.0 : ca;
      double alpha = acos(ca), sa = sqrt((1.0 - ca) * (1.0 + ca));
      const struct direction *dir = &w->dir[e];
      /* cos and sin of theta -+ alpha */
      double cc = dir->c * ca, ss = dir->s * sa, sc = dir->s * ca,
             cs = dir->c * sa;
      struct interval iv = {
          dir->theta - alpha, 0.0, cc + ss, sc - cs, cc - ss, sc + cs};
      if (iv.lo < 0)
        iv.lo += two_pi;
      iv.hi = iv.lo + 2.0 * alpha;
      if (iv.hi > two_pi) { /* wraps past 0: split */
        w->arcs[na++] =
            (struct interval){0.0, iv.hi - two_pi, 1.0, 0.0, iv.chi, iv.shi};
        iv.hi = two_pi; /* no arc starts there: chi, shi unused */
      }
      w->arcs[na++] = iv;
    }
    if (covered)
      continue;
    /* t: the end of the covered part so far; (ct, st) its cos and sin */
    double t = 0.0, ct = 1.0, st = 0.0, g[11];
    struct arc_ends ends = {0};
    sort_intervals(w->arcs, na);
    for (size_t c = 0; c < na; c++) {
      const struct interval *iv = &w->arcs[c];
      if (iv->lo > t) {
        add_end(&ends, t, ct, st, -1.0);
        add_end(&ends, iv->lo, iv->clo, iv->slo, 1.0);
      }
      if (iv->hi > t) {
        t = iv->hi;
        ct = iv->chi;
        st = iv->shi;
      }
    }
    if (t < two_pi) {
      add_end(&ends, t, ct, st, -1.0);
      add_end(&ends, two_pi, 1.0, 0.0, 1.0);
    }
    arc_increases(&ends, g);
    arc_integrals(ai, bi, ri, g, m);
  }
}
