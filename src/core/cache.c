/* The size of one core's second-level cache, read once. */
#include "core/cache.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* What a processor of today has at least (AMD Zen 4 and 5: 1 MiB; Intel
 * server cores: 1.25-2 MiB): assumed where the system does not say. */
#define DEM_CACHE_L2_DEFAULT ((size_t)1 << 20)

static size_t detect(void) {
  const char *env = getenv("DEM_L2_BYTES");
  if (env && *env) {
    char *end;
    const unsigned long long n = strtoull(env, &end, 10);
    if (*end == '\0' && n > 0)
      return (size_t)n;
  }
#ifdef _SC_LEVEL2_CACHE_SIZE
  const long n = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (n > 0)
    return (size_t)n;
#endif
  return DEM_CACHE_L2_DEFAULT;
}

size_t dem_cache_l2_bytes(void) {
  /* Read once; two threads racing here store the same value. */
  static _Atomic size_t cached = 0;
  size_t n = atomic_load_explicit(&cached, memory_order_relaxed);
  if (!n) {
    n = detect();
    atomic_store_explicit(&cached, n, memory_order_relaxed);
  }
  return n;
}
