/* Large per-item arrays on transparent huge pages, where the kernel offers
 * them. */
#ifndef DEM_CORE_HUGE_H
#define DEM_CORE_HUGE_H

#include <stddef.h>

/* Asks the kernel (Linux: madvise MADV_HUGEPAGE) to back the whole 2 MiB
 * pages inside [p, p + bytes) with huge pages when they are first touched.
 * From 1e5 spheres the step's arrays outgrow what the TLB maps in 4 KiB
 * pages, and every miss is a page walk (two-level under a hypervisor):
 * docs/performance.md, "Cost per sphere, 1e4 to 1e6". A hint: a no-op
 * where unsupported, never an error. */
void dem_huge_advise(void *p, size_t bytes);

/* calloc(count, size); from 2 MiB on a huge page boundary and advised
 * before it is first touched (a page touched on 4 KiB stays so). Free
 * with free(). */
void *dem_huge_calloc(size_t count, size_t size);

#endif
