/* The `hertz_mindlin` force law on DEM_VW contacts at once (contact/lanes.h):
 * Hertz with the Tsuji dashpot, the Mindlin spring turned into the tangent
 * plane with Coulomb's limit, the rolling spring with its plastic limit,
 * and each mechanism's work over the step; and the model's loops over the
 * contact lists with it. Compiled once for each instruction set, by
 * hertz_mindlin_lanes.c and hertz_mindlin_lanes_avx2.c, which name the
 * loops (DEM_HM_LOOP). */
#ifndef DEM_HERTZ_MINDLIN_LANES_H
#define DEM_HERTZ_MINDLIN_LANES_H

#include "contact/hertz_mindlin.h"
#include "contact/lanes.h"
#include "contact/loop.h"
#include "core/parallel.h"
#include "sim/scratch.h"

/* The part of a along the unit normal n removed. */
static inline void tangential(vd out[3], const vd a[3], const vd n[3]) {
  vd an = w3_dot(a, n);
  for (int k = 0; k < 3; k++)
    out[k] = a[k] - an * n[k];
}

/* The two springs of the history (force and torque), each turned into
 * the current tangent plane with its magnitude kept (a zero history stays
 * as it is): scaled by sqrt(|h|^2 / |t|^2), one square root and one
 * division each, where sqrt(|h|^2) / sqrt(|t|^2) took two roots (roots
 * and divisions share one unit, the slowest the law uses). Step by step
 * for both, so that the two chains overlap. */
static inline __attribute__((always_inline)) void into_plane2(vd a[3], vd b[3],
                                                              const vd n[3]) {
  vd *h[2] = {a, b};
  vm zero[2];
  vd before[2], t[2][3], after[2], scale[2];
  for (int j = 0; j < 2; j++) {
    zero[j] = (h[j][0] == 0) & (h[j][1] == 0) & (h[j][2] == 0);
    before[j] = w3_dot(h[j], h[j]);
    tangential(t[j], h[j], n);
    after[j] = w3_dot(t[j], t[j]);
  }
  for (int j = 0; j < 2; j++)
    scale[j] = vsqrt(before[j] / after[j]);
  for (int j = 0; j < 2; j++) {
    vd scaled[3];
    w3_scale(scaled, t[j], scale[j]);
    w3_sel(scaled, after[j] > 0, scaled, t[j]);
    w3_sel(h[j], zero[j], h[j], scaled);
  }
}

/* Caps |a| at la and |b| at lb (both >= 0); `over`: in which lanes each
 * was capped. Whether it is over compares squares; the root and the
 * division that scale a capped vector are taken only when some lane is
 * capped (a packing at rest caps few). */
static inline __attribute__((always_inline)) void cap2(vd a[3], vd la, vd b[3],
                                                       vd lb, vm over[2]) {
  vd *v[2] = {a, b}, limit[2] = {la, lb};
  for (int j = 0; j < 2; j++) {
    const vd len2 = w3_dot(v[j], v[j]);
    over[j] = ~(len2 <= limit[j] * limit[j]);
    if (!vany(over[j]))
      continue;
    const vd len = vsqrt(len2);
    vd capped[3];
    w3_scale(capped, v[j], vsel(len > 0, limit[j] / len, vsplat(0.0)));
    w3_sel(v[j], over[j], capped, v[j]);
  }
}

/* Rolling inertia of the pair, Ai et al.: 1/I = 1/(I_i + m_i r_i^2) +
 * 1/(I_j + m_j r_j^2), with the spheres' I = 2/5 m r^2 (a wall: 0), as
 * dem_rolling_inertia (sim/contacts.h) computes a pair's at the build. */
static inline vd rolling_inertia(const struct vpair *g, enum dem_lanes_mode m) {
  if (m == DEM_LANES_PAIRS)
    return g->inertia;
  vd ii = 1.4 * g->mi * g->ri * g->ri;
  if (m == DEM_LANES_WALLS)
    return ii;
  vd ij = 1.4 * g->mj * g->rj * g->rj;
  return vsel(g->mj == 0, ii, ii * ij / (ii + ij));
}

/* Lanes [l, l + DEM_VW) of `in`, whose mode is `mode` (a constant of
 * each caller: each mode's law is compiled on its own, with neither the
 * others' branches nor their values in its registers). */
