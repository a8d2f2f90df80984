/* A rotation integrator run over the bodies' arrays, a block at a time. */
#include "operators/rot_bodies.h"

#include <stdint.h>
#include <string.h>

#include "core/quat.h"

/* A full block works in place in the bodies' arrays; a shorter one (the
 * last) on a copy of its rows, padded with its last body, whose copies'
 * results are dropped. The kernels only read what is const here. */
static void block_view(struct dem_rot_block *k, const struct dem_bodies *b,
                       size_t i0) {
  k->q = b->q + i0;
  k->w = b->w + i0;
  k->aux = (double(*)[DEM_ROT_AUX])(b->rot_aux + i0 * DEM_ROT_AUX);
  k->inertia = b->inertia + i0;
  k->torque = b->torque + i0;
  k->w_out = NULL;
}

static void block_rows(struct dem_rot_block *k, struct dem_rot_rows *r,
                       const struct dem_bodies *b, size_t i0, size_t n,
                       int n_aux) {
  /* The n rows at once (the fields' rows are contiguous), then the
   * padding: copies of the last. */
  memcpy(r->q, b->q[i0], n * sizeof *r->q);
  memcpy(r->w, b->w[i0], n * sizeof *r->w);
  memcpy(r->inertia, b->inertia[i0], n * sizeof *r->inertia);
  memcpy(r->torque, b->torque[i0], n * sizeof *r->torque);
  if (n_aux)
    memcpy(r->aux, b->rot_aux + i0 * DEM_ROT_AUX, n * sizeof *r->aux);
  for (size_t l = n; l < DEM_ROT_LANES; l++) {
    q_copy(r->q[l], r->q[n - 1]);
    v3_copy(r->w[l], r->w[n - 1]);
    v3_copy(r->inertia[l], r->inertia[n - 1]);
    v3_copy(r->torque[l], r->torque[n - 1]);
    for (int c = 0; c < n_aux; c++)
      r->aux[l][c] = r->aux[n - 1][c];
  }
  k->q = r->q;
  k->w = r->w;
  k->aux = r->aux;
  k->inertia = r->inertia;
  k->torque = r->torque;
  k->w_out = r->w_out;
}

/* Whether a lane is to be redone: redo[l] != 0.0 for some l, on the
 * bits (all but the signs clear is +-0), one test, not eight. */
static int any_redo(const struct dem_rot_block *k) {
  uint64_t acc = 0, x;
  for (int l = 0; l < DEM_ROT_LANES; l++) {
    memcpy(&x, &k->redo[l], sizeof x);
    acc |= x;
  }
  return (acc << 1) != 0;
}

/* A short block's lanes back, but those to redo (the kernel left them as
 * they were, and they still are in the bodies' arrays). */
static void rows_store(const struct dem_rot_block *k,
                       const struct dem_rot_rows *r, struct dem_bodies *b,
                       size_t i0, size_t n, int n_aux) {
  if (!any_redo(k)) { /* all n rows at once */
    memcpy(b->q[i0], r->q, n * sizeof *r->q);
    memcpy(b->w[i0], r->w, n * sizeof *r->w);
    for (size_t l = 0; l < n && n_aux; l++)
      memcpy(b->rot_aux + (i0 + l) * DEM_ROT_AUX, r->aux[l],
             (size_t)n_aux * sizeof r->aux[l][0]);
    return;
  }
  for (size_t l = 0; l < n; l++) {
    if (k->redo[l] != 0.0)
      continue;
    q_copy(b->q[i0 + l], r->q[l]);
    v3_copy(b->w[i0 + l], r->w[l]);
    for (int c = 0; c < n_aux; c++)
      b->rot_aux[(i0 + l) * DEM_ROT_AUX + c] = r->aux[l][c];
  }
}

typedef void (*per_body_fn)(struct dem_rot_state *, const double[3],
                            const double[3], double);

