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
  if (bytes < HUGE_PAGE) /* not one huge page: leave it */
    return calloc(count, size);
  /* On a huge page boundary, so that every whole 2 MiB of the array is a
   * huge page (from 2 MiB, not 4); the tail stays on small pages, so
   * resident memory is what the array touches, no more. */
  void *p = NULL;
  if (posix_memalign(&p, HUGE_PAGE, bytes))
    return NULL;
  dem_huge_advise(p, bytes);
  memset(p, 0, bytes);
  return p;
}