static inline __attribute__((always_inline)) void
law(struct dem_lanes *in, int l, const enum dem_lanes_mode mode) {
  vd estar, alpha, mu, mu_r, kt_kn, sqrt_kt_kn;
  const struct dem_hm_params *p0 = in->params[l];
  int same = 1;
  for (int a = 1; a < DEM_VW; a++)
    same &= in->params[l + a] == p0;
  if (same) { /* one pair of materials (the usual case): no gathers */
    estar = vsplat(p0->estar);
    alpha = vsplat(p0->alpha);
    mu = vsplat(p0->mu);
    mu_r = vsplat(p0->mu_r);
    kt_kn = vsplat(p0->kt_kn);
    sqrt_kt_kn = vsplat(p0->sqrt_kt_kn);
  } else {
    for (int a = 0; a < DEM_VW; a++) {
      const struct dem_hm_params *p = in->params[l + a];
      estar[a] = p->estar;
      alpha[a] = p->alpha;
      mu[a] = p->mu;
      mu_r[a] = p->mu_r;
      kt_kn[a] = p->kt_kn;
      sqrt_kt_kn[a] = p->sqrt_kt_kn;
    }
  }
  /* The histories, read a block at a time: the springs now, the rest
   * where it is used (DEM_HM_TOUCHING is not read). */
  vd h[DEM_HM_WIDTH];
  vgather_range(h, in->state, l, DEM_HM_FS, DEM_HM_FND);
  struct vpair g;
  if (mode == DEM_LANES_PAIRS)
    dem_lanes_pair(in, l, &g);
  else if (mode == DEM_LANES_WALLS)
    dem_lanes_wall(in, l, &g);
  else
    dem_lanes_load(in, l, &g);
  const vd dt = vsplat(in->dt), d = g.overlap, rstar = g.rstar;
  const vd *v = g.v, *v_move = g.v_move, *w = g.w, *w_move = g.w_move;
  vd n[3];
  w3_scale(n, g.d, g.inv_dist);
  const vd sqrt_rd = vsqrt(rstar * d);

  /* Normal: Hertz and the Tsuji dashpot, never attractive. */
  const vd kn = 2.0 * estar * sqrt_rd;       /* dF/dd */
  const vd fe = (2.0 / 3.0) * kn * d;        /* 4/3 E* sqrt(R*) d^1.5 */
  const vd cn = alpha * vsqrt(g.mstar * kn); /* alpha sqrt(m* k) */
  vd fd = -cn * w3_dot(v, n);
  fd = vsel(fe + fd < 0, -fe, fd);
  const vd fn = fe + fd;
  vd fnd[3];
  w3_scale(fnd, n, fd);

  /* Tangential: the spring's force turned into the plane, increased by
   * the motion of the step, a dashpot, Coulomb's limit. Rolling: a spring
   * with a plastic limit and a dashpot below it. The two springs go
   * through each stage together (into_plane2, cap2). */
  const vd kt = kt_kn * kn; /* 8 G* sqrt(R* d) */
  const vm rolls = mu_r > 0;
  const vd kr = 2.25 * kn * mu_r * mu_r * rstar * rstar;
  const vd inertia = rolling_inertia(&g, mode);
  const vd cr = -DEM_HM_ROLLING_DAMPING_RATIO * 2 * vsqrt(inertia * kr);
  vd fs[3], vt[3], ftd[3], ft[3], move_t[3];
  vd ms[3], mrd[3], mr[3], wr[3];
  const vd *fs_old = h + DEM_HM_FS, *ms_old = h + DEM_HM_MS;
  /* s = old in the plane - k dt (the step's move in the plane) */
  w3_copy(fs, fs_old);
  w3_copy(ms, ms_old);
  into_plane2(fs, ms, n);
  tangential(move_t, v_move, n);
  w3_axpy(fs, -kt * dt, move_t);
  tangential(move_t, w_move, n);
  w3_axpy(ms, -kr * dt, move_t);
  tangential(vt, v, n);
  w3_scale(ftd, vt, -cn * sqrt_kt_kn); /* alpha sqrt(m* k_t) */
  w3_add(ft, fs, ftd);
  vm capped[2]; /* sliding: all of the force is friction */
  cap2(ft, mu * fn, ms, mu_r * rstar * fn, capped);
  const vm sliding = capped[0], limit = capped[1];
  const vd zero[3] = {vsplat(0.0), vsplat(0.0), vsplat(0.0)};
  w3_sel(fs, sliding, ft, fs);
  w3_sel(ftd, sliding, zero, ftd);
  tangential(wr, w, n);
  w3_scale(mrd, wr, cr);
  w3_sel(mrd, limit | ~rolls, zero, mrd);
  w3_sel(ms, rolls, ms, zero);
  /* The springs' energies |s|^2 / 2k, both from one division. */
  const vm has_kt = kt > 0, has_kr = rolls & (kr > 0);
  const vd two_kt = vsel(has_kt, 2 * kt, vsplat(1.0));
  const vd two_kr = vsel(has_kr, 2 * kr, vsplat(1.0));
  const vd inv_both = 1.0 / (two_kt * two_kr);
  const vd ut_energy =
      vsel(has_kt, w3_dot(fs, fs) * (two_kr * inv_both), vsplat(0.0));
  const vd ur_energy =
      vsel(has_kr, w3_dot(ms, ms) * (two_kt * inv_both), vsplat(0.0));
  w3_add(mr, ms, mrd);

  /* On the owner, and on the partner through the contact point. */
  const vd arm_i = g.arm_i, arm_j = g.arm_j;
  vd nxft[3];
  w3_cross(nxft, n, ft);
  for (int k = 0; k < 3; k++) {
    vstore(in->f[k] + l, fn * n[k] + ft[k]);
    vstore(in->t[k] + l, -arm_i * nxft[k] + mr[k]);
    vstore(in->t[3 + k] + l, -arm_j * nxft[k] - mr[k]);
  }

  /* The work of each mechanism over the step: its force's mean over the
   * step (as the integrator applies it) times the step's motion; the
   * springs' change of stored energy is not dissipated. */
  vd fnd_sum[3], ftd_sum[3], mrd_sum[3], fs_sum[3], ms_sum[3];
  vgather_range(h, in->state, l, DEM_HM_FND, DEM_HM_WIDTH);
  w3_add(fnd_sum, fnd, h + DEM_HM_FND);
  w3_add(ftd_sum, ftd, h + DEM_HM_FTD);
  w3_add(mrd_sum, mrd, h + DEM_HM_MRD);
  w3_add(fs_sum, fs, fs_old);
  w3_add(ms_sum, ms, ms_old);
  const vd half = 0.5 * dt;
  vstore(in->work[DEM_DISSIPATION_DAMPING] + l,
         -half * (w3_dot(fnd_sum, v_move) + w3_dot(ftd_sum, v_move) +
                  w3_dot(mrd_sum, w_move)));
  vstore(in->work[DEM_DISSIPATION_FRICTION] + l,
         -(ut_energy - h[DEM_HM_UT]) - half * w3_dot(fs_sum, v_move));
  vstore(in->work[DEM_DISSIPATION_ROLLING] + l,
         -(ur_energy - h[DEM_HM_UR]) - half * w3_dot(ms_sum, w_move));

  h[DEM_HM_TOUCHING] = vsplat(1.0);
  w3_copy(h + DEM_HM_FS, fs);
  w3_copy(h + DEM_HM_MS, ms);
  w3_copy(h + DEM_HM_FND, fnd);
  w3_copy(h + DEM_HM_FTD, ftd);
  w3_copy(h + DEM_HM_MRD, mrd);
  h[DEM_HM_UT] = ut_energy;
  h[DEM_HM_UR] = ur_energy;
  vscatter_range(in->state, l, 0, DEM_HM_WIDTH, h);
}

