/* A rotation integrator run over the bodies' arrays, a block at a time. */
#ifndef DEM_ROT_BODIES_H
#define DEM_ROT_BODIES_H

#include <stddef.h>

#include "core/isa.h"
#include "core/parallel.h"
#include "integrators/rot_block.h"
#include "sim/sim.h"

/* Which of the integrator's state-changing functions. */
enum dem_rot_fn { DEM_ROT_START, DEM_ROT_BEFORE, DEM_ROT_AFTER };

/* Bodies per iteration of the callers' parallel loops: whole blocks, and
 * enough of them that a call costs little per body. Where the chunks
 * start does not change a bit of the results. */
enum { DEM_ROT_CHUNK = 8 * DEM_ROT_LANES };

/* The chunks of n bodies, and chunk c's bodies [*i0, *i1) (the last chunk
 * shorter). */
static inline long dem_rot_chunks(size_t n) {
  return (long)((n + DEM_ROT_CHUNK - 1) / DEM_ROT_CHUNK);
}
static inline void dem_rot_chunk(size_t n, long c, size_t *i0, size_t *i1) {
  *i0 = (size_t)c * DEM_ROT_CHUNK;
  *i1 = n - *i0 < DEM_ROT_CHUNK ? n : *i0 + DEM_ROT_CHUNK;
}

/* DEM_ROT_CHUNKS(n, i0, i1, BODY): BODY for each chunk [i0, i1) of the n
 * bodies (n is read more than once), the chunks on threads when
 * n > DEM_PARALLEL_MIN: the callers' parallel loop. */
#define DEM_ROT_CHUNKS(n, i0, i1, ...)                                           \
  DEM_PARALLEL_IF((n) > DEM_PARALLEL_MIN, omp parallel for schedule(static),   \
                  for (long c_ = 0; c_ < dem_rot_chunks(n); c_++) {            \
                    size_t i0, i1;                                             \
                    dem_rot_chunk((n), c_, &i0, &i1);                          \
                    __VA_ARGS__                                                \
                  })

/* Runs `fn` of `rot` (torques from b->torque, step dt) on the bodies
 * [i0, i1) and normalises their q if `normalise`: DEM_ROT_LANES at a time
 * in SIMD lanes with the scheme's block kernels (variant `isa`) where it
 * has them, else body by body. Each body's result is bitwise what its
 * per-body function gives, so neither the blocks nor the threads that run
 * them change a bit of the output. */
void dem_rot_bodies_advance(const struct dem_rotation_integrator *rot,
                            enum dem_rot_fn fn, struct dem_bodies *b, size_t i0,
                            size_t i1, double dt, int normalise,
                            enum dem_isa isa);

/* w_out[i] for the bodies i in [i0, i1): the angular velocity at the step
 * boundary, body frame (rot->sync; b->w itself if rot is NULL or has no
 * sync). */
void dem_rot_bodies_sync(const struct dem_rotation_integrator *rot,
                         const struct dem_bodies *b, size_t i0, size_t i1,
                         double dt, double (*w_out)[3], enum dem_isa isa);

/* For contact laws that read velocities, bodies [i0, i1): w_contact = q w_s
 * in the lab frame, w_s the synchronised w (as dem_rot_bodies_sync) if
 * `sync`, else w; and w_move = q w, with which the bodies moved. */
void dem_rot_bodies_lab(const struct dem_rotation_integrator *rot, int sync,
                        struct dem_bodies *b, size_t i0, size_t i1, double dt,
                        enum dem_isa isa);

#endif
