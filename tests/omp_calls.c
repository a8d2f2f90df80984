/* Counts a process's calls into libgomp's regions and worksharing (loaded
 * with LD_PRELOAD by tests/cli_no_toll.sh): each call is passed on to
 * libgomp, and the count is written to the file $DEM_OMP_CALLS at exit
 * (the total, then each entry's).
 * These are the entries that make a team, allocate a work share or take a
 * lock even when no team runs. Not counted: what returns at once outside
 * a team (omp_get_num_threads and omp_get_thread_num for an orphaned
 * static `omp for`, GOMP_barrier at its end, GOMP_single_start), a few
 * instructions each. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Calls of each entry, by name (the first that many of `names`). */
#define MAX_NAMES 16
static const char *_Atomic names[MAX_NAMES];
static atomic_long calls[MAX_NAMES];

static void count(const char *name) {
  for (int i = 0; i < MAX_NAMES; i++) {
    const char *seen = NULL;
    if (atomic_compare_exchange_strong(&names[i], &seen, name) ||
        seen == name) {
      atomic_fetch_add_explicit(&calls[i], 1, memory_order_relaxed);
      return;
    }
  }
}

/* libgomp's own definition of `name`, of type `type`. */
#define NEXT(type, name)                                                       \
  static type next;                                                            \
  count(name);                                                                 \
  if (!next)                                                                   \
    next = (type)dlsym(RTLD_NEXT, name);                                       \
  if (!next)                                                                   \
  abort()

typedef bool (*loop_start6)(long, long, long, long, long *, long *);
typedef bool (*loop_start5)(long, long, long, long *, long *);
typedef bool (*loop_start9)(long, long, long, long, long, long *, long *,
                            uintptr_t *, void **);
typedef void (*parallel)(void (*)(void *), void *, unsigned, unsigned);
typedef void (*no_args)(void);

#define LOOP_START6(name)                                                      \
  bool name(long a, long b, long c, long d, long *e, long *f) {                \
    NEXT(loop_start6, #name);                                                  \
    return next(a, b, c, d, e, f);                                             \
  }
#define NO_ARGS(name)                                                          \
  void name(void) {                                                            \
    NEXT(no_args, #name);                                                      \
    next();                                                                    \
  }

LOOP_START6(GOMP_loop_static_start)
LOOP_START6(GOMP_loop_dynamic_start)
LOOP_START6(GOMP_loop_guided_start)
LOOP_START6(GOMP_loop_nonmonotonic_dynamic_start)
LOOP_START6(GOMP_loop_nonmonotonic_guided_start)
NO_ARGS(GOMP_loop_end)
NO_ARGS(GOMP_loop_end_nowait)
NO_ARGS(GOMP_critical_start)
NO_ARGS(GOMP_atomic_start)

bool GOMP_loop_runtime_start(long a, long b, long c, long *d, long *e) {
  NEXT(loop_start5, "GOMP_loop_runtime_start");
  return next(a, b, c, d, e);
}

bool GOMP_loop_start(long a, long b, long c, long d, long e, long *f, long *g,
                     uintptr_t *h, void **i) {
  NEXT(loop_start9, "GOMP_loop_start");
  return next(a, b, c, d, e, f, g, h, i);
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned n, unsigned flags) {
  NEXT(parallel, "GOMP_parallel");
  next(fn, data, n, flags);
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("DEM_OMP_CALLS");
  FILE *f = path ? fopen(path, "w") : NULL;
  if (!f)
    return;
  long total = 0;
  for (int i = 0; i < MAX_NAMES; i++)
    total += atomic_load(&calls[i]);
  fprintf(f, "%ld\n", total); /* then each entry called */
  for (int i = 0; i < MAX_NAMES && atomic_load(&names[i]); i++)
    fprintf(f, "%s %ld\n", atomic_load(&names[i]), atomic_load(&calls[i]));
  fclose(f);
}
