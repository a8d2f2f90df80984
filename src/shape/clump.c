/* Clump mass properties: closed form, or exact slices of the union in z. */
#include "shape/clump.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"
#include "core/sym3_eigen.h"
#include "shape/clump_internal.h"
#include "shape/sphere_pairs.h"

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

/* Gauss-Legendre nodes and weights on [-1, 1]. */
static const double gl_x[GL_POINTS] = {-0.57735026918962576451,
                                       0.57735026918962576451};
static const double gl_w[GL_POINTS] = {1.0, 1.0};

static int compare_size(const void *pa, const void *pb) {
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  return (a > b) - (a < b);
}

/* How far outside its poles the sweep keeps sphere i (rounding of z - zc
 * must never drop a cut). */
static double sweep_margin(const struct slice_work *w, size_t i) {
  return 1e-9 * (w->sp[i].radius + fabs(dem_slice_centre_z(w, i)));
}

/* Moves the sweep to height z: drops the spheres whose top is below z,
 * takes in those whose bottom is below it; active stays in index order. */
static size_t sweep_to(struct slice_work *w, const struct component *c,
                       double z, size_t *taken, size_t n_active) {
  size_t kept = 0, in = 0;
  for (size_t q = 0; q < n_active; q++) {
    size_t i = w->active[q];
    if (z < dem_slice_centre_z(w, i) + w->sp[i].radius + sweep_margin(w, i))
      w->active[kept++] = i;
  }
  while (*taken < c->m) {
    size_t i = c->by_bottom[*taken];
    double zc = dem_slice_centre_z(w, i), r = w->sp[i].radius,
           mg = sweep_margin(w, i);
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
        dem_disk_union_moments(k, w, m);
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
  st = dem_clump_slicing_init(&s, spheres, n, ref, &adj);
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
  dem_clump_slicing_free(&s);
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
