/* Parallel loops that cost nothing when they are small. */
#ifndef DEM_PARALLEL_H
#define DEM_PARALLEL_H

#include <stddef.h>

#include <omp.h>

/* Runs the statement (the arguments after `pragma`, commas and all) under
 * the OpenMP directive `pragma` (its words, not a string: a long string
 * would be split, which _Pragma refuses) when `cond` holds, else plainly. A
 * parallel region whose `if` clause is false still goes through libgomp
 * (a team of one, and futex wake-ups when it ends): about ten a step, the
 * system time of a small run. Run plainly, the worksharing directives
 * inside the statement (written _Pragma("omp for ...")) bind to no team:
 * one thread does every iteration, with no lock and no system call. With
 * one thread (--threads 1) every loop runs plainly, whatever its size, so
 * the thresholds can be low without costing serial runs anything. */
#define DEM_PARALLEL_IF(cond, pragma, ...)                                     \
  do {                                                                         \
    if ((cond) && omp_get_max_threads() > 1) {                                 \
      _Pragma(#pragma) __VA_ARGS__                                             \
    } else {                                                                   \
      __VA_ARGS__                                                              \
    }                                                                          \
  } while (0)

/* The calling thread's static slice [*i0, *i1) of n items, n t / nt to
 * n (t + 1) / nt; outside a team (a loop run plainly), all of them. */
static inline void dem_thread_slice(size_t n, size_t *i0, size_t *i1) {
  const size_t t = (size_t)omp_get_thread_num(),
               nt = (size_t)omp_get_num_threads();
  *i0 = n * t / nt;
  *i1 = n * (t + 1) / nt;
}

#endif