static __attribute__((noinline)) void law_pairs(struct dem_lanes *in, int l) {
  law(in, l, DEM_LANES_PAIRS);
}
static __attribute__((noinline)) void law_walls(struct dem_lanes *in, int l) {
  law(in, l, DEM_LANES_WALLS);
}
static __attribute__((noinline)) void law_given(struct dem_lanes *in, int l) {
  law(in, l, DEM_LANES_GIVEN);
}

static void lanes(struct dem_lanes *l) {
  void (*const f)(struct dem_lanes *, int) =
      l->mode == DEM_LANES_PAIRS   ? law_pairs
      : l->mode == DEM_LANES_WALLS ? law_walls
                                   : law_given;
  for (unsigned a = 0; a < l->n; a += DEM_VW)
    f(l, (int)a);
}

/* The bodies' motion packed for the pair lanes (DEM_KIN) in the
 * neighbours' scratch, when the pairs are at least as many as the bodies
 * (else packing every body costs more than it saves); NULL: not packed. */
static const double *packed_bodies(struct dem_sim *sim) {
  const size_t n = sim->b.n;
  if (sim->pairs.n < n || !n ||
      dem_scratch_reserve(&sim->nb.scratch, n * DEM_KIN * sizeof(double)))
    return NULL;
  double *kin = sim->nb.scratch.p;
  const struct dem_bodies *b = &sim->b;
  /* Packed on one thread, the rows of all bodies were then read from that
   * thread's core by the other (the settled pile's 2,000 bodies: 23 us a
   * step on one thread). */
  DEM_PARALLEL_IF(n > DEM_PARALLEL_MIN_BODIES, omp parallel, {
    size_t i0, i1;
    dem_thread_slice(n, &i0, &i1);
    dem_lanes_pack_bodies(b, i0, i1, n, kin);
  });
  return kin;
}

/* The packed rows serve the flat walls' loop after the pairs' too (the
 * bodies do not move between them): left in wall_contacts.kin for it,
 * until dem_contact_forces ends the evaluation. */
void DEM_HM_LOOP(pairs)(struct dem_sim *sim, double dt) {
  sim->pairs.kin = packed_bodies(sim);
  dem_contact_pairs_loop(sim, dt, NULL, lanes, dem_hm_release, DEM_HM_FLAGS);
  sim->wall_contacts.kin = sim->pairs.kin;
  sim->pairs.kin = NULL;
}

void DEM_HM_LOOP(walls)(struct dem_sim *sim, double dt) {
  if (sim->mw) /* mesh patches' lanes take their motion as given */
    sim->wall_contacts.kin = NULL;
  dem_contact_walls_loop(sim, dt, NULL, lanes, dem_hm_release, DEM_HM_FLAGS);
}

#endif
