/* Cubic cell grids over a box and a stable counting sort by cell. */
#include "sim/grid.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

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

/* The serial sort: count, scan, place, shift back. */
static void counting_sort_serial(size_t n, const size_t *key, size_t n_keys,
                                 size_t *start, size_t *order) {
  memset(start, 0, (n_keys + 1) * sizeof *start);
  for (size_t i = 0; i < n; i++) {
    if (i + SORT_AHEAD < n)
      __builtin_prefetch(&start[key[i + SORT_AHEAD] + 1], 1);
    start[key[i] + 1]++;
  }
  for (size_t c = 0; c < n_keys; c++)
    start[c + 1] += start[c];
  for (size_t i = 0; i < n; i++) {
    if (i + SORT_AHEAD < n)
      __builtin_prefetch(&start[key[i + SORT_AHEAD]], 1);
    order[start[key[i]]++] = i;
  }
  for (size_t c = n_keys; c > 0; c--)
    start[c] = start[c - 1];
  start[0] = 0;
}

/* Coarse bins of keys for balancing the threads' shares. */
enum { BINS = 256 };

/* The first bin b with sum(coarse[0..b)) >= target. */
static size_t bin_at(const size_t *coarse, size_t bins, size_t target) {
  size_t b = 0, sum = 0;
  while (b < bins && sum < target)
    sum += coarse[b++];
  return b;
}

/* Stable counting sort of n items by key (0..n_keys-1, where key n_keys-1
 * is the left-out bucket): order[new] = old, start[key] = first new.
 * Each thread takes a range of keys holding about n / threads items
 * (from a coarse count of bins of keys), counts its keys' items, places
 * them scanning every item in order, and sets its keys' starts: the
 * result is the serial one for any thread count, and no thread needs a
 * count array of its own. */
void dem_counting_sort(size_t n, const size_t *key, size_t n_keys,
                       size_t *start, size_t *order) {
  int most = omp_get_max_threads();
  if (n <= DEM_PARALLEL_MIN || most == 1) {
    counting_sort_serial(n, key, n_keys, start, order);
    return;
  }
  int shift = 0; /* keys per bin: a power of two, no division per item */
  while ((n_keys + ((size_t)1 << shift) - 1) >> shift > BINS)
    shift++;
  const size_t bins = (n_keys + ((size_t)1 << shift) - 1) >> shift;
  size_t coarse[BINS] = {0};
  const long nn = (long)n;
#pragma omp parallel
  {
    const size_t t = (size_t)omp_get_thread_num(),
                 nt = (size_t)omp_get_num_threads();
#pragma omp for schedule(static) reduction(+ : coarse[:BINS])
    for (long i = 0; i < nn; i++)
      coarse[key[i] >> shift]++;
    const size_t b0 = bin_at(coarse, bins, n * t / nt),
                 b1 = t + 1 == nt ? bins
                                  : bin_at(coarse, bins, n * (t + 1) / nt);
    const size_t c0 = b0 << shift < n_keys ? b0 << shift : n_keys,
                 c1 = b1 << shift < n_keys ? b1 << shift : n_keys;
    size_t base = 0;
    for (size_t b = 0; b < b0; b++)
      base += coarse[b];
    for (size_t c = c0; c < c1; c++)
      start[c] = 0;
    for (size_t i = 0; i < n; i++) {
      if (i + SORT_AHEAD < n && key[i + SORT_AHEAD] - c0 < c1 - c0)
        __builtin_prefetch(&start[key[i + SORT_AHEAD]], 1);
      if (key[i] - c0 < c1 - c0) /* c0 <= key < c1, unsigned */
        start[key[i]]++;
    }
    for (size_t c = c0, run = base; c < c1; c++) {
      const size_t count = start[c];
      start[c] = run;
      run += count;
    }
    for (size_t i = 0; i < n; i++) {
      if (i + SORT_AHEAD < n && key[i + SORT_AHEAD] - c0 < c1 - c0)
        __builtin_prefetch(&start[key[i + SORT_AHEAD]], 1);
      if (key[i] - c0 < c1 - c0)
        order[start[key[i]]++] = i;
    }
    for (size_t c = c1; c > c0 + 1; c--)
      start[c - 1] = start[c - 2];
    if (c1 > c0)
      start[c0] = base;
    if (t + 1 == nt)
      start[n_keys] = n;
  }
}

void dem_grid_cells_of(const struct dem_grid *g, const double (*x)[3], size_t n,
                       size_t *cell) {
  const long nn = (long)n;
  DEM_PARALLEL_IF(
      nn > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long k = 0; k < nn; k++) {
    size_t c[3];
    dem_grid_coords(g, x[k], c);
    cell[k] = dem_grid_index(g, c);
      });
}
