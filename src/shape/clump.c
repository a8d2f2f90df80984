/* Clump mass properties: closed form, or exact slices of the union in z. */
#include "shape/clump.h"

#include <math.h>
#include <stdlib.h>

#include "core/quat.h"
#include "core/sym3_eigen.h"

/* The z extent is first cut into BASE_PANELS panels (and at every
 * breakpoint); refinement level L halves every panel L times. Level
 * MAX_LEVEL is the last one tried. */
enum { BASE_PANELS = 8, MAX_LEVEL = 10 };

/* Two spheres whose surfaces interpenetrate by less than this fraction of
 * r1 + r2 count as touching: the lens ignored is then ~1e-24 of a sphere. */
#define TOUCH_REL 1e-12

#define DEM_PI 3.14159265358979323846

/* Raw geometric moments of a solid about a reference point p (no density):
 * v = int dV, s[i] = int x_i dV, ss[3i+j] = int x_i x_j dV, x = r - p. */
struct moments {
  double v;
  double s[3];
  double ss[9];
};

static dem_status validate(const struct dem_sphere_def *spheres, size_t n,
                           double density, double tolerance,
                           const struct dem_clump_props *out) {
  if (out == NULL)
    return dem_fail(DEM_ERR_INTERNAL, "clump: no output given");
  if (n == 0 || spheres == NULL)
    return dem_fail(DEM_ERR_SETUP, "clump has no spheres");
  if (!(density > 0) || !isfinite(density))
    return dem_fail(DEM_ERR_SETUP,
                    "clump density must be positive and finite (got %g)",
                    density);
  if (!(tolerance > 0) || !isfinite(tolerance))
    return dem_fail(DEM_ERR_SETUP,
                    "clump tolerance must be positive and finite (got %g)",
                    tolerance);
  for (size_t i = 0; i < n; i++) {
    const double *c = spheres[i].center;
    double r = spheres[i].radius;
    if (!isfinite(c[0]) || !isfinite(c[1]) || !isfinite(c[2]))
      return dem_fail(DEM_ERR_SETUP,
                      "sphere %zu of the clump: centre must be finite "
                      "(got [%g, %g, %g])",
                      i, c[0], c[1], c[2]);
    if (!(r > 0) || !isfinite(r))
      return dem_fail(DEM_ERR_SETUP,
                      "sphere %zu of the clump: radius must be positive and "
                      "finite (got %g)",
                      i, r);
  }
  return DEM_OK;
}

static int any_overlap(const struct dem_sphere_def *sp, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double d[3];
      v3_sub(d, sp[i].center, sp[j].center);
      double sum = sp[i].radius + sp[j].radius;
      if (v3_norm(d) < sum * (1.0 - TOUCH_REL))
        return 1;
    }
  return 0;
}

/* Centre of the axis-aligned bounding box of the spheres, and its bounds. */
static void bounding_box(const struct dem_sphere_def *sp, size_t n,
                         double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) {
    lo[k] = sp[0].center[k] - sp[0].radius;
    hi[k] = sp[0].center[k] + sp[0].radius;
  }
  for (size_t i = 1; i < n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], sp[i].center[k] - sp[i].radius);
      hi[k] = fmax(hi[k], sp[i].center[k] + sp[i].radius);
    }
}

/* Closed form for disjoint (at most touching) spheres: a ball of radius r
 * centred at c has int x_i x_j dV = V (c_i c_j + r^2/5 delta_ij). */
static void exact_moments(const struct dem_sphere_def *sp, size_t n,
                          const double ref[3], struct moments *m) {
  *m = (struct moments){0};
  for (size_t i = 0; i < n; i++) {
    double r = sp[i].radius, c[3];
    v3_sub(c, sp[i].center, ref);
    double v = 4.0 / 3.0 * DEM_PI * r * r * r;
    m->v += v;
    for (int a = 0; a < 3; a++) {
      m->s[a] += v * c[a];
      for (int b = 0; b < 3; b++)
        m->ss[3 * a + b] += v * (c[a] * c[b] + (a == b ? 0.2 * r * r : 0.0));
    }
  }
}

/* Work space of the slice integration (arrays of n entries, arcs 2n). */
struct slice_work {
  double *a, *b, *rho; /* disks cut from the spheres by the plane z */
  double *lo, *hi;     /* covered angular intervals of one circle */
};

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
 * t1..t2 of the circle of centre (a, b) and radius r:
 * A = int x dy, int x = int x^2/2 dy, int y = -int y^2/2 dx,
 * int x^2 = int x^3/3 dy, int y^2 = -int y^3/3 dx, int xy = int x^2 y/2 dy. */
