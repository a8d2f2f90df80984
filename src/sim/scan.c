/* Prefix sums over per-item counts: each thread sums its slice, the
 * slices' totals are scanned, then each thread writes its slice. */
#include "sim/scan.h"

#include <omp.h>

#include "sim/sim.h"

/* A pass that only adds: below this many items one thread does it
 * faster than a team forks and joins. */
#define SCAN_PARALLEL_MIN (4 * DEM_PARALLEL_MIN)

size_t dem_prefix_counts(size_t *start, size_t n) {
  start[0] = 0;
  if (n <= SCAN_PARALLEL_MIN || omp_get_max_threads() == 1) {
    for (size_t i = 0; i < n; i++)
      start[i + 1] += start[i];
    return start[n];
  }
  size_t part[DEM_SCAN_MAX_SLICES + 1];
  const int most = omp_get_max_threads() < DEM_SCAN_MAX_SLICES
                       ? omp_get_max_threads()
                       : DEM_SCAN_MAX_SLICES;
#pragma omp parallel num_threads(most)
  {
    const size_t t = (size_t)omp_get_thread_num(),
                 nt = (size_t)omp_get_num_threads();
    const size_t i0 = n * t / nt, i1 = n * (t + 1) / nt;
    size_t sum = 0;
    for (size_t i = i0; i < i1; i++)
      sum += start[i + 1];
    part[t + 1] = sum;
#pragma omp barrier
#pragma omp single
    {
      part[0] = 0;
      for (size_t u = 0; u < nt; u++)
        part[u + 1] += part[u];
    }
    size_t run = part[t];
    for (size_t i = i0; i < i1; i++) {
      run += start[i + 1];
      start[i + 1] = run;
    }
  }
  return start[n];
}

size_t dem_prefix_counts_at(size_t *start, size_t n, const size_t *at,
                            size_t m) {
  size_t run = 0, k = 0;
  for (size_t a = 0; a < m; a++) {
    const size_t i = at[a], count = start[i + 1]; /* read before the fill */
    for (; k <= i; k++)
      start[k] = run;
    run += count;
  }
  for (; k <= n; k++)
    start[k] = run;
  return run;
}
