/* Deterministic random numbers: splitmix64-seeded xoshiro256** (static inline).
 */
#ifndef DEM_RNG_H
#define DEM_RNG_H

#include <math.h>
#include <stdint.h>

struct dem_rng {
  uint64_t s[4];
};

static inline uint64_t dem_rng_splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static inline void dem_rng_seed(struct dem_rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++)
    r->s[i] = dem_rng_splitmix(&seed);
}
static inline uint64_t dem_rng_rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}
static inline uint64_t dem_rng_next(struct dem_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = dem_rng_rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = dem_rng_rotl(s[3], 45);
  return result;
}
/* Uniform in [0, 1). */
static inline double dem_rng_uniform(struct dem_rng *r) {
  return (double)(dem_rng_next(r) >> 11) * 0x1.0p-53;
}
/* Uniform random unit vector (Marsaglia's method). */
static inline void dem_rng_unit_vector(struct dem_rng *r, double u[3]) {
  double a, b, s;
  do {
    a = 2.0 * dem_rng_uniform(r) - 1.0;
    b = 2.0 * dem_rng_uniform(r) - 1.0;
    s = a * a + b * b;
  } while (s >= 1.0 || s == 0.0);
  double f = 2.0 * sqrt(1.0 - s);
  u[0] = a * f;
  u[1] = b * f;
  u[2] = 1.0 - 2.0 * s;
}
/* Uniform random rotation (Shoemake). */
static inline void dem_rng_quaternion(struct dem_rng *r, double q[4]) {
  double u1 = dem_rng_uniform(r), u2 = dem_rng_uniform(r),
         u3 = dem_rng_uniform(r);
  double a = sqrt(1.0 - u1), b = sqrt(u1);
  const double two_pi = 6.283185307179586;
  q[0] = a * sin(two_pi * u2);
  q[1] = a * cos(two_pi * u2);
  q[2] = b * sin(two_pi * u3);
  q[3] = b * cos(two_pi * u3);
}

#endif
