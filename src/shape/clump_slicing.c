/* Planning a clump's slices: overlapping groups, breakpoints, work. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"
#include "shape/clump_internal.h"

/* Two spheres whose surfaces interpenetrate by less than this fraction of
 * r1 + r2 count as touching: the lens ignored is then ~1e-24 of a sphere. */
#define TOUCH_REL 1e-12

static int compare_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
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
    double zc = dem_slice_centre_z(w, i), r = w->sp[i].radius;
    double cuts = planes_below(c, cum, hmax, zc + r) -
                  planes_below(c, cum, hmax, zc - r) + 1;
    work += cuts * (double)(1 + w->adj->start[i + 1] - w->adj->start[i]);
  }
  free(cum);
  return work;
}

void dem_clump_slicing_free(struct slicing *s) {
  free(s->w.a);
  free(s->w.disk_sphere);
  free(s->w.slot);
  free(s->sweep);
  free(s->w.arcs);
  free(s->w.theta);
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
      keys[q] = (struct key_index){
          dem_slice_centre_z(w, mem[q]) - w->sp[mem[q]].radius, mem[q]};
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
dem_status dem_clump_slicing_init(struct slicing *s,
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
  w->theta = malloc((adj->start[n] + 1) * sizeof *w->theta);
  s->start = malloc((n + 1) * sizeof *s->start);
  s->members = malloc(n * sizeof *s->members);
  if (!w->a || !w->disk_sphere || !w->slot || !w->active || !w->arcs ||
      !w->theta || !s->start || !s->members)
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
  if (!s->overlaps)
    return DEM_OK;
  dem_disk_union_prepare(w, n);
  return prepare_components(s, n);
}
