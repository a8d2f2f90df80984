/* Instruction sets for the SIMD block kernels, chosen at run time. */
#ifndef DEM_ISA_H
#define DEM_ISA_H

/* A portable build (no -march) compiles each hot block kernel once per
 * entry here and runs the best one the CPU has, so it uses AVX2 or AVX-512
 * without being built for them. Every variant performs the same IEEE
 * operations in the same order (no FMA contraction: -ffp-contract=off,
 * CMakeLists.txt), so they give bitwise the same results. */
enum dem_isa { DEM_ISA_BASE, DEM_ISA_AVX2, DEM_ISA_AVX512, DEM_ISA_COUNT };

/* The best variant this CPU runs; DEM_ISA=base|avx2|avx512 in the
 * environment caps it (for measurements and tests), and so does
 * dem_isa_limit (for a test that runs every variant in one process). */
enum dem_isa dem_isa_best(void);
void dem_isa_limit(enum dem_isa cap);

/* Whether the CPU runs the variant (base always; avx512: AVX-512 F and
 * VL, as every AVX-512 processor but the Xeon Phi has). */
int dem_isa_supported(enum dem_isa isa);

/* "base", "avx2", "avx512". */
const char *dem_isa_name(enum dem_isa isa);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DEM_ISA_VARIANTS 1
#define DEM_TARGET_AVX2 __attribute__((target("avx2")))
#define DEM_TARGET_AVX512 __attribute__((target("avx512f")))
#else
#define DEM_ISA_VARIANTS 0
#define DEM_TARGET_AVX2
#define DEM_TARGET_AVX512
#endif

/* clang warns for every `omp simd` loop it does not vectorise, as at -O1
 * (the fuzz build): the loops are right either way. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define DEM_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define DEM_ALWAYS_INLINE inline
#endif

/* Defines `static void NAME_base PARAMS`, `NAME_avx2` and `NAME_avx512`,
 * each the inline function KERNEL called with ARGS and compiled for its
 * instruction set, and `static void (*const NAME[DEM_ISA_COUNT]) PARAMS`
 * listing them. KERNEL and everything it calls in its loops must be
 * DEM_ALWAYS_INLINE (or small static inline helpers), so that the loops
 * are vectorised in each variant: a call left in a loop stops that (clang
 * keeps calls to larger static inline functions). Without target
 * attributes all three are the base one. */
#define DEM_ISA_DEFINE(name, kernel, params, args)                             \
  static void name##_base params { kernel args; }                              \
  DEM_TARGET_AVX2 static void name##_avx2 params { kernel args; }              \
  DEM_TARGET_AVX512 static void name##_avx512 params { kernel args; }          \
  static void(*const name[DEM_ISA_COUNT])                                      \
      params = {name##_base, name##_avx2, name##_avx512}

/* DEM_ISA_DISPATCH(name, params, kernel, args) defines `void name params`,
 * which runs the variant of `kernel args` that dem_isa_best() names, e.g.
 *
 *   static DEM_ALWAYS_INLINE void scale_lanes(double *x, size_t n) {...}
 *   DEM_ISA_DISPATCH(dem_scale, (double *x, size_t n), scale_lanes, (x, n))
 *
 * (DEM_ISA_DISPATCH_STATIC for a `static` one). No OpenMP threads inside
 * the kernel: its caller makes them. */
#define DEM_ISA_DISPATCH_AS(linkage, name, params, kernel, args)               \
  DEM_ISA_DEFINE(name##_variants, kernel, params, args);                       \
  linkage void name params { name##_variants[dem_isa_best()] args; }
#define DEM_ISA_DISPATCH(name, params, kernel, args)                           \
  DEM_ISA_DISPATCH_AS(, name, params, kernel, args)
#define DEM_ISA_DISPATCH_STATIC(name, params, kernel, args)                    \
  DEM_ISA_DISPATCH_AS(static, name, params, kernel, args)

#endif
