/* Static shares of a loop's items that a thread done early takes from. */
#ifndef DEM_SHARES_H
#define DEM_SHARES_H

#include <stddef.h>
#include <stdint.h>

#include <omp.h>

/* Items [0, n) cut into as many contiguous shares as the planned team has
 * threads, one each, as a static schedule would. A thread takes its own
 * share's items from the front, in order; when it has none left, it takes
 * another share's from the back, one at a time. A core slowed by another
 * job on the machine (on the shared 2-core machines, one thread up to
 * 28 % slower than the other in every loop for a whole run) then leaves
 * its last items to the other, and a thread still reads mostly the rows
 * it read the step before (docs/performance.md, "Shares a thread done
 * early takes from"). Who takes an item
 * must change no result: each item's work must be its own (its own rows,
 * or sums that any order gives alike). */
enum { DEM_SHARES_MAX = 64 }; /* threads with a share; more only take */

struct dem_shares {
  int parts;
  struct {
    _Alignas(64) uint64_t range; /* next << 32 | end: one word, one CAS */
  } share[DEM_SHARES_MAX];
};

/* Set before the parallel region (its start orders the writes before the
 * threads' reads), for n < 2^32 items and `threads` planned threads (a
 * smaller team takes the missing threads' shares). */
static inline void dem_shares_init(struct dem_shares *s, size_t n,
                                   int threads) {
  const size_t parts = threads < 1                ? 1
                       : threads > DEM_SHARES_MAX ? DEM_SHARES_MAX
                                                  : (size_t)threads;
  s->parts = (int)parts;
  for (size_t t = 0; t < parts; t++)
    s->share[t].range = (uint64_t)(n * t / parts) << 32 | n * (t + 1) / parts;
}

/* One item of share t, from its front (own) or its back; -1 if none. */
static inline long dem_shares_take(struct dem_shares *s, int t, int own) {
  uint64_t w = __atomic_load_n(&s->share[t].range, __ATOMIC_RELAXED);
  for (;;) {
    const uint64_t next = w >> 32, end = w & 0xffffffffu;
    if (next >= end)
      return -1;
    const uint64_t taken =
        own ? (next + 1) << 32 | end : next << 32 | (end - 1);
    if (__atomic_compare_exchange_n(&s->share[t].range, &w, taken, 1,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return (long)(own ? next : end - 1);
  }
}

/* The next item for thread t: its own share's next, else the last of
 * the first other share with any left (from t + 1 on); -1 when every
 * item is taken. */
static inline long dem_shares_next(struct dem_shares *s, int t) {
  long k = t < s->parts ? dem_shares_take(s, t, 1) : -1;
  for (int u = 1; k < 0 && u <= s->parts; u++) {
    const int v = (t + u) % s->parts;
    if (v != t)
      k = dem_shares_take(s, v, 0);
  }
  return k;
}

/* Parts a thread's share holds in DEM_IN_SHARED_PARTS: enough that a
 * thread done early finds some of another's left to take. */
enum { DEM_SHARES_PARTS = 8 };

/* Runs the statement (the arguments after i1, commas and all) on each
 * part [i0, i1) of n items cut into DEM_SHARES_PARTS parts a thread of
 * `threads`, in a parallel region, each thread taking the parts of its
 * own share first (dem_shares_next). */
#define DEM_IN_SHARED_PARTS(n, threads, i0, i1, ...)                           \
  do {                                                                         \
    const size_t n_ = (n), parts_ = (size_t)(threads)*DEM_SHARES_PARTS;        \
    struct dem_shares shares_;                                                 \
    dem_shares_init(&shares_, parts_, (threads));                              \
    _Pragma("omp parallel") {                                                  \
      const int me_ = omp_get_thread_num();                                    \
      for (long k_; (k_ = dem_shares_next(&shares_, me_)) >= 0;) {             \
        const size_t i0 = n_ * (size_t)k_ / parts_,                            \
                     i1 = n_ * ((size_t)k_ + 1) / parts_;                      \
        __VA_ARGS__                                                            \
      }                                                                        \
    }                                                                          \
  } while (0)

#endif
