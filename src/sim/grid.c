/* Cubic cell grids over a box and a stable counting sort by cell. */
#include "sim/grid.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/isa.h"
#include "sim/sim.h"

/* Grows *ptr to hold want items of size bytes (kept when big enough). */
static dem_status grow(void **ptr, size_t *have, size_t want, size_t size) {
  if (*ptr && *have >= want)
    return DEM_OK;
  void *p = realloc(*ptr, (want ? want : 1) * size);
  if (!p)
    return dem_fail(DEM_ERR_NOMEM,
                    "out of memory for a cell grid (%zu cells of %zu bytes)",
                    want, size);
  *ptr = p;
  *have = want;
  return DEM_OK;
}

/* Bounding box of the points x (those with use[i] set, if use is given). */
void dem_bounding_box(const double (*x)[3], size_t n, const unsigned char *use,
                      double lo[3], double hi[3]) {
  double lx = DBL_MAX, ly = DBL_MAX, lz = DBL_MAX;
  double hx = -DBL_MAX, hy = -DBL_MAX, hz = -DBL_MAX;
  long nn = (long)n;
  DEM_PARALLEL_IF(
      nn > DEM_PARALLEL_MIN,
      omp parallel for schedule(static) reduction(min : lx, ly, lz)
          reduction(max : hx, hy, hz),
      for (long i = 0; i < nn; i++) {
    if (use && !use[i])
      continue;
    lx = x[i][0] < lx ? x[i][0] : lx;
    ly = x[i][1] < ly ? x[i][1] : ly;
    lz = x[i][2] < lz ? x[i][2] : lz;
    hx = x[i][0] > hx ? x[i][0] : hx;
    hy = x[i][1] > hy ? x[i][1] : hy;
    hz = x[i][2] > hz ? x[i][2] : hz;
      });
  lo[0] = lx, lo[1] = ly, lo[2] = lz;
  hi[0] = hx, hi[1] = hy, hi[2] = hz;
}

/* Cells at least h wide over [lo, hi], no more than max_cells of them. */
dem_status dem_grid_size(struct dem_grid *g, const double lo[3],
                         const double hi[3], double h, size_t max_cells) {
  double ext[3];
  for (int k = 0; k < 3; k++) {
    ext[k] = hi[k] - lo[k];
    if (!(ext[k] >= 0 && ext[k] < 1e300)) /* no points, or not finite */
      ext[k] = 0;
    g->lo[k] = lo[k] <= hi[k] && isfinite(lo[k]) ? lo[k] : 0;
  }
  for (;;) {
    double cells = 1;
    for (int k = 0; k < 3; k++)
      cells *= floor(ext[k] / h) + 1;
    if (cells <= (double)max_cells)
      break;
    h *= 1.26;
  }
  g->n_cells = 1;
  for (int k = 0; k < 3; k++) {
    g->dims[k] = (size_t)(ext[k] / h) + 1;
    g->n_cells *= g->dims[k];
  }
  g->h = h;
  g->inv_h = 1.0 / h;
  return grow((void **)&g->cell_start, &g->cells_alloc, g->n_cells + 2,
              sizeof *g->cell_start);
}

/* How many items ahead the sorts ask for their key's count: with a
 * million spheres the counts (a few per sphere) are far beyond the
 * caches, and the keys jump between rows of cells. */
#define SORT_AHEAD 16

/* Sorts by key the items of places p0..p1-1 (place p holds item
 * items[p], or item p when `items` is NULL; ascending), whose keys all lie
 * in [c0, c1), into order[p0..p1-1], and sets start[c0..c1-1]: count,
 * scan to each key's end, place from the last item back (each key's end
 * moving down to its start, so no pass shifts the starts back). Both the
 * serial sort and each thread's range of keys; `items` is a constant of
 * each caller. */
static DEM_ALWAYS_INLINE void sort_items(const size_t *key, const size_t *items,
                                         size_t p0, size_t p1, size_t c0,
                                         size_t c1, size_t *start,
                                         size_t *order) {
#define ITEM(p) (items ? items[p] : (p))
  memset(start + c0, 0, (c1 - c0) * sizeof *start);
  for (size_t p = p0; p < p1; p++) {
    if (p + SORT_AHEAD < p1)
      __builtin_prefetch(&start[key[ITEM(p + SORT_AHEAD)]], 1);
    start[key[ITEM(p)]]++;
  }
  size_t run = p0;
  for (size_t c = c0; c < c1; c++) {
    run += start[c];
    start[c] = run;
  }
  for (size_t p = p1; p-- > p0;) {
    if (p >= p0 + SORT_AHEAD)
      __builtin_prefetch(&start[key[ITEM(p - SORT_AHEAD)]], 1);
    const size_t i = ITEM(p);
    order[--start[key[i]]] = i;
  }
#undef ITEM
}

/* The serial sort: every item, every key. */
static void counting_sort_serial(size_t n, const size_t *key, size_t n_keys,
                                 size_t *start, size_t *order) {
  sort_items(key, NULL, 0, n, 0, n_keys, start, order);
  start[n_keys] = n;
}

/* Coarse bins of keys for balancing the threads' shares, and the most
 * threads the sort uses (their bin counts are on the stack). */
enum { BINS = 256, SORT_TEAM = 16 };

/* The first bin b with sum(coarse[0..b)) >= target. */
static size_t bin_at(const size_t *coarse, size_t bins, size_t target) {
  size_t b = 0, sum = 0;
  while (b < bins && sum < target)
    sum += coarse[b++];
  return b;
}

/* The keys' ranges of the threads (`split`, in bins: thread d sorts the
 * bins [split[d], split[d + 1]), about n / nt items) and where in the
 * scratch each thread u puts its items for each range d (`at[u][d]`:
 * range by range, in each the threads in order), from each thread's
 * count of its items in each bin. */
