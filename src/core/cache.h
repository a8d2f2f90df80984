/* The size of one core's second-level cache, for choosing when a loop
 * should ask for lines ahead of its reads. */
#ifndef DEM_CORE_CACHE_H
#define DEM_CORE_CACHE_H

#include <stddef.h>

/* One core's second-level cache in bytes, read once from the system
 * (1 MiB where it does not say); DEM_L2_BYTES=n in the environment sets
 * it instead (for measurements and tests). */
size_t dem_cache_l2_bytes(void);

#endif