static void arc_integrals(double a, double b, double r, double t1, double t2,
                          double m[6]) {
  double f1[11], f2[11], g[11];
  trig_antiderivatives(t1, f1);
  trig_antiderivatives(t2, f2);
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

/* Sorts k angular intervals by their start (insertion sort: k is small). */
static void sort_intervals(double *lo, double *hi, int k) {
  for (int i = 1; i < k; i++) {
    double l = lo[i], h = hi[i];
    int j = i - 1;
    while (j >= 0 && lo[j] > l) {
      lo[j + 1] = lo[j];
      hi[j + 1] = hi[j];
      j--;
    }
    lo[j + 1] = l;
    hi[j + 1] = h;
  }
}

/* Exact area moments m[6] (see arc_integrals) of the union of the k disks
 * (a_i, b_i, rho_i): each circle contributes the arcs that no other disk
 * covers. A disk inside another contributes nothing; of identical disks the
 * first one counts. */
static void union_of_disks(int k, struct slice_work *w, double m[6]) {
  const double two_pi = 2.0 * DEM_PI;
  for (int q = 0; q < 6; q++)
    m[q] = 0.0;
  for (int i = 0; i < k; i++) {
    double ai = w->a[i], bi = w->b[i], ri = w->rho[i];
    int na = 0, covered = 0;
    for (int j = 0; j < k && !covered; j++) {
      if (j == i)
        continue;
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
      double alpha = acos(fmax(-1.0, fmin(1.0, ca)));
      double lo = atan2(dy, dx) - alpha;
      if (lo < 0)
        lo += two_pi;
      double hi = lo + 2.0 * alpha;
      if (hi > two_pi) { /* wraps past 0: split */
        w->lo[na] = 0.0;
        w->hi[na] = hi - two_pi;
        na++;
        hi = two_pi;
      }
      w->lo[na] = lo;
      w->hi[na] = hi;
      na++;
    }
    if (covered)
      continue;
    if (na == 0) {
      arc_integrals(ai, bi, ri, 0.0, two_pi, m);
      continue;
    }
    sort_intervals(w->lo, w->hi, na);
    double t = 0.0; /* end of the covered part so far */
    for (int c = 0; c < na; c++) {
      if (w->lo[c] > t)
        arc_integrals(ai, bi, ri, t, w->lo[c], m);
      t = fmax(t, w->hi[c]);
    }
    if (t < two_pi)
      arc_integrals(ai, bi, ri, t, two_pi, m);
  }
}

/* Gauss-Legendre nodes and weights on [-1, 1]. */
#define GL_POINTS 2
static const double gl_x[GL_POINTS] = {-0.57735026918962576451,
                                       0.57735026918962576451};
static const double gl_w[GL_POINTS] = {1.0, 1.0};

static int compare_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* Raw moments of the union: exact on each plane z = const (a union of
 * disks), composite Gauss-Legendre in z. The panels end at the breakpoints
 * bp (nbp sorted heights relative to ref, the first and last being the
 * z extent); a gap between breakpoints is cut into ceil(gap / (extent /
 * BASE_PANELS)) panels, times 2^level. *planes: planes evaluated. */
static void slice_moments(const struct dem_sphere_def *sp, size_t n,
                          const double ref[3], const double *bp, size_t nbp,
                          int level, struct slice_work *w, struct moments *mo,
                          int *planes) {
  double hmax = (bp[nbp - 1] - bp[0]) / BASE_PANELS;
  int nplanes = 0;
  double v = 0, sx = 0, sy = 0, sz = 0;
  double sxx = 0, syy = 0, szz = 0, sxy = 0, sxz = 0, syz = 0;
  for (size_t g = 0; g + 1 < nbp; g++) {
    double z0 = bp[g], gap = bp[g + 1] - z0;
    int np = (int)ceil(gap / hmax * (1.0 - 1e-12));
    if (np < 1)
      np = 1;
    np <<= level;
    nplanes += GL_POINTS * np;
    double hp = gap / np;
    for (int p = 0; p < np; p++) {
      double zc = z0 + (p + 0.5) * hp;
      for (int gq = 0; gq < GL_POINTS; gq++) {
        double z = zc + 0.5 * hp * gl_x[gq], wz = 0.5 * hp * gl_w[gq];
        int k = 0;
        for (size_t i = 0; i < n; i++) {
          double dz = z - (sp[i].center[2] - ref[2]);
          double rho2 = sp[i].radius * sp[i].radius - dz * dz;
          if (rho2 > 0) {
            w->a[k] = sp[i].center[0] - ref[0];
            w->b[k] = sp[i].center[1] - ref[1];
            w->rho[k] = sqrt(rho2);
            k++;
          }
        }
        if (k == 0)
          continue;
        double m[6];
        union_of_disks(k, w, m);
        v += wz * m[0];
        sx += wz * m[1];
        sy += wz * m[2];
        sxx += wz * m[3];
        syy += wz * m[4];
        sxy += wz * m[5];
        sz += wz * z * m[0];
        szz += wz * z * z * m[0];
        sxz += wz * z * m[1];
        syz += wz * z * m[2];
      }
    }
  }
  *planes = nplanes;
  mo->v = v;
  v3_set(mo->s, sx, sy, sz);
  double ss[9] = {sxx, sxy, sxz, sxy, syy, syz, sxz, syz, szz};
  for (int i = 0; i < 9; i++)
    mo->ss[i] = ss[i];
}

/* Mass, centre of mass and principal inertia from raw moments. */
static void finish(const struct moments *m, const double ref[3], double density,
                   struct dem_clump_props *out) {
  double com[3], inertia[9], c[9];
  v3_scale(com, m->s, 1.0 / m->v);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      c[3 * a + b] = m->ss[3 * a + b] - m->v * com[a] * com[b];
  double tr = c[0] + c[4] + c[8];
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      inertia[3 * a + b] = density * ((a == b ? tr : 0.0) - c[3 * a + b]);
  double evec[9];
  dem_sym3_eigen(inertia, out->inertia, evec);
  dem_mat3_to_quat(evec, out->axes);
  out->volume = m->v;
  out->mass = density * m->v;
  v3_add(out->com, com, ref);
}

static double rel_diff(double a, double b) {
  return fabs(a - b) / fmax(fabs(a), fabs(b));
}

/* A growable array of doubles. */
struct dbuf {
  double *v;
  size_t n, cap;
};

static int dbuf_push(struct dbuf *b, double x) {
  if (b->n == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 64;
    double *v = realloc(b->v, cap * sizeof *v);
    if (v == NULL)
      return 0;
    b->v = v;
    b->cap = cap;
  }
  b->v[b->n++] = x;
  return 1;
}

/* 1 if point p lies strictly inside a sphere other than i and j. */
static int buried(const struct dem_sphere_def *sp, size_t n, const double p[3],
                  size_t i, size_t j) {
  for (size_t k = 0; k < n; k++) {
    if (k == i || k == j)
      continue;
    double d[3];
    v3_sub(d, p, sp[k].center);
    double r = sp[k].radius * (1.0 - 1e-9);
    if (v3_dot(d, d) < r * r)
      return 1;
  }
  return 0;
}

/* The heights (relative to ref) where the slice moments are not smooth and
 * that lie on the surface of the union: the poles of the spheres (kinks) and
 * the lowest and highest points of each circle where two sphere surfaces
 * meet (two slice circles touch there: a 3/2-power singularity, or a kink
 * when the circle is horizontal). Sorted, duplicates removed. */
static dem_status breakpoints(const struct dem_sphere_def *sp, size_t n,
                              const double ref[3], struct dbuf *bp) {
  const double ez[3] = {0, 0, 1};
  for (size_t i = 0; i < n; i++) {
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      double p[3];
      v3_copy(p, sp[i].center);
      p[2] += sgn * sp[i].radius;
      if (!buried(sp, n, p, i, i))
        if (!dbuf_push(bp, p[2] - ref[2]))
          return DEM_ERR_NOMEM;
    }
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double nv[3];
      v3_sub(nv, sp[j].center, sp[i].center);
      double d = v3_norm(nv), ri = sp[i].radius, rj = sp[j].radius;
      if (d >= ri + rj || d <= fabs(ri - rj))
        continue; /* apart, touching or nested: no circle */
      v3_scale(nv, nv, 1.0 / d);
      double h = (d * d + ri * ri - rj * rj) / (2.0 * d);
      double rho = sqrt(fmax(ri * ri - h * h, 0.0));
      double c[3], u[3];
      v3_copy(c, sp[i].center);
      v3_axpy(c, h, nv);
      /* u: the unit vector of the circle's plane that rises fastest. */
      v3_copy(u, ez);
      v3_axpy(u, -nv[2], nv);
      double un = v3_norm(u);
      if (un < 1e-9) { /* horizontal circle */
        if (!dbuf_push(bp, c[2] - ref[2]))
          return DEM_ERR_NOMEM;
        continue;
      }
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        double p[3];
        v3_copy(p, c);
        v3_axpy(p, sgn * rho / un, u);
        if (!buried(sp, n, p, i, j))
          if (!dbuf_push(bp, p[2] - ref[2]))
            return DEM_ERR_NOMEM;
      }
    }
  qsort(bp->v, bp->n, sizeof *bp->v, compare_double);
  size_t m = 0;
  for (size_t k = 0; k < bp->n; k++)
    if (m == 0 || bp->v[k] > bp->v[m - 1])
      bp->v[m++] = bp->v[k];
  bp->n = m;
  return DEM_OK;
}