struct sort_plan {
  size_t count[SORT_TEAM][BINS];
  size_t split[SORT_TEAM + 1];
  size_t at[SORT_TEAM][SORT_TEAM];
  unsigned char range_of[BINS];
};

static void plan_ranges(struct sort_plan *p, size_t n, size_t bins, size_t nt) {
  size_t coarse[BINS];
  for (size_t b = 0; b < bins; b++) {
    coarse[b] = 0;
    for (size_t u = 0; u < nt; u++)
      coarse[b] += p->count[u][b];
  }
  p->split[0] = 0;
  for (size_t d = 1; d < nt; d++)
    p->split[d] = bin_at(coarse, bins, n * d / nt);
  p->split[nt] = bins;
  for (size_t d = 0; d < nt; d++)
    for (size_t b = p->split[d]; b < p->split[d + 1]; b++)
      p->range_of[b] = (unsigned char)d;
  size_t run = 0;
  for (size_t d = 0; d < nt; d++)
    for (size_t u = 0; u < nt; u++) {
      p->at[u][d] = run;
      for (size_t b = p->split[d]; b < p->split[d + 1]; b++)
        run += p->count[u][b];
    }
}

/* Stable counting sort of n items by key (0..n_keys-1): order[new] = old,
 * start[key] = first new. On threads, in three passes over each thread's
 * slice of the items: it counts them in coarse bins of keys; the bins are
 * split into ranges holding about n / threads items each (plan_ranges);
 * it copies the indices of its items, in order, into the scratch, to the
 * part of their key's range (a range's part holds the first thread's
 * items, then the second's: ascending); then each thread sorts its
 * range's part as the serial sort does (sort_items). The result is the serial
 * one for any thread count. Each thread scanned every item twice before, for
 * the keys of its range: the sort of 60,000 spheres' cells took as long on two
 * threads as on one (docs/performance.md, "The counting sort on threads"). */
void dem_counting_sort(size_t n, const size_t *key, size_t n_keys,
                       size_t *start, size_t *order, size_t *scratch) {
  int team = omp_get_max_threads();
  if (n <= DEM_PARALLEL_MIN || team == 1) {
    counting_sort_serial(n, key, n_keys, start, order);
    return;
  }
  team = team < SORT_TEAM ? team : SORT_TEAM;
  int shift = 0; /* keys per bin: a power of two, no division per item */
  while ((n_keys + ((size_t)1 << shift) - 1) >> shift > BINS)
    shift++;
  const size_t bins = (n_keys + ((size_t)1 << shift) - 1) >> shift;
  struct sort_plan plan;
#pragma omp parallel num_threads(team)
  {
    const size_t t = (size_t)omp_get_thread_num(),
                 nt = (size_t)omp_get_num_threads();
    const size_t i0 = n * t / nt, i1 = n * (t + 1) / nt;
    size_t *count = plan.count[t];
    memset(count, 0, bins * sizeof *count);
    for (size_t i = i0; i < i1; i++)
      count[key[i] >> shift]++;
#pragma omp barrier
#pragma omp single
    plan_ranges(&plan, n, bins, nt);
    if (nt == 2) {
      /* Both places in registers and no branch: through put[], each item
       * waited for the last one's store to its range's place (82-93 us
       * against 45-57 us for a thread's 30,000 of the 60,000-sphere gas). */
      const size_t edge = plan.split[1] << shift; /* range 1's first key */
      size_t p0 = plan.at[t][0], p1 = plan.at[t][1];
      for (size_t i = i0; i < i1; i++) {
        const size_t high = key[i] >= edge;
        scratch[high ? p1 : p0] = i;
        p0 += 1 - high, p1 += high;
      }
    } else {
      size_t put[SORT_TEAM];
      for (size_t d = 0; d < nt; d++)
        put[d] = plan.at[t][d];
      for (size_t i = i0; i < i1; i++)
        scratch[put[plan.range_of[key[i] >> shift]]++] = i;
    }
#pragma omp barrier
    const size_t c0 = plan.split[t] << shift < n_keys ? plan.split[t] << shift
                                                      : n_keys,
                 c1 = plan.split[t + 1] << shift < n_keys
                          ? plan.split[t + 1] << shift
                          : n_keys;
    const size_t a0 = plan.at[0][t], a1 = t + 1 < nt ? plan.at[0][t + 1] : n;
    sort_items(key, scratch, a0, a1, c0, c1, start, order);
    if (t + 1 == nt)
      start[n_keys] = n;
  }
}

void dem_grid_cells_of(const struct dem_grid *g, const double (*x)[3], size_t n,
                       size_t *cell) {
  /* dem_grid_coords and dem_grid_index with the grid in registers: through
   * g, each store to cell[] (size_t, as g->dims) made the loop load the
   * grid again (60,000 spheres: 294 us against 206 us a build). */
  const long nn = (long)n;
  const double lo[3] = {g->lo[0], g->lo[1], g->lo[2]}, inv_h = g->inv_h;
  const long dims[3] = {(long)g->dims[0], (long)g->dims[1], (long)g->dims[2]};
  const double top[3] = {(double)(dims[0] - 1), (double)(dims[1] - 1),
                         (double)(dims[2] - 1)};
  DEM_PARALLEL_IF(
      nn > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long k = 0; k < nn; k++) {
    long c[3];
    for (int a = 0; a < 3; a++) {
      const double u = (x[k][a] - lo[a]) * inv_h;
      c[a] = u > 0 ? (u < top[a] ? (long)u : dims[a] - 1) : 0;
    }
    cell[k] = (size_t)((c[2] * dims[1] + c[1]) * dims[0] + c[0]);
      });
}
