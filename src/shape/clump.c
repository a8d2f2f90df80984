/* Clump mass properties: closed form, or exact slices of the union in z. */
#include "shape/clump.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"
#include "core/sym3_eigen.h"
#include "shape/sphere_pairs.h"

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
  if (n > DEM_CLUMP_MAX_SPHERES)
    return dem_fail(DEM_ERR_SETUP, "clump has %zu spheres, more than %d", n,
                    DEM_CLUMP_MAX_SPHERES);
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
 * centred at c has int x_i x_j dV = V (c_i c_j + r^2/5 delta_ij). Adds the
 * spheres idx[0..m) (all n when idx is NULL) to *m. */
static void exact_moments(const struct dem_sphere_def *sp, const size_t *idx,
                          size_t count, const double ref[3],
                          struct moments *m) {
  for (size_t q = 0; q < count; q++) {
    size_t i = idx ? idx[q] : q;
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

/* A covered angular interval of a circle. */
struct interval {
  double lo, hi;
};

/* Work space of the slice integration. Disks are the cuts of the spheres
 * by one plane z = const, in increasing sphere order; slot[i] is the disk
 * of sphere i in that plane (-1: none). */
struct slice_work {
  const struct dem_sphere_def *sp;
  const double *ref;
  const struct dem_sphere_adjacency *adj;
  double *a, *b, *rho;   /* the disks (n entries) */
  size_t *disk_sphere;   /* sphere of each disk (n) */
  long *slot;            /* disk of each sphere (n), -1 outside the plane */
  size_t *active, *next; /* spheres the plane may cut, in index order (n) */
  size_t *incoming;      /* spheres the sweep reaches at this plane (n) */
  struct interval *arcs; /* covered angular intervals of one circle */
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
 * so each circle looks at those alone. */
static void union_of_disks(size_t k, struct slice_work *w, double m[6]) {
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
      double alpha = acos(fmax(-1.0, fmin(1.0, ca)));
      double lo = atan2(dy, dx) - alpha;
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
      arc_integrals(ai, bi, ri, 0.0, two_pi, m);
      continue;
    }
    sort_intervals(w->arcs, na);
    double t = 0.0; /* end of the covered part so far */
    for (size_t c = 0; c < na; c++) {
      if (w->arcs[c].lo > t)
        arc_integrals(ai, bi, ri, t, w->arcs[c].lo, m);
      t = fmax(t, w->arcs[c].hi);
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

static int compare_size(const void *pa, const void *pb) {
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  return (a > b) - (a < b);
}

/* Height of sphere i's centre above ref, and how far outside its poles the
 * sweep keeps it (rounding of z - zc must never drop a cut). */
static double centre_z(const struct slice_work *w, size_t i) {
  return w->sp[i].center[2] - w->ref[2];
}

static double sweep_margin(const struct slice_work *w, size_t i) {
  return 1e-9 * (w->sp[i].radius + fabs(centre_z(w, i)));
}

/* One connected group of overlapping spheres: its members in index order,
 * the same sorted by their lowest point (the sweep's order), and the
 * heights where its slice moments are not smooth. */
struct component {
  const size_t *members, *by_bottom;
  size_t m;
  const double *bp;
  size_t nbp;
};

/* Moves the sweep to height z: drops the spheres whose top is below z,
 * takes in those whose bottom is below it; active stays in index order. */
static size_t sweep_to(struct slice_work *w, const struct component *c,
                       double z, size_t *taken, size_t n_active) {
  size_t kept = 0, in = 0;
  for (size_t q = 0; q < n_active; q++) {
    size_t i = w->active[q];
    if (z < centre_z(w, i) + w->sp[i].radius + sweep_margin(w, i))
      w->active[kept++] = i;
  }
  while (*taken < c->m) {
    size_t i = c->by_bottom[*taken];
    double zc = centre_z(w, i), r = w->sp[i].radius, mg = sweep_margin(w, i);
    if (!(zc - r - mg < z))
      break;
    (*taken)++;
    if (z < zc + r + mg)
      w->incoming[in++] = i;
  }
  if (in == 0)
    return kept;
  qsort(w->incoming, in, sizeof *w->incoming, compare_size);
  size_t p = 0, q = 0, o = 0;
  while (p < kept || q < in)
    w->next[o++] = q == in || (p < kept && w->active[p] < w->incoming[q])
                       ? w->active[p++]
                       : w->incoming[q++];
  size_t *t = w->active;
  w->active = w->next;
  w->next = t;
  return o;
}

/* Raw moments of one component: exact on each plane z = const (a union of
 * disks), composite Gauss-Legendre in z. The panels end at the breakpoints
 * (sorted heights relative to ref, the first and last being the z extent);
 * a gap between breakpoints is cut into ceil(gap / (extent / BASE_PANELS))
 * panels, times 2^level. Planes go up in z, so a sweep keeps the spheres
 * each one cuts. *planes: planes evaluated. */
static void slice_moments(struct slice_work *w, const struct component *c,
                          int level, struct moments *mo, long *planes) {
  const double *bp = c->bp;
  size_t nbp = c->nbp;
  double hmax = (bp[nbp - 1] - bp[0]) / BASE_PANELS;
  long nplanes = 0;
  size_t n_active = 0, taken = 0;
  double v = 0, sx = 0, sy = 0, sz = 0;
  double sxx = 0, syy = 0, szz = 0, sxy = 0, sxz = 0, syz = 0;
  for (size_t g = 0; g + 1 < nbp; g++) {
    double z0 = bp[g], gap = bp[g + 1] - z0;
    long np = (long)ceil(gap / hmax * (1.0 - 1e-12));
    if (np < 1)
      np = 1;
    np <<= level;
    nplanes += GL_POINTS * np;
    double hp = gap / (double)np;
    for (long p = 0; p < np; p++) {
      double zc = z0 + ((double)p + 0.5) * hp;
      for (int gq = 0; gq < GL_POINTS; gq++) {
        double z = zc + 0.5 * hp * gl_x[gq], wz = 0.5 * hp * gl_w[gq];
        n_active = sweep_to(w, c, z, &taken, n_active);
        size_t k = 0;
        for (size_t q = 0; q < n_active; q++) {
          size_t i = w->active[q];
          const struct dem_sphere_def *s = &w->sp[i];
          double dz = z - (s->center[2] - w->ref[2]);
          double rho2 = s->radius * s->radius - dz * dz;
          if (rho2 > 0) {
            w->a[k] = s->center[0] - w->ref[0];
            w->b[k] = s->center[1] - w->ref[1];
            w->rho[k] = sqrt(rho2);
            w->disk_sphere[k] = i;
            w->slot[i] = (long)k;
            k++;
          }
        }
        if (k == 0)
          continue;
        double m[6];
        union_of_disks(k, w, m);
        for (size_t q = 0; q < k; q++)
          w->slot[w->disk_sphere[q]] = -1;
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
  *planes += nplanes;
  mo->v += v;
  mo->s[0] += sx;
  mo->s[1] += sy;
  mo->s[2] += sz;
  double ss[9] = {sxx, sxy, sxz, sxy, syy, syz, sxz, syz, szz};
  for (int i = 0; i < 9; i++)
    mo->ss[i] += ss[i];
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

/* 1 if point p lies strictly inside a sphere other than i and j. Such a
 * sphere overlaps both i and j (p is on their surfaces), so the shorter of
 * their neighbour lists holds it. */
static int buried(const struct slice_work *w, const double p[3], size_t i,
                  size_t j) {
  const struct dem_sphere_adjacency *adj = w->adj;
  size_t from = i;
  if (adj->start[j + 1] - adj->start[j] < adj->start[i + 1] - adj->start[i])
    from = j;
  for (size_t e = adj->start[from]; e < adj->start[from + 1]; e++) {
    size_t k = adj->nbr[e];
    if (k == i || k == j)
      continue;
    double d[3];
    v3_sub(d, p, w->sp[k].center);
    double r = w->sp[k].radius * (1.0 - 1e-9);
    if (v3_dot(d, d) < r * r)
      return 1;
  }
  return 0;
}

/* The heights (relative to ref) where the slice moments of a component
 * are not smooth and that lie on the surface of the union: the poles of
 * the spheres (kinks) and the lowest and highest points of each circle
 * where two sphere surfaces meet (two slice circles touch there: a
 * 3/2-power singularity, or a kink when the circle is horizontal). Sorted,
 * duplicates removed. */
static dem_status breakpoints(const struct slice_work *w, const size_t *members,
                              size_t m, struct dbuf *bp) {
  const struct dem_sphere_def *sp = w->sp;
  const double *ref = w->ref;
  const double ez[3] = {0, 0, 1};
  for (size_t q = 0; q < m; q++) {
    size_t i = members[q];
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      double p[3];
      v3_copy(p, sp[i].center);
      p[2] += sgn * sp[i].radius;
      if (!buried(w, p, i, i))
        if (!dbuf_push(bp, p[2] - ref[2]))
          return DEM_ERR_NOMEM;
    }
  }
  for (size_t q = 0; q < m; q++) {
    size_t i = members[q];
    for (size_t e = w->adj->start[i]; e < w->adj->start[i + 1]; e++) {
      size_t j = w->adj->nbr[e];
      if (j <= i)
        continue;
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
        if (!buried(w, p, i, j))
          if (!dbuf_push(bp, p[2] - ref[2]))
            return DEM_ERR_NOMEM;
      }
    }
  }
  qsort(bp->v, bp->n, sizeof *bp->v, compare_double);
  size_t k = 0;
  for (size_t q = 0; q < bp->n; q++)
    if (k == 0 || bp->v[q] > bp->v[k - 1])
      bp->v[k++] = bp->v[q];
  bp->n = k;
  return DEM_OK;
}

static size_t find_root(size_t *parent, size_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* Groups the spheres that overlap (centres closer than (r1 + r2)(1 -
 * TOUCH_REL)) into connected components: members[start[c] .. start[c +
 * 1]) in index order, components ordered by their first sphere. Returns
 * the number of components (n when no two spheres overlap), or 0 when
 * memory runs out. */
static size_t components(const struct dem_sphere_def *sp, size_t n,
                         const struct dem_sphere_adjacency *adj, size_t *start,
                         size_t *members) {
  size_t *parent = malloc(n * sizeof *parent);
  size_t *comp = malloc(n * sizeof *comp);
  if (!parent || !comp) {
    free(parent);
    free(comp);
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    parent[i] = i;
  for (size_t i = 0; i < n; i++)
    for (size_t e = adj->start[i]; e < adj->start[i + 1]; e++) {
      size_t j = adj->nbr[e];
      double d[3];
      v3_sub(d, sp[i].center, sp[j].center);
      double sum = sp[i].radius + sp[j].radius;
      if (j > i && v3_norm(d) < sum * (1.0 - TOUCH_REL)) {
        size_t a = find_root(parent, i), b = find_root(parent, j);
        parent[a > b ? a : b] = a < b ? a : b;
      }
    }
  /* The root is each component's smallest index: number them in order. */
  size_t nc = 0;
  for (size_t i = 0; i < n; i++) {
    size_t r = find_root(parent, i);
    comp[i] = r == i ? nc++ : comp[r];
  }
  for (size_t c = 0; c <= nc; c++)
    start[c] = 0;
  for (size_t i = 0; i < n; i++)
    start[comp[i] + 1]++;
  for (size_t c = 0; c < nc; c++)
    start[c + 1] += start[c];
  for (size_t i = 0; i < n; i++)
    members[start[comp[i]]++] = i;
  for (size_t c = nc; c > 0; c--)
    start[c] = start[c - 1];
  start[0] = 0;
  free(parent);
  free(comp);
  return nc;
}

/* The planes of level 0 of a component below height z (relative to ref). */
static double planes_below(const struct component *c, const double *cum,
                           double hmax, double z) {
  const double *bp = c->bp;
  if (z <= bp[0])
    return 0;
  if (z >= bp[c->nbp - 1])
    return cum[c->nbp - 1];
  size_t lo = 0, hi = c->nbp - 1; /* bp[lo] < z < bp[hi] */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (bp[mid] < z)
      lo = mid;
    else
      hi = mid;
  }
  double gap = bp[lo + 1] - bp[lo];
  double np = fmax(1.0, ceil(gap / hmax * (1.0 - 1e-12)));
  return cum[lo] + GL_POINTS * floor((z - bp[lo]) / (gap / np));
}

/* What level 0 of a component costs: for each sphere, the planes that cut
 * it times the circles it is compared with. Levels double it. */
static double level0_work(const struct slice_work *w,
                          const struct component *c) {
  double *cum = malloc(c->nbp * sizeof *cum);
  if (!cum)
    return HUGE_VAL;
  double hmax = (c->bp[c->nbp - 1] - c->bp[0]) / BASE_PANELS, work = 0;
  cum[0] = 0;
  for (size_t g = 0; g + 1 < c->nbp; g++) {
    double gap = c->bp[g + 1] - c->bp[g];
    cum[g + 1] =
        cum[g] + GL_POINTS * fmax(1.0, ceil(gap / hmax * (1.0 - 1e-12)));
  }
  for (size_t q = 0; q < c->m; q++) {
    size_t i = c->members[q];
    double zc = centre_z(w, i), r = w->sp[i].radius;
    double cuts = planes_below(c, cum, hmax, zc + r) -
                  planes_below(c, cum, hmax, zc - r) + 1;
    work += cuts * (double)(1 + w->adj->start[i + 1] - w->adj->start[i]);
  }
  free(cum);
  return work;
}

/* Refines level by level until the change is below tolerance; level L
 * costs work0 * 2^L, and no level starts that would take the total past
 * DEM_CLUMP_MAX_WORK. */
static dem_status integrate_union(struct slice_work *w,
                                  const struct component *comps, size_t nc,
                                  const struct moments *isolated, double work0,
                                  double density, double tolerance,
                                  struct dem_clump_props *out) {
  struct dem_clump_props prev = {0};
  double change = INFINITY;
  int level;
  long planes = 0;
  for (level = 0; level <= MAX_LEVEL; level++) {
    if (level > 1 && work0 * (double)((2 << level) - 1) > DEM_CLUMP_MAX_WORK)
      return dem_fail(DEM_ERR_SETUP,
                      "clump mass properties did not converge to a relative "
                      "change below %g within the work limit (%g with %ld "
                      "slicing planes; refining once more would take more "
                      "than %.2g circle evaluations)",
                      tolerance, change, planes, DEM_CLUMP_MAX_WORK);
    struct moments m = *isolated;
    planes = 0;
    for (size_t c = 0; c < nc; c++)
      slice_moments(w, &comps[c], level, &m, &planes);
    finish(&m, w->ref, density, out);
    if (level > 0) {
      change = rel_diff(out->volume, prev.volume);
      for (int k = 0; k < 3; k++)
        change = fmax(change, rel_diff(out->inertia[k], prev.inertia[k]));
      if (change < tolerance)
        break;
    }
    prev = *out;
  }
  if (level > MAX_LEVEL)
    return dem_fail(DEM_ERR_SETUP,
                    "clump mass properties did not converge to a relative "
                    "change below %g (%g with %ld slicing planes)",
                    tolerance, change, planes);
  out->exact = 0;
  out->resolution = planes < INT_MAX ? (int)planes : INT_MAX;
  out->rel_change = change;
  return DEM_OK;
}

/* Everything the slicing of the overlapping spheres needs, allocated
 * once: the work space, the components and their breakpoints. */
struct slicing {
  struct slice_work w;
  struct component *comps;
  size_t nc;    /* components of more than one sphere */
  int overlaps; /* 0: no two spheres overlap (closed form) */
  size_t *start, *members, *by_bottom, *isolated;
  size_t *sweep; /* owns w.active, w.next and w.incoming (they swap) */
  size_t n_isolated;
  double *bp;
  size_t *bp_start;
  double work; /* circle evaluations of level 0 */
};

static void slicing_free(struct slicing *s) {
  free(s->w.a);
  free(s->w.disk_sphere);
  free(s->w.slot);
  free(s->sweep);
  free(s->w.arcs);
  free(s->comps);
  free(s->start);
  free(s->members);
  free(s->by_bottom);
  free(s->isolated);
  free(s->bp);
  free(s->bp_start);
}

struct key_index {
  double key;
  size_t i;
};

static int compare_key(const void *pa, const void *pb) {
  const struct key_index *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* Components of more than one sphere, each with its sweep order and
 * breakpoints; single spheres go to the isolated list. */
static dem_status prepare_components(struct slicing *s, size_t n) {
  struct slice_work *w = &s->w;
  struct dbuf all = {0};
  struct key_index *keys = malloc(n * sizeof *keys);
  s->comps = malloc(s->nc * sizeof *s->comps);
  s->by_bottom = malloc(n * sizeof *s->by_bottom);
  s->isolated = malloc(n * sizeof *s->isolated);
  s->bp_start = malloc((s->nc + 1) * sizeof *s->bp_start);
  if (!keys || !s->comps || !s->by_bottom || !s->isolated || !s->bp_start) {
    free(keys);
    return DEM_ERR_NOMEM;
  }
  size_t kept = 0;
  s->n_isolated = 0;
  s->work = 0;
  for (size_t c = 0; c < s->nc; c++) {
    const size_t *mem = s->members + s->start[c];
    size_t m = s->start[c + 1] - s->start[c];
    if (m == 1) {
      s->isolated[s->n_isolated++] = mem[0];
      continue;
    }
    for (size_t q = 0; q < m; q++)
      keys[q] = (struct key_index){centre_z(w, mem[q]) - w->sp[mem[q]].radius,
                                   mem[q]};
    qsort(keys, m, sizeof *keys, compare_key);
    size_t *order = s->by_bottom + s->start[c];
    for (size_t q = 0; q < m; q++)
      order[q] = keys[q].i;
    struct dbuf bp = {0};
    if (breakpoints(w, mem, m, &bp) != DEM_OK) {
      free(bp.v);
      free(keys);
      free(all.v);
      return DEM_ERR_NOMEM;
    }
    s->bp_start[kept] = all.n;
    for (size_t q = 0; q < bp.n; q++)
      if (!dbuf_push(&all, bp.v[q])) {
        free(bp.v);
        free(keys);
        free(all.v);
        return DEM_ERR_NOMEM;
      }
    free(bp.v);
    s->comps[kept++] = (struct component){mem, order, m, NULL, 0};
  }
  s->bp_start[kept] = all.n;
  s->bp = all.v;
  s->nc = kept;
  for (size_t c = 0; c < kept; c++) {
    s->comps[c].bp = s->bp + s->bp_start[c];
    s->comps[c].nbp = s->bp_start[c + 1] - s->bp_start[c];
    s->work += level0_work(w, &s->comps[c]);
  }
  free(keys);
  return DEM_OK;
}

/* Finds the connected groups of overlapping spheres and, if there are any,
 * prepares their slicing. */
static dem_status slicing_init(struct slicing *s,
                               const struct dem_sphere_def *sp, size_t n,
                               const double ref[3],
                               const struct dem_sphere_adjacency *adj) {
  memset(s, 0, sizeof *s);
  struct slice_work *w = &s->w;
  w->sp = sp;
  w->ref = ref;
  w->adj = adj;
  w->a = malloc(3 * n * sizeof *w->a);
  w->disk_sphere = malloc(n * sizeof *w->disk_sphere);
  w->slot = malloc(n * sizeof *w->slot);
  w->active = s->sweep = malloc(3 * n * sizeof *w->active);
  w->arcs = malloc(2 * (adj->max_degree + 1) * sizeof *w->arcs);
  s->start = malloc((n + 1) * sizeof *s->start);
  s->members = malloc(n * sizeof *s->members);
  if (!w->a || !w->disk_sphere || !w->slot || !w->active || !w->arcs ||
      !s->start || !s->members)
    return DEM_ERR_NOMEM;
  w->b = w->a + n;
  w->rho = w->a + 2 * n;
  w->next = w->active + n;
  w->incoming = w->active + 2 * n;
  for (size_t i = 0; i < n; i++)
    w->slot[i] = -1;
  s->nc = components(sp, n, adj, s->start, s->members);
  if (s->nc == 0)
    return DEM_ERR_NOMEM;
  s->overlaps = s->nc < n;
  return s->overlaps ? prepare_components(s, n) : DEM_OK;
}

/* Up to this many neighbour pairs are always accepted; beyond it, 16 per
 * sphere on average (memory grows with the pairs). */
#define MIN_PAIR_BUDGET 2000000.0
#define PAIRS_PER_SPHERE 16.0

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
  struct dem_sphere_adjacency adj;
  double budget = fmax(MIN_PAIR_BUDGET, PAIRS_PER_SPHERE * (double)n);
  st = dem_sphere_adjacency_build(spheres, n, 1e-9, (size_t)budget, &adj);
  if (st != DEM_OK)
    return st;
  struct slicing s;
  st = slicing_init(&s, spheres, n, ref, &adj);
  struct dem_clump_props p = {0};
  if (st == DEM_OK && !s.overlaps) {
    struct moments m = {0};
    exact_moments(spheres, NULL, n, ref, &m);
    finish(&m, ref, density, &p);
    p.exact = 1;
  } else if (st == DEM_OK && 3.0 * s.work > DEM_CLUMP_MAX_WORK) {
    st = dem_fail(DEM_ERR_SETUP,
                  "slicing the %zu overlapping spheres would take about %.2g "
                  "circle evaluations, more than the limit of %.2g (minutes "
                  "of work); use fewer spheres or split the shape",
                  n - s.n_isolated, 3.0 * s.work, DEM_CLUMP_MAX_WORK);
  } else if (st == DEM_OK) {
    /* Spheres that overlap nothing are added in closed form. */
    struct moments iso = {0};
    exact_moments(spheres, s.isolated, s.n_isolated, ref, &iso);
    st = integrate_union(&s.w, s.comps, s.nc, &iso, s.work, density, tolerance,
                         &p);
  }
  slicing_free(&s);
  dem_sphere_adjacency_free(&adj);
  if (st == DEM_ERR_NOMEM)
    return dem_fail(st, "clump: out of memory for %zu spheres", n);
  if (st != DEM_OK)
    return st;
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