static dem_status integrate_union(const struct dem_sphere_def *sp, size_t n,
                                  double density, double tolerance,
                                  const double ref[3],
                                  struct dem_clump_props *out) {
  struct slice_work w;
  struct dbuf bp = {0};
  double *buf = malloc(7 * n * sizeof *buf);
  if (buf == NULL || breakpoints(sp, n, ref, &bp) != DEM_OK) {
    free(buf);
    free(bp.v);
    return dem_fail(DEM_ERR_NOMEM, "clump: out of memory for %zu spheres", n);
  }
  w.a = buf;
  w.b = buf + n;
  w.rho = buf + 2 * n;
  w.lo = buf + 3 * n;
  w.hi = buf + 5 * n;
  struct dem_clump_props prev = {0};
  double change = INFINITY;
  int level, planes = 0;
  for (level = 0; level <= MAX_LEVEL; level++) {
    struct moments m;
    slice_moments(sp, n, ref, bp.v, bp.n, level, &w, &m, &planes);
    finish(&m, ref, density, out);
    if (level > 0) {
      change = rel_diff(out->volume, prev.volume);
      for (int k = 0; k < 3; k++)
        change = fmax(change, rel_diff(out->inertia[k], prev.inertia[k]));
      if (change < tolerance)
        break;
    }
    prev = *out;
  }
  free(buf);
  free(bp.v);
  if (level > MAX_LEVEL)
    return dem_fail(DEM_ERR_SETUP,
                    "clump mass properties did not converge to a relative "
                    "change below %g (%g with %d slicing planes)",
                    tolerance, change, planes);
  out->exact = 0;
  out->resolution = planes;
  out->rel_change = change;
  return DEM_OK;
}

