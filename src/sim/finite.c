/* Scans of bodies' fields for values that are not finite, in SIMD lanes. */
#include "sim/finite.h"

#include "core/isa.h"

/* x * 0 is NaN exactly when x is not finite, and a sum of zeros and NaNs
 * is NaN in any order, so the sums may be reassociated into SIMD lanes,
 * and several fields summed in one pass. */
static DEM_ALWAYS_INLINE void motion_lanes(const struct dem_bodies *b, long i0,
                                           long i1, int *bad) {
  const long n3 = 3 * (i1 - i0), n4 = 4 * (i1 - i0);
  const double *restrict x = b->x[i0], *restrict v = b->v[i0],
                         *restrict w = b->w[i0], *restrict q = b->q[i0];
  double z = 0.0;
#pragma omp simd reduction(+ : z)
  for (long i = 0; i < n3; i++)
    z += x[i] * 0.0 + v[i] * 0.0 + w[i] * 0.0;
#pragma omp simd reduction(+ : z)
  for (long i = 0; i < n4; i++)
    z += q[i] * 0.0;
  *bad = z != 0.0;
}

static DEM_ALWAYS_INLINE void loads_lanes(const struct dem_bodies *b, long i0,
                                          long i1, int *bad) {
  const long n3 = 3 * (i1 - i0);
  const double *restrict f = b->force[i0], *restrict t = b->torque[i0];
  double z = 0.0;
#pragma omp simd reduction(+ : z)
  for (long i = 0; i < n3; i++)
    z += f[i] * 0.0 + t[i] * 0.0;
  *bad = z != 0.0;
}

DEM_ISA_DISPATCH_STATIC(motion_scan,
                        (const struct dem_bodies *b, long i0, long i1,
                         int *bad),
                        motion_lanes, (b, i0, i1, bad))
DEM_ISA_DISPATCH_STATIC(loads_scan,
                        (const struct dem_bodies *b, long i0, long i1,
                         int *bad),
                        loads_lanes, (b, i0, i1, bad))

int dem_bodies_motion_suspect(const struct dem_bodies *b, size_t i0,
                              size_t i1) {
  int bad = 0;
  if (i1 > i0)
    motion_scan(b, (long)i0, (long)i1, &bad);
  return bad;
}

int dem_bodies_loads_suspect(const struct dem_bodies *b, size_t i0, size_t i1) {
  int bad = 0;
  if (i1 > i0)
    loads_scan(b, (long)i0, (long)i1, &bad);
  return bad;
}
