/* The shared scratch buffer: grown on demand, never shrunk. */
#include "sim/scratch.h"

#include <stdlib.h>

dem_status dem_scratch_reserve(struct dem_scratch *s, size_t bytes) {
  if (bytes <= s->bytes && s->p)
    return DEM_OK;
  bytes = dem_scratch_size(bytes ? bytes : 1, 1);
  free(s->p);
  s->p = aligned_alloc(64, bytes);
  s->bytes = s->p ? bytes : 0;
  if (!s->p)
    return dem_fail(DEM_ERR_NOMEM, "out of memory for %zu bytes of scratch",
                    bytes);
  return DEM_OK;
}

void dem_scratch_release(struct dem_scratch *s) {
  free(s->p);
  s->p = NULL;
  s->bytes = 0;
}
