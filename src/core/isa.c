/* Which SIMD variant of the block kernels this CPU runs. */
#include "core/isa.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *const isa_names[DEM_ISA_COUNT] = {"base", "avx2", "avx512"};

const char *dem_isa_name(enum dem_isa isa) {
  return isa >= 0 && isa < DEM_ISA_COUNT ? isa_names[isa] : "?";
}

int dem_isa_supported(enum dem_isa isa) {
#if DEM_ISA_VARIANTS
  /* libgcc's (and compiler-rt's) cpu model also checks that the OS saves
   * the wider registers (XGETBV). */
  __builtin_cpu_init();
  switch (isa) {
  case DEM_ISA_BASE:
    return 1;
  case DEM_ISA_AVX2:
    return __builtin_cpu_supports("avx2");
  case DEM_ISA_AVX512: /* the contact law's variant uses VL's encodings */
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512vl");
  default:
    return 0;
  }
#else
  return isa == DEM_ISA_BASE;
#endif
}

static enum dem_isa detect(void) {
  enum dem_isa best = DEM_ISA_BASE, cap = DEM_ISA_COUNT - 1;
  const char *env = getenv("DEM_ISA");
  for (int i = 0; env && i < DEM_ISA_COUNT; i++)
    if (strcmp(env, isa_names[i]) == 0)
      cap = (enum dem_isa)i;
  for (int i = 1; i <= (int)cap; i++)
    if (dem_isa_supported((enum dem_isa)i))
      best = (enum dem_isa)i;
  return best;
}

static atomic_int limit = DEM_ISA_COUNT - 1;

void dem_isa_limit(enum dem_isa cap) {
  atomic_store_explicit(&limit, (int)cap, memory_order_relaxed);
}

enum dem_isa dem_isa_best(void) {
  /* Detected once; two threads racing here store the same value. */
  static atomic_int cached = -1;
  int isa = atomic_load_explicit(&cached, memory_order_relaxed);
  if (isa < 0) {
    isa = (int)detect();
    atomic_store_explicit(&cached, isa, memory_order_relaxed);
  }
  int cap = atomic_load_explicit(&limit, memory_order_relaxed);
  return (enum dem_isa)(isa < cap ? isa : cap);
}
