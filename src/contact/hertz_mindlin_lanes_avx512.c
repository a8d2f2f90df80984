/* The `hertz_mindlin` loops for processors with AVX-512 (compiled with
 * -mavx512vl where CMakeLists.txt finds the compiler takes it, and empty
 * elsewhere): four lanes to a vector, as for AVX2, but with 32 vector
 * registers and mask registers, so that the law keeps its values in
 * registers rather than on the stack. The same results bitwise (the same
 * operations in every lane; no fused multiply-add). */
#ifdef __AVX512VL__
#define DEM_HM_LOOP(name) dem_hm_##name##_avx512
#include "contact/hertz_mindlin_lanes.h"
#endif