/* Body i by the per-body function, which the kernels match bitwise. */
static void advance_one(const struct dem_rotation_integrator *rot,
                        per_body_fn f, struct dem_bodies *b, size_t i,
                        double dt, int normalise) {
  struct dem_rot_state s;
  dem_body_rot_load(b, i, &s, rot->aux_size);
  f(&s, b->inertia[i], b->torque[i], dt);
  if (normalise)
    q_normalize(s.q);
  dem_body_rot_store(b, i, &s, rot->aux_size);
}

void dem_rot_bodies_advance(const struct dem_rotation_integrator *rot,
                            enum dem_rot_fn fn, struct dem_bodies *b, size_t i0,
                            size_t i1, double dt, int normalise,
                            enum dem_isa isa) {
  const struct dem_rot_block_kernels *bk = rot->block;
  per_body_fn f = fn == DEM_ROT_START    ? rot->start
                  : fn == DEM_ROT_BEFORE ? rot->before_force
                                         : rot->after_force;
  const dem_rot_block_fn *kernel = !bk                    ? NULL
                                   : fn == DEM_ROT_START  ? bk->start
                                   : fn == DEM_ROT_BEFORE ? bk->before_force
                                                          : bk->after_force;
  const int n_aux = rot->aux_size;
  if (!kernel) {
    for (size_t i = i0; i < i1; i++)
      advance_one(rot, f, b, i, dt, normalise);
    return;
  }
  for (size_t j = i0; j < i1; j += DEM_ROT_LANES) {
    const size_t n = i1 - j < DEM_ROT_LANES ? i1 - j : DEM_ROT_LANES;
    struct dem_rot_block k;
    struct dem_rot_rows rows;
    if (n == DEM_ROT_LANES)
      block_view(&k, b, j);
    else
      block_rows(&k, &rows, b, j, n, n_aux);
    kernel[isa](&k, dt);
    if (normalise)
      dem_rot_block_normalise(&k, isa);
    if (n < DEM_ROT_LANES)
      rows_store(&k, &rows, b, j, n, n_aux);
    if (any_redo(&k))
      for (size_t l = 0; l < n; l++)
        if (k.redo[l] != 0.0)
          advance_one(rot, f, b, j + l, dt, normalise);
  }
}

static void sync_one(const struct dem_rotation_integrator *rot,
                     const struct dem_bodies *b, size_t i, double dt,
                     double w_out[3]) {
  struct dem_rot_state s;
  dem_body_rot_load(b, i, &s, rot->aux_size);
  rot->sync(&s, b->inertia[i], b->torque[i], dt, w_out);
}

/* w_out[i], i in [j, j + n), into the block k (full: in place; short: in
 * rows, its padding lanes copies of the last) by the sync kernel, else per
 * body; w itself without a sync. */
static void block_sync(const struct dem_rotation_integrator *rot,
                       struct dem_rot_block *k, const struct dem_bodies *b,
                       size_t j, size_t n, double dt, enum dem_isa isa) {
  const dem_rot_block_fn *kernel =
      rot && rot->sync && rot->block ? rot->block->sync : NULL;
  if (kernel) {
    kernel[isa](k, dt);
    if (any_redo(k))
      for (size_t l = 0; l < n; l++)
        if (k->redo[l] != 0.0)
          sync_one(rot, b, j + l, dt, k->w_out[l]);
    return;
  }
  for (size_t l = 0; l < DEM_ROT_LANES; l++) {
    if (l >= n)
      v3_copy(k->w_out[l], k->w_out[n - 1]);
    else if (rot && rot->sync)
      sync_one(rot, b, j + l, dt, k->w_out[l]);
    else
      v3_copy(k->w_out[l], b->w[j + l]);
  }
}