dem_status dem_clump_compute(const struct dem_sphere_def *spheres, size_t n,
                             double density, double tolerance,
                             struct dem_clump_props *out) {
  dem_status st = validate(spheres, n, density, tolerance, out);
  if (st != DEM_OK)
    return st;
  double blo[3], bhi[3], ref[3];
  bounding_box(spheres, n, blo, bhi);
  for (int k = 0; k < 3; k++)
    ref[k] = 0.5 * (blo[k] + bhi[k]);
  struct dem_clump_props p = {0};
  if (!any_overlap(spheres, n)) {
    struct moments m;
    exact_moments(spheres, n, ref, &m);
    finish(&m, ref, density, &p);
    p.exact = 1;
  } else {
    st = integrate_union(spheres, n, density, tolerance, ref, &p);
    if (st != DEM_OK)
      return st;
  }
  p.bounding_radius = 0;
  for (size_t i = 0; i < n; i++) {
    double d[3];
    v3_sub(d, spheres[i].center, p.com);
    p.bounding_radius = fmax(p.bounding_radius, v3_norm(d) + spheres[i].radius);
  }
  *out = p;
  return DEM_OK;
}

void dem_clump_body_offsets(const struct dem_sphere_def *spheres, size_t n,
                            const struct dem_clump_props *p,
                            double (*offsets)[3]) {
  for (size_t i = 0; i < n; i++) {
    double d[3];
    v3_sub(d, spheres[i].center, p->com);
    q_rotate_inv(offsets[i], p->axes, d);
  }
}
