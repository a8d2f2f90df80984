/* Neighbour pairs of a clump's spheres by a uniform grid of cells: each
 * sphere is listed in the cells its bounding box covers, so only spheres
 * that share a cell are compared. */
#include "shape/sphere_pairs.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Cell numbers along each axis fit in CELL_BITS bits, so that a cell is
 * one 64-bit key and a listing takes 16 bytes. */
enum { CELL_BITS = 21 };

/* A sphere listed in one cell. */
struct cell_entry {
  uint64_t key;
  uint32_t s;
};

struct pair {
  uint32_t i, j;
};

static uint64_t cell_key(const int64_t c[3]) {
  return (uint64_t)c[0] << (2 * CELL_BITS) | (uint64_t)c[1] << CELL_BITS |
         (uint64_t)c[2];
}

/* Cell number along axis k of a key. */
static int64_t key_axis(uint64_t key, int k) {
  return (int64_t)(key >> (CELL_BITS * (2 - k)) &
                   (((uint64_t)1 << CELL_BITS) - 1));
}

static int compare_entries(const void *pa, const void *pb) {
  const struct cell_entry *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return (a->s > b->s) - (a->s < b->s);
}

static int compare_size(const void *pa, const void *pb) {
  size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
  return (a > b) - (a < b);
}

/* The grid: cell size h from the corner lo; spheres reach r (1 + slack). */
struct grid {
  double lo[3], h, grow;
};

static int64_t cell_of(const struct grid *g, double x, int k) {
  return (int64_t)floor((x - g->lo[k]) / g->h);
}

/* First and last cell a sphere's bounding box covers along axis k. */
static void cell_range(const struct grid *g, const struct dem_sphere_def *s,
                       int k, int64_t *first, int64_t *last) {
  double reach = s->radius * g->grow;
  *first = cell_of(g, s->center[k] - reach, k);
  *last = cell_of(g, s->center[k] + reach, k);
}

/* Cell listings the spheres need at cell size g->h (a double: it may be
 * huge before the size is settled). */
static double listings(const struct grid *g, const struct dem_sphere_def *sp,
                       size_t n) {
  double total = 0;
  for (size_t i = 0; i < n; i++) {
    double cells = 1;
    for (int k = 0; k < 3; k++) {
      int64_t a, b;
      cell_range(g, &sp[i], k, &a, &b);
      cells *= (double)(b - a + 1);
    }
    total += cells;
  }
  return total;
}

/* Chooses the cell size: three mean radii (a sphere of mean size is then
 * listed in about 4.6 cells), doubled until the listings stay below 8 per
 * sphere (a few huge spheres among small ones would otherwise cover
 * millions of cells), and never so small that cell numbers need more than
 * CELL_BITS bits. */
static void choose_grid(const struct dem_sphere_def *sp, size_t n, double slack,
                        struct grid *g) {
  double hi[3], mean = 0, span = 0;
  for (int k = 0; k < 3; k++)
    g->lo[k] = hi[k] = sp[0].center[k];
  for (size_t i = 0; i < n; i++) {
    mean += sp[i].radius / (double)n;
    for (int k = 0; k < 3; k++) {
      g->lo[k] = fmin(g->lo[k], sp[i].center[k] - 2 * sp[i].radius);
      hi[k] = fmax(hi[k], sp[i].center[k] + 2 * sp[i].radius);
    }
  }
  for (int k = 0; k < 3; k++)
    span = fmax(span, hi[k] - g->lo[k]);
  g->grow = 1.0 + slack;
  g->h = fmax(3.0 * mean, span / (double)(((int64_t)1 << CELL_BITS) - 2));
  while (listings(g, sp, n) > 8.0 * (double)n + 64.0 && g->h < span)
    g->h *= 2.0;
}

/* Adds pair (i, j) if the spheres are within reach: 0, or 1 when there
 * are already max_pairs, or -1 when memory runs out. */
static int add_if_close(const struct dem_sphere_def *sp, size_t i, size_t j,
                        double grow, size_t max_pairs, struct pair **pairs,
                        size_t *np, size_t *cap) {
  double d2 = 0;
  for (int k = 0; k < 3; k++) {
    double d = sp[i].center[k] - sp[j].center[k];
    d2 += d * d;
  }
  double reach = (sp[i].radius + sp[j].radius) * grow;
  if (!(d2 < reach * reach))
    return 0;
  if (*np >= max_pairs)
    return 1;
  if (*np == *cap) {
    size_t c = *cap ? 2 * *cap : 1024;
    struct pair *more = realloc(*pairs, c * sizeof *more);
    if (!more)
      return -1;
    *pairs = more;
    *cap = c;
  }
  (*pairs)[(*np)++] =
      (struct pair){(uint32_t)(i < j ? i : j), (uint32_t)(i < j ? j : i)};
  return 0;
}

/* Every pair within reach, each once: a pair sharing several cells is
 * taken in the cell holding the lower corner of their boxes' overlap. */