void dem_rot_bodies_sync(const struct dem_rotation_integrator *rot,
                         const struct dem_bodies *b, size_t i0, size_t i1,
                         double dt, double (*w_out)[3], enum dem_isa isa) {
  if (!rot || !rot->sync) {
    for (size_t i = i0; i < i1; i++)
      v3_copy(w_out[i], b->w[i]);
    return;
  }
  if (!rot->block || !rot->block->sync) {
    for (size_t i = i0; i < i1; i++)
      sync_one(rot, b, i, dt, w_out[i]);
    return;
  }
  for (size_t j = i0; j < i1; j += DEM_ROT_LANES) {
    const size_t n = i1 - j < DEM_ROT_LANES ? i1 - j : DEM_ROT_LANES;
    struct dem_rot_block k;
    struct dem_rot_rows rows;
    if (n == DEM_ROT_LANES) {
      block_view(&k, b, j);
      k.w_out = w_out + j;
    } else {
      block_rows(&k, &rows, b, j, n, rot->aux_size);
    }
    block_sync(rot, &k, b, j, n, dt, isa);
    if (n < DEM_ROT_LANES)
      for (size_t l = 0; l < n; l++)
        v3_copy(w_out[j + l], rows.w_out[l]);
  }
}

/* w_contact = q w_s and w_move = q w in every lane, as q_rotate. */
static DEM_ALWAYS_INLINE void lab_lane(double (*t)[DEM_ROT_LANES],
                                       double (*u)[DEM_ROT_LANES], int l) {
  const double q[4] = {t[0][l], t[1][l], t[2][l], t[3][l]};
  double a[3] = {t[4][l], t[5][l], t[6][l]}; /* w_s */
  double m[3] = {t[7][l], t[8][l], t[9][l]}; /* w */
  q_rotate(a, q, a);
  q_rotate(m, q, m);
  for (int c = 0; c < 3; c++) {
    u[c][l] = a[c];
    u[3 + c][l] = m[c];
  }
}
/* In rows: k->q, k->w_out = w_s, k->w; out: k->w_out = w_contact,
 * w_move. Transposed in and out as the scheme kernels are. */
static DEM_ALWAYS_INLINE void lab_lanes(struct dem_rot_block *k,
                                        double (*w_move)[3]) {
  double t[10][DEM_ROT_LANES], u[6][DEM_ROT_LANES];
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < 4; c++)
      t[c][l] = k->q[l][c];
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < 3; c++) {
      t[4 + c][l] = k->w_out[l][c];
      t[7 + c][l] = k->w[l][c];
    }
#pragma omp simd
  for (int l = 0; l < DEM_ROT_LANES; l++)
    lab_lane(t, u, l);
  for (int l = 0; l < DEM_ROT_LANES; l++)
    for (int c = 0; c < 3; c++) {
      k->w_out[l][c] = u[c][l];
      w_move[l][c] = u[3 + c][l];
    }
}
DEM_ISA_DEFINE(lab, lab_lanes, (struct dem_rot_block * k, double (*w_move)[3]),
               (k, w_move));

void dem_rot_bodies_lab(const struct dem_rotation_integrator *rot, int sync,
                        struct dem_bodies *b, size_t i0, size_t i1, double dt,
                        enum dem_isa isa) {
  const struct dem_rotation_integrator *by = sync ? rot : NULL;
  for (size_t j = i0; j < i1; j += DEM_ROT_LANES) {
    const size_t n = i1 - j < DEM_ROT_LANES ? i1 - j : DEM_ROT_LANES;
    struct dem_rot_block k;
    struct dem_rot_rows rows;
    double w_move[DEM_ROT_LANES][3];
    if (n == DEM_ROT_LANES) {
      block_view(&k, b, j);
      k.w_out = b->w_contact + j;
      block_sync(by, &k, b, j, n, dt, isa);
      lab[isa](&k, b->w_move + j);
    } else {
      block_rows(&k, &rows, b, j, n, rot ? rot->aux_size : 0);
      block_sync(by, &k, b, j, n, dt, isa);
      lab[isa](&k, w_move);
      for (size_t l = 0; l < n; l++) {
        v3_copy(b->w_contact[j + l], rows.w_out[l]);
        v3_copy(b->w_move[j + l], w_move[l]);
      }
    }
  }
}
