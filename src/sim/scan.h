/* Prefix sums over per-item counts, split between the threads (internal):
 * the ranges of the neighbour lists and of the contacts. */
#ifndef DEM_SIM_SCAN_H
#define DEM_SIM_SCAN_H

#include <stddef.h>

/* On entry start[i + 1] holds item i's count (i < n); on return start[i]
 * is the sum of the counts before item i (start[0] = 0, start[n] the
 * total, which it returns). Integer sums: the same for any thread count.
 * Call it outside a parallel region. */
size_t dem_prefix_counts(size_t *start, size_t n);

/* dem_prefix_counts when only the items at[0..m) (ascending) may have a
 * count (start[at[a] + 1]); the others' entries are written, not read:
 * every start[0..n] is set, in one serial pass. */
size_t dem_prefix_counts_at(size_t *start, size_t n, const size_t *at,
                            size_t m);

/* Lists of many threads: at most this many slices, whatever the team. */
enum { DEM_SCAN_MAX_SLICES = 256 };

#endif
