/* The cap on the vector copies DEM_SIMD_DISPATCH may pick (core/simd.h). */
#include "core/simd.h"

int dem_simd_limit = DEM_SIMD_AVX512;
