/* The `hertz_mindlin` loops for processors with AVX2 (compiled with -mavx2
 * where CMakeLists.txt finds the compiler takes it, and empty elsewhere):
 * four lanes to a vector rather than two, the same results bitwise (the
 * same operations in every lane; no fused multiply-add). */
#ifdef __AVX2__
#define DEM_HM_LOOP(name) dem_hm_##name##_avx2
#include "contact/hertz_mindlin_lanes.h"
#endif