static dem_status find_pairs(const struct dem_sphere_def *sp, size_t n,
                             const struct grid *g, const struct cell_entry *e,
                             size_t ne, size_t max_pairs, struct pair **pairs,
                             size_t *np) {
  size_t cap = 0;
  /* Comparisons of spheres that share a cell but are apart are bounded
   * too, so that no input makes this quadratic unnoticed. */
  double compared = 0, max_compared = 64.0 * (double)n + 16.0 * max_pairs;
  *np = 0;
  for (size_t g0 = 0, g1; g0 < ne; g0 = g1) {
    for (g1 = g0 + 1; g1 < ne && e[g1].key == e[g0].key; g1++)
      ;
    for (size_t a = g0; a < g1; a++)
      for (size_t b = a + 1; b < g1; b++) {
        size_t i = e[a].s, j = e[b].s;
        int here = 1;
        for (int k = 0; k < 3 && here; k++) {
          int64_t fi, li, fj, lj;
          cell_range(g, &sp[i], k, &fi, &li);
          cell_range(g, &sp[j], k, &fj, &lj);
          here = (fi > fj ? fi : fj) == key_axis(e[a].key, k);
        }
        if (!here)
          continue;
        if (++compared > max_compared)
          return dem_fail(DEM_ERR_SETUP,
                          "the spheres are too crowded: more than %.0f "
                          "pairs of %zu spheres share a cell of the search",
                          max_compared, n);
        int r = add_if_close(sp, i, j, g->grow, max_pairs, pairs, np, &cap);
        if (r > 0)
          return dem_fail(DEM_ERR_SETUP,
                          "the spheres overlap too much: more than %zu "
                          "overlapping pairs among %zu spheres",
                          max_pairs, n);
        if (r < 0)
          return DEM_ERR_NOMEM;
      }
  }
  return DEM_OK;
}

/* The pairs as sorted neighbour lists. */
static dem_status to_adjacency(size_t n, const struct pair *pairs, size_t np,
                               struct dem_sphere_adjacency *a) {
  a->n = n;
  a->max_degree = 0;
  a->start = calloc(n + 1, sizeof *a->start);
  a->nbr = malloc((2 * np + 1) * sizeof *a->nbr);
  size_t *fill = malloc((n + 1) * sizeof *fill);
  if (!a->start || !a->nbr || !fill) {
    free(fill);
    return DEM_ERR_NOMEM;
  }
  for (size_t p = 0; p < np; p++) {
    a->start[pairs[p].i + 1]++;
    a->start[pairs[p].j + 1]++;
  }
  for (size_t i = 0; i < n; i++)
    a->start[i + 1] += a->start[i];
  memcpy(fill, a->start, (n + 1) * sizeof *fill);
  for (size_t p = 0; p < np; p++) {
    a->nbr[fill[pairs[p].i]++] = pairs[p].j;
    a->nbr[fill[pairs[p].j]++] = pairs[p].i;
  }
  free(fill);
  for (size_t i = 0; i < n; i++) {
    size_t d = a->start[i + 1] - a->start[i];
    qsort(a->nbr + a->start[i], d, sizeof *a->nbr, compare_size);
    if (d > a->max_degree)
      a->max_degree = d;
  }
  return DEM_OK;
}

dem_status dem_sphere_adjacency_build(const struct dem_sphere_def *sp, size_t n,
                                      double slack, size_t max_pairs,
                                      struct dem_sphere_adjacency *out) {
  memset(out, 0, sizeof *out);
  if (n == 0)
    return DEM_OK;
  if (n > UINT32_MAX)
    return dem_fail(DEM_ERR_SETUP, "%zu spheres are too many to pair", n);
  struct grid g;
  choose_grid(sp, n, slack, &g);
  size_t ne = (size_t)listings(&g, sp, n);
  struct cell_entry *e = malloc((ne ? ne : 1) * sizeof *e);
  if (!e)
    return dem_fail(DEM_ERR_NOMEM, "out of memory pairing %zu spheres", n);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t f[3], l[3], c[3];
    for (int k = 0; k < 3; k++)
      cell_range(&g, &sp[i], k, &f[k], &l[k]);
    for (c[2] = f[2]; c[2] <= l[2]; c[2]++)
      for (c[1] = f[1]; c[1] <= l[1]; c[1]++)
        for (c[0] = f[0]; c[0] <= l[0]; c[0]++)
          e[m++] = (struct cell_entry){cell_key(c), (uint32_t)i};
  }
  qsort(e, m, sizeof *e, compare_entries);
  struct pair *pairs = NULL;
  size_t np = 0;
  dem_status st = find_pairs(sp, n, &g, e, m, max_pairs, &pairs, &np);
  free(e);
  if (!st)
    st = to_adjacency(n, pairs, np, out);
  free(pairs);
  if (st) {
    dem_sphere_adjacency_free(out);
    if (st == DEM_ERR_NOMEM)
      return dem_fail(st, "out of memory pairing %zu spheres", n);
  }
  return st;
}

void dem_sphere_adjacency_free(struct dem_sphere_adjacency *a) {
  free(a->start);
  free(a->nbr);
  memset(a, 0, sizeof *a);
}
