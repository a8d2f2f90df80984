/* Transparent huge pages for large arrays: the advice and a calloc. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "core/huge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The huge page of x86-64 and of arm64 with 4 KiB pages. */
#define HUGE_PAGE ((uintptr_t)2 << 20)

void dem_huge_advise(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  uintptr_t e = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
  if (p && e > a)
    (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

void *dem_huge_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size)
    return NULL;
  size_t bytes = count * size;
  if (bytes < 2 * HUGE_PAGE) /* no whole huge page inside: leave it */
    return calloc(count, size);
  void *p = malloc(bytes);
  if (p) {
    dem_huge_advise(p, bytes);
    memset(p, 0, bytes);
  }
  return p;
}
