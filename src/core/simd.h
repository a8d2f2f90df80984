/* Runtime choice of vector instructions for hot loops in a portable build. */
#ifndef DEM_SIMD_H
#define DEM_SIMD_H

/* DEM_SIMD_DISPATCH(name, params, impl, args) defines the function
 * `void name params`, which runs `impl args` compiled for AVX-512, for
 * AVX2 or for the build's own target (SSE2 by default), whichever is the
 * widest this CPU has. impl is a DEM_SIMD_INLINE function whose loops
 * the compiler vectorises (`#pragma omp simd`; no OpenMP threads inside:
 * the caller makes them), and so is every function it calls (so that
 * each copy is compiled whole for its target); params and args are
 * parenthesised lists, e.g.
 *
 *   DEM_SIMD_INLINE void scale_impl(double *x, size_t n) { ... }
 *   DEM_SIMD_DISPATCH(dem_scale, (double *x, size_t n), scale_impl, (x, n))
 *
 * (DEM_SIMD_DISPATCH_STATIC for a `static` one.)
 *
 * The default build runs on any x86-64, so without this its loops get
 * two doubles a vector; a build with -march=native gets the CPU's own
 * width anyway. The copies do the same IEEE operations in the same order
 * (neither target enables FMA, and C11 mode keeps gcc from fusing), so
 * results are bitwise the same whichever runs. Written with the target
 * attribute and __builtin_cpu_supports, which gcc 12 and clang 14 both
 * take (clang 14 cannot call a target_clones function from another
 * file). Plain code on other CPUs and compilers. */

/* clang warns for every `omp simd` loop it does not vectorise, as at -O1
 * (the fuzz build): the loops are right either way. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

#if defined(__GNUC__)
#define DEM_SIMD_INLINE static inline __attribute__((always_inline))
#else
#define DEM_SIMD_INLINE static inline
#endif

/* The widest copy the dispatch may pick: DEM_SIMD_AVX512 unless a test
 * (every copy must give the same bits) or a benchmark lowers it. */
enum { DEM_SIMD_BASE, DEM_SIMD_AVX2, DEM_SIMD_AVX512 };
extern int dem_simd_limit;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(DEM_NO_SIMD_DISPATCH)
#define DEM_SIMD_DISPATCH_AS(linkage, name, params, impl, args)                \
  __attribute__((target("avx512f"))) static void name##_avx512 params {        \
    impl args;                                                                 \
  }                                                                            \
  __attribute__((target("avx2"))) static void name##_avx2 params {             \
    impl args;                                                                 \
  }                                                                            \
  static void name##_base params { impl args; }                                \
  linkage void name params {                                                   \
    if (dem_simd_limit >= DEM_SIMD_AVX512 &&                                   \
        __builtin_cpu_supports("avx512f"))                                     \
      name##_avx512 args;                                                      \
    else if (dem_simd_limit >= DEM_SIMD_AVX2 &&                                \
             __builtin_cpu_supports("avx2"))                                   \
      name##_avx2 args;                                                        \
    else                                                                       \
      name##_base args;                                                        \
  }
#else
#define DEM_SIMD_DISPATCH_AS(linkage, name, params, impl, args)                \
  linkage void name params { impl args; }
#endif

/* The dispatching function, shared (declared in a header) or static. */
#define DEM_SIMD_DISPATCH(name, params, impl, args)                            \
  DEM_SIMD_DISPATCH_AS(, name, params, impl, args)
#define DEM_SIMD_DISPATCH_STATIC(name, params, impl, args)                     \
  DEM_SIMD_DISPATCH_AS(static, name, params, impl, args)

#endif
