/* One scratch buffer that the phases needing large temporary arrays (the
 * neighbour build, the spatial sort of bodies, the observer's energy sums)
 * borrow in turn: each lays its arrays out in it when it starts and leaves
 * nothing there for later, so a run holds the largest of them rather than
 * their sum. */
#ifndef DEM_SIM_SCRATCH_H
#define DEM_SIM_SCRATCH_H

#include <stddef.h>

#include "dem/status.h"

struct dem_scratch {
  void *p;
  size_t bytes;
};

/* Bytes that n items of `size` bytes take in the scratch: each array
 * starts on a cache line. */
static inline size_t dem_scratch_size(size_t n, size_t size) {
  return (n * size + 63) & ~(size_t)63;
}

/* Makes s hold at least `bytes` bytes (what it held is lost when it
 * grows). */
dem_status dem_scratch_reserve(struct dem_scratch *s, size_t bytes);

/* The array of n items of `size` bytes at byte offset *at of s (a
 * multiple of 64); moves *at past it. */
static inline void *dem_scratch_take(const struct dem_scratch *s, size_t *at,
                                     size_t n, size_t size) {
  void *p = (char *)s->p + *at;
  *at += dem_scratch_size(n, size);
  return p;
}

void dem_scratch_release(struct dem_scratch *s);

#endif
