/* The loops a contact model's `pairs` and `walls` functions run: geometry
 * of each contact, then the model's kernel, inlined (static inline: a
 * model passes its kernel as a constant and the compiler inlines it). */
#ifndef DEM_CONTACT_LOOP_H
#define DEM_CONTACT_LOOP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "contact/model.h"
#include "core/cache.h"
#include "core/shares.h"
#include "core/vec3.h"
#include "sim/mesh_walls.h"
#include "sim/periodic.h"

/* A kernel: the result for one touching contact, its history updated. */
typedef void (*dem_pair_kernel)(const void *params, const struct dem_pair *g,
                                double *state, struct dem_pair_result *r);

#define DEM_ALWAYS_INLINE inline __attribute__((always_inline))

/* Velocity of body b's material at point p, lab frame, from its velocity
 * v and angular velocity w (lab). */
static DEM_ALWAYS_INLINE void dem_point_velocity(const struct dem_sim *sim,
                                                 int b, const double p[3],
                                                 double (*v)[3], double (*w)[3],
                                                 double out[3]) {
  double arm[3], wxr[3];
  v3_sub(arm, p, sim->b.x[b]);
  v3_cross(wxr, w[b], arm);
  v3_add(out, v[b], wxr);
}

/* The kinematics a velocity-reading kernel needs: the relative velocity
 * of the owner's and the partner's material at the contact point and the
 * relative angular velocity, at the time of the force and over the step
 * just made; the masses. `pj` is the partner sphere (-1: a wall at rest).
 * The contact point is at arm_i from the owner's centre along -n; with
 * `periodic`, at that point less g->shift from the partner's. */
static DEM_ALWAYS_INLINE void dem_pair_kinematics(const struct dem_sim *sim,
                                                  int i, int pj,
                                                  struct dem_pair *g,
                                                  const int periodic) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_bodies *b = &sim->b;
  const int bi = s->body[i];
  double p[3], vi[3], mi[3];
  v3_copy(p, s->x[i]);
  v3_axpy(p, -g->arm_i / g->dist, g->d);
  dem_point_velocity(sim, bi, p, b->v_contact, b->w_contact, vi);
  dem_point_velocity(sim, bi, p, b->v, b->w_move, mi);
  g->mi = b->mass[bi];
  if (pj >= 0) {
    const int bj = s->body[pj];
    double vj[3], mj[3];
    if (periodic) /* the point in the partner's image */
      v3_sub(p, p, g->shift);
    dem_point_velocity(sim, bj, p, b->v_contact, b->w_contact, vj);
    dem_point_velocity(sim, bj, p, b->v, b->w_move, mj);
    v3_sub(g->v, vi, vj);
    v3_sub(g->v_move, mi, mj);
    v3_sub(g->w, b->w_contact[bi], b->w_contact[bj]);
    v3_sub(g->w_move, b->w_move[bi], b->w_move[bj]);
    g->mj = b->mass[bj];
    g->mstar = g->mi * g->mj / (g->mi + g->mj);
  } else {
    v3_copy(g->v, vi);
    v3_copy(g->v_move, mi);
    v3_copy(g->w, b->w_contact[bi]);
    v3_copy(g->w_move, b->w_move[bi]);
    g->mj = 0.0;
    g->mstar = g->mi;
  }
}

/* A moving mesh's share of the kinematics: its material's velocity at
 * the contact point (at the force's time and at the middle of the step
 * just made) and its angular velocity, taken from the owner's. */
static DEM_ALWAYS_INLINE void dem_mesh_kinematics(const struct dem_sim *sim,
                                                  int i, int wall,
                                                  struct dem_pair *g) {
  const struct dem_mesh_walls *mw = sim->mw;
  const struct dem_mesh *m = &mw->mesh[mw->patch_mesh[wall - DEM_N_WALLS]];
  if (!m->motion.moving)
    return;
  double p[3], vw[3], vm[3];
  v3_copy(p, sim->s.x[i]);
  v3_axpy(p, -g->arm_i / g->dist, g->d);
  v3_sub(p, p, g->shift); /* on the mesh, not on its periodic copy */
  dem_mesh_velocity(m, sim->t_eval, p, vw);
  dem_mesh_velocity(m, sim->t_eval - 0.5 * g->dt, p, vm);
  v3_sub(g->v, g->v, vw);
  v3_sub(g->v_move, g->v_move, vm);
  if (sim->t_eval >= m->motion.start)
    v3_sub(g->w, g->w, m->motion.angular_velocity);
  if (sim->t_eval - 0.5 * g->dt >= m->motion.start)
    v3_sub(g->w_move, g->w_move, m->motion.angular_velocity);
}

/* The power of a contact's force f (on the sphere) and rolling torque
 * mr (on the sphere; NULL: none) through the motion of mesh wall `wall`'s
 * material at the contact point, at time t. */
static DEM_ALWAYS_INLINE double dem_mesh_power(const struct dem_sim *sim, int i,
                                               int wall,
                                               const struct dem_pair *g,
                                               const double f[3],
                                               const double *mr, double t) {
  const struct dem_mesh_walls *mw = sim->mw;
  const struct dem_mesh *m = &mw->mesh[mw->patch_mesh[wall - DEM_N_WALLS]];
  double p[3], vw[3];
  v3_copy(p, sim->s.x[i]);
  v3_axpy(p, -g->arm_i / g->dist, g->d);
  v3_sub(p, p, g->shift); /* on the mesh, not on its periodic copy */
  dem_mesh_velocity(m, t, p, vw);
  double power = v3_dot(f, vw);
  if (mr && t >= m->motion.start)
    power += v3_dot(mr, m->motion.angular_velocity);
  return power;
}

/* The first half of pair contact k's geometry: g->d (with `periodic`, a
 * constant of the caller, the nearest image, and g->shift what was taken
 * off it); returns |d|^2. */
static DEM_ALWAYS_INLINE double dem_pair_apart(const struct dem_sim *sim,
                                               size_t k, struct dem_pair *g,
                                               const int periodic) {
  const struct dem_contact_list *c = &sim->pairs;
  const double(*x)[3] = (const double(*)[3])sim->s.x;
  const int i = c->ij[k][0], j = c->ij[k][1];
  g->d[0] = x[i][0] - x[j][0];
  g->d[1] = x[i][1] - x[j][1];
  g->d[2] = x[i][2] - x[j][2];
  if (periodic)
    dem_min_image(&sim->walls, g->d, g->shift);
  return g->d[0] * g->d[0] + g->d[1] * g->d[1] + g->d[2] * g->d[2];
}

/* Whether spheres dist2 = |d|^2 apart with radii summing to rsum touch. */
static DEM_ALWAYS_INLINE int dem_pair_touches(double dist2, double rsum) {
  return !(dist2 >= rsum * rsum);
}

/* The rest of the geometry of touching pair contact k, from dist2. */
static DEM_ALWAYS_INLINE void dem_pair_close(const struct dem_sim *sim,
                                             size_t k, struct dem_pair *g,
                                             double dist2) {
  const struct dem_contact_list *c = &sim->pairs;
  const double rsum = c->rsum[k];
  g->dist = sqrt(dist2);
  g->overlap = rsum - g->dist;
  g->ri = sim->s.radius[c->ij[k][0]];
  g->rj = sim->s.radius[c->ij[k][1]];
  g->rstar = c->rstar[k];
  g->arm_i = g->ri - 0.5 * g->overlap;
  g->arm_j = g->rj - 0.5 * g->overlap;
}

/* The geometry of pair contact k; 0 when its spheres do not touch. */
static DEM_ALWAYS_INLINE int dem_pair_touch(const struct dem_sim *sim, size_t k,
                                            struct dem_pair *g,
                                            const int periodic) {
  const double dist2 = dem_pair_apart(sim, k, g, periodic);
  if (!dem_pair_touches(dist2, sim->pairs.rsum[k]))
    return 0;
  dem_pair_close(sim, k, g, dist2);
  return 1;
}

/* The geometry of wall contact k when its wall is a mesh patch; 0 when the
 * sphere does not touch it (or another patch answers for the point). The
 * normal points from the closest point to the centre (triangles are
 * two-sided); g->shift is the periods the patch's copy the sphere touches
 * is moved by (0 without periodic axes). */
static inline int dem_mesh_touch(const struct dem_sim *sim, size_t k,
                                 struct dem_pair *g) {
  const struct dem_contact_list *c = &sim->wall_contacts;
  const int i = c->ij[k][0];
  const double r = c->rsum[k];
  double cp[3];
  int feature, tri;
  double d2 = dem_mesh_patch_closest(sim, k, cp, &feature, &tri, g->shift);
  v3_sub(g->d, sim->s.x[i], cp);
  if (!(d2 < r * r) || !(d2 > 0) ||
      !dem_mesh_patch_answers(sim, k, d2, feature, tri))
    return 0;
  g->dist = sqrt(d2);
  g->overlap = r - g->dist;
  g->ri = g->rstar = r;
  g->rj = 0.0;
  g->arm_i = g->dist;
  g->arm_j = 0.0;
  return 1;
}

/* The geometry of wall contact k (the box's flat walls, wall = 2 axis +
 * side, or a mesh patch); 0 when the sphere does not touch the wall. */
static DEM_ALWAYS_INLINE int dem_wall_touch(const struct dem_sim *sim, size_t k,
                                            struct dem_pair *g) {
  const struct dem_contact_list *c = &sim->wall_contacts;
  const struct dem_walls *wl = &sim->walls;
  const int i = c->ij[k][0], wall = c->ij[k][1];
  if (wall >= DEM_N_WALLS)
    return dem_mesh_touch(sim, k, g);
  const int axis = wall / 2, high = wall % 2;
  const double r = c->rsum[k], xa = sim->s.x[i][axis];
  g->overlap = high ? r - (wl->hi[axis] - xa) : r - (xa - wl->lo[axis]);
  g->d[0] = g->d[1] = g->d[2] = 0.0;
  g->d[axis] = high ? -1.0 : 1.0;
  g->dist = 1.0;
  if (!(g->overlap > 0))
    return 0;
  g->ri = g->rstar = r;
  g->rj = 0.0;
  g->arm_i = r - g->overlap;
  g->arm_j = 0.0;
  return 1;
}

/* Contact k of c does not touch (any more): no force, no torque. */
static DEM_ALWAYS_INLINE void dem_contact_open(struct dem_contact_list *c,
                                               size_t k, unsigned flags) {
  c->touched[k] = 0;
  c->force[k][0] = c->force[k][1] = c->force[k][2] = 0.0;
  if (flags & DEM_MODEL_TORQUE)
    memset(c->torque[k], 0, sizeof c->torque[k]);
}

static DEM_ALWAYS_INLINE void
dem_contact_store(struct dem_contact_list *c, size_t k, unsigned flags,
                  const struct dem_pair_result *r) {
  c->touched[k] = 1;
  v3_copy(c->force[k], r->f);
  if (flags & DEM_MODEL_TORQUE)
    memcpy(c->torque[k], r->t, sizeof r->t);
}

/* Contacts a thread takes at a time, at most. */
#define DEM_CHUNK 512

/* The chunk size for n contacts on `threads` threads: as many chunks of
 * at most DEM_CHUNK on each thread, so that each thread's static share
 * of the chunks is its share of the contacts. With chunks of DEM_CHUNK,
 * the thread with one chunk more took 53 % of the 60,000-sphere gas's
 * pairs (docs/performance.md, "Chunks as many on each thread"). Which
 * chunk a contact falls in changes no result: an owner's contacts are
 * always one chunk's. */
static inline size_t dem_chunk_size(size_t n, size_t threads) {
  const size_t per = (n + threads * DEM_CHUNK - 1) / (threads * DEM_CHUNK);
  return per ? (n + per * threads - 1) / (per * threads) : DEM_CHUNK;
}

/* How many chunks list c's last evaluation had. */
static inline size_t dem_chunks(const struct dem_contact_list *c) {
  return c->n && c->chunk ? (c->n + c->chunk - 1) / c->chunk : 0;
}

/* Chunk j [*k0, *k1) of n contacts in chunks of `size`, cut only between
 * owners (ij[k][0]), so that each owner's contacts are one chunk's, in
 * order. */
static DEM_ALWAYS_INLINE void dem_owner_chunk(const int (*ij)[2], size_t n,
                                              size_t j, size_t size, size_t *k0,
                                              size_t *k1) {
  size_t a = j * size, b = a + size < n ? a + size : n;
  while (a > 0 && a < n && ij[a][0] == ij[a - 1][0])
    a++;
  while (b > 0 && b < n && ij[b][0] == ij[b - 1][0])
    b++;
  *k0 = a;
  *k1 = b;
}

/* The work of the contacts of one owner so far (owner -1: none yet). */
struct dem_owner_sum {
  int owner;
  double work[DEM_N_DISSIPATION];
};

/* Adds the owner's sum to what it has dissipated, and starts anew. */
static DEM_ALWAYS_INLINE void dem_owner_flush(struct dem_sim *sim,
                                              struct dem_owner_sum *o) {
  if (o->owner < 0)
    return;
  double *d = sim->s.dissipated + (size_t)o->owner * DEM_N_DISSIPATION;
  for (int m = 0; m < DEM_N_DISSIPATION; m++) {
    d[m] += o->work[m];
    o->work[m] = 0.0;
  }
  o->owner = -1;
}

/* A contact's work, the contacts taken in key order: an owner's sum is
 * added when the next owner's first work comes. (Owners whose contacts
 * did no work are not visited: they would add +0, which changes nothing,
 * the sums never being -0.) */
static DEM_ALWAYS_INLINE void dem_owner_add(struct dem_sim *sim,
                                            struct dem_owner_sum *o, int owner,
                                            const double w[DEM_N_DISSIPATION]) {
  if (owner != o->owner) {
    dem_owner_flush(sim, o);
    o->owner = owner;
  }
  for (int m = 0; m < DEM_N_DISSIPATION; m++)
    o->work[m] += w[m];
}

/* Contacts go through the loop in blocks of this many (at most a
 * lane kernel's lanes touch). */
#define DEM_BLOCK DEM_LANES

/* One block of contacts [kb, kb + n) between its passes: which touch,
 * their geometry, and the work each contact did. */
struct dem_block {
  unsigned n_touch, n_open;
  unsigned touch[DEM_BLOCK], open[DEM_BLOCK]; /* places in the block */
  double dist2[DEM_BLOCK];                    /* pairs: |d|^2 */
  struct dem_pair g[DEM_BLOCK];               /* the touching contacts' */
  double work[DEM_BLOCK][DEM_N_DISSIPATION];
  double mesh[DEM_BLOCK][2];       /* moving meshes: work back, ahead */
  unsigned char worked[DEM_BLOCK]; /* enum dem_worked */
  struct dem_lanes lanes;          /* with a lane kernel */
};
enum dem_worked { DEM_WORKED = 1, DEM_WORKED_MESH = 2 };

/* How many contacts ahead of the one it sorts the loop asks for the
 * lines a contact will read that the processor cannot foresee: its
 * history (if it touched at the last evaluation: an open contact's is
 * not read), and a pair's two centres (the partner's anywhere in the
 * sphere array, and even the owner's: the active spheres are a sparse
 * subset). With a million spheres each centre comes from memory. One
 * contact's lines at a time, as the loop goes, rather than a block's
 * (64 contacts, up to 448 lines) at once, which asked for more lines
 * than the processor keeps in flight: the gas's pair loop at 1e6
 * spheres took 2.7-2.8 ms a step where it took 4.1-4.3, and the
 * settled pile's contact loops 3-4 % less (docs/performance.md,
 * "Asking for lines as the loop goes"). */
#define DEM_HISTORY_AHEAD 32
#define DEM_CENTRES_AHEAD 64

/* Asks for contact k's history lines, if it touched (an open contact
 * asks again for `near`'s, in cache already: no branch). */
static DEM_ALWAYS_INLINE void
dem_prefetch_history(const struct dem_contact_list *c, size_t k, size_t near) {
  const size_t w = (size_t)c->state_width;
  const double *h = c->state + (c->touched[k] ? k : near) * w;
  __builtin_prefetch(h, 1); /* its first, next and last lines */
  __builtin_prefetch(h + 8, 1);
  __builtin_prefetch(h + w - 1, 1);
  /* Lines between the next and the last: none for a history of up to
   * 18 doubles (hertz_mindlin's, 144 bytes from a 16-byte boundary: on
   * three lines), which a loop over them for each contact cost 2 % of
   * the dense pile's instructions for nothing. */
  if (w > 18)
    for (size_t q = 16; q + 1 < w; q += 8) /* a longer history's */
      __builtin_prefetch(h + q, 1);
}

/* Asks for pair contact k's two centres; a row of three doubles may
 * straddle two lines: both are asked for. */
static DEM_ALWAYS_INLINE void
dem_prefetch_centres(const struct dem_sim *sim,
                     const struct dem_contact_list *c, size_t k) {
  const double(*x)[3] = (const double(*)[3])sim->s.x;
  for (int e = 0; e < 2; e++) {
    const double *r = x[c->ij[k][e]];
    __builtin_prefetch(r, 0);
    __builtin_prefetch(r + 2, 0);
  }
}

/* Which lines the loop asks for ahead: only those of data too large to
 * stay in one core's second-level cache between the loop's reads (the
 * histories: all of the list's; the centres: the spheres' positions,
 * which the pairs read scattered while the step's other arrays share
 * that cache, hence a fifth of it). Asking costs instructions (the entry
 * that says where, the requests); data in that cache comes soon enough
 * unasked. With a 2 MiB cache, the gas's contact loops were 10-12 % faster
 * without asking at 10,000 spheres (240 kB of positions), 3-7 % at
 * 13,000-17,000 (320-400 kB), and 4-19 % slower from 20,000 (480 kB) on;
 * the settled pile's (6,000 spheres, 1.4 MB of histories) about 2 %
 * faster (docs/performance.md, "Asking only for lines beyond the
 * cache"). */
struct dem_ask {
  int history, centres;
};

static DEM_ALWAYS_INLINE struct dem_ask
dem_ask_of(const struct dem_sim *sim, const struct dem_contact_list *c,
           const int walls) {
  const size_t l2 = dem_cache_l2_bytes();
  const size_t history = c->n * (size_t)c->state_width * sizeof(double);
  return (struct dem_ask){
      .history = history > l2, /* none without a history: 0 bytes */
      .centres = !walls && sim->s.n * sizeof sim->s.x[0] > l2 / 5,
  };
}

/* The lines of contacts [k0, k1) at once: what the loop asks for ahead
 * of the first contacts of a range (those it sorts ask for the ones
 * after). */
static DEM_ALWAYS_INLINE void
dem_prefetch_range(const struct dem_sim *sim, const struct dem_contact_list *c,
                   size_t k0, size_t k1, struct dem_ask ask) {
  if (!ask.history && !ask.centres)
    return;
  for (size_t k = k0; k < k1; k++) {
    if (ask.history && k < k0 + DEM_HISTORY_AHEAD)
      dem_prefetch_history(c, k, k0);
    if (ask.centres)
      dem_prefetch_centres(sim, c, k);
  }
}

/* What contact k of the loop asks for as it sorts it: the lines of the
 * contacts DEM_HISTORY_AHEAD and DEM_CENTRES_AHEAD after it in the list
 * (those may be another range's: a thread taking it next has them). */
static DEM_ALWAYS_INLINE void
dem_prefetch_ahead(const struct dem_sim *sim, const struct dem_contact_list *c,
                   size_t k, struct dem_ask ask) {
  if (ask.history && k + DEM_HISTORY_AHEAD < c->n)
    dem_prefetch_history(c, k + DEM_HISTORY_AHEAD, k);
  if (ask.centres && k + DEM_CENTRES_AHEAD < c->n)
    dem_prefetch_centres(sim, c, k + DEM_CENTRES_AHEAD);
}

/* dem_pair_apart's d (and shift) of pair contact k straight into lane
 * e, with |d|^2 and the owner's centre. */
static DEM_ALWAYS_INLINE double dem_lanes_apart(const struct dem_sim *sim,
                                                size_t k, struct dem_lanes *l,
                                                unsigned e,
                                                const int periodic) {
  const double *xi = sim->s.x[sim->pairs.ij[k][0]];
  struct dem_pair g;
  const double dist2 = dem_pair_apart(sim, k, &g, periodic);
  for (int a = 0; a < 3; a++) {
    l->d[a][e] = g.d[a];
    l->x[a][e] = xi[a];
    if (periodic)
      l->shift[a][e] = g.shift[a];
  }
  l->dist[e] = dist2;
  return dist2;
}

/* The block's contacts sorted into touching and open, without a branch
 * on it (in a packing they alternate unpredictably): the touching ones
 * with the first half of their geometry (pairs) or all of it (walls);
 * pairs for a lane kernel (`lanes`) with it in blk->lanes. */
static DEM_ALWAYS_INLINE void
dem_block_sort(const struct dem_sim *sim, const struct dem_contact_list *c,
               struct dem_block *blk, size_t kb, size_t ke, const int walls,
               const int periodic, const int lanes, struct dem_ask ask) {
  unsigned nt = 0, no = 0;
  for (size_t k = kb; k < ke; k++) {
    struct dem_pair *g = &blk->g[nt];
    int touch;
    dem_prefetch_ahead(sim, c, k, ask);
    if (walls) {
      touch = dem_wall_touch(sim, k, g);
    } else if (lanes) {
      const double dist2 = dem_lanes_apart(sim, k, &blk->lanes, nt, periodic);
      touch = dem_pair_touches(dist2, c->rsum[k]);
    } else {
      const double dist2 = dem_pair_apart(sim, k, g, periodic);
      blk->dist2[nt] = dist2;
      touch = dem_pair_touches(dist2, c->rsum[k]);
    }
    blk->touch[nt] = blk->open[no] = (unsigned)(k - kb);
    nt += (unsigned)touch;
    no += (unsigned)!touch;
  }
  blk->n_touch = nt;
  blk->n_open = no;
}

/* Contact g (its parameters p, its history h) as lane e. */
static DEM_ALWAYS_INLINE void dem_lanes_put(struct dem_lanes *l, unsigned e,
                                            const struct dem_pair *g,
                                            const void *p, double *h) {
  for (int k = 0; k < 3; k++) {
    l->d[k][e] = g->d[k];
    l->v[k][e] = g->v[k];
    l->w[k][e] = g->w[k];
    l->v_move[k][e] = g->v_move[k];
    l->w_move[k][e] = g->w_move[k];
  }
  l->dist[e] = g->dist;
  l->overlap[e] = g->overlap;
  l->rstar[e] = g->rstar;
  l->ri[e] = g->ri;
  l->rj[e] = g->rj;
  l->arm_i[e] = g->arm_i;
  l->arm_j[e] = g->arm_j;
  l->mi[e] = g->mi;
  l->mj[e] = g->mj;
  l->mstar[e] = g->mstar;
  l->params[e] = p;
  l->state[e] = h;
}

/* Pair contact k (its d, shift, x and dist already in lane e, from
 * dem_lanes_apart; its history h) as lane e, for the kernel to complete. */
static DEM_ALWAYS_INLINE void dem_lanes_put_pair(struct dem_lanes *l,
                                                 unsigned e,
                                                 const struct dem_sim *sim,
                                                 size_t k, double *h) {
  const struct dem_spheres *s = &sim->s;
  const int i = sim->pairs.ij[k][0], j = sim->pairs.ij[k][1];
  l->rsum[e] = sim->pairs.rsum[k];
  l->rstar[e] = sim->pairs.rstar[k];
  l->mstar[e] = sim->pairs.mstar[k];
  l->inertia[e] = sim->pairs.inertia[k];
  l->ri[e] = s->radius[i];
  l->rj[e] = s->radius[j];
  l->bi[e] = s->body[i];
  l->bj[e] = s->body[j];
  l->params[e] = dem_law_params(&sim->law, s->material[i], s->material[j]);
  l->state[e] = h;
}

/* Wall contact k (its geometry in g, its history h) as lane e, for the
 * kernel to complete (DEM_LANES_WALLS: a flat wall). */
static DEM_ALWAYS_INLINE void
dem_lanes_put_wall(struct dem_lanes *l, unsigned e, const struct dem_sim *sim,
                   size_t k, const struct dem_pair *g, double *h) {
  const struct dem_spheres *s = &sim->s;
  const int i = sim->wall_contacts.ij[k][0], j = sim->wall_contacts.ij[k][1];
  for (int a = 0; a < 3; a++) {
    l->d[a][e] = g->d[a];
    l->x[a][e] = s->x[i][a];
  }
  l->dist[e] = g->dist;
  l->overlap[e] = g->overlap;
  l->ri[e] = g->ri;
  l->arm_i[e] = g->arm_i;
  l->bi[e] = s->body[i];
  l->params[e] =
      dem_law_params(&sim->law, s->material[i], dem_wall_material(sim, j));
  l->state[e] = h;
}

/* Lane e's result into contact k of c (force, torques) and its work
 * into `work`. */
static DEM_ALWAYS_INLINE void
dem_lanes_get(const struct dem_lanes *l, unsigned e, struct dem_contact_list *c,
              size_t k, unsigned flags, double work[DEM_N_DISSIPATION]) {
  c->touched[k] = 1;
  for (int a = 0; a < 3; a++)
    c->force[k][a] = l->f[a][e];
  if (flags & DEM_MODEL_TORQUE)
    for (int a = 0; a < 6; a++)
      c->torque[k][a] = l->t[a][e];
  if (flags & DEM_MODEL_DISSIPATIVE)
    for (int m = 0; m < DEM_N_DISSIPATION; m++)
      work[m] = l->work[m][e];
}

/* The work of a touching contact's force f and partner torque tj (on the
 * wall; with DEM_MODEL_TORQUE) through moving mesh wall `wall`: over the
 * half step back (the step's trapezoid) and the half step ahead of the
 * evaluation. */
static DEM_ALWAYS_INLINE void
dem_mesh_work(const struct dem_sim *sim, int i, int wall,
              const struct dem_pair *g, const double f[3], const double *tj,
              unsigned flags, double dt, double out[2], unsigned char *worked) {
  double mr[3];
  if (flags & DEM_MODEL_TORQUE)
    v3_scale(mr, tj, -1.0); /* the wall's arm is 0 */
  const double *m = (flags & DEM_MODEL_TORQUE) ? mr : NULL;
  out[0] =
      0.5 * dt * dem_mesh_power(sim, i, wall, g, f, m, sim->t_eval - 0.5 * dt);
  out[1] = 0.5 * sim->dt *
           dem_mesh_power(sim, i, wall, g, f, m, sim->t_eval + 0.5 * sim->dt);
  *worked |= DEM_WORKED_MESH;
}

/* Contacts [k0, k1) of list c (pairs: walls = 0; sphere-wall: walls = 1),
 * whole owners, through `kernel` (or `lanes`): each owner's work summed in
 * key order, so its dissipated work sums alike whoever does it. Those
 * that touch are listed in c->touched_at from k0 on, for the gather. */
static DEM_ALWAYS_INLINE void
dem_contact_range(struct dem_sim *sim, struct dem_contact_list *c, size_t k0,
                  size_t k1, const int walls, const int periodic, double dt,
                  dem_pair_kernel kernel, dem_lane_kernel lanes,
                  void (*release)(const void *, const struct dem_pair *,
                                  const double *, double *),
                  unsigned flags) {
  const int *material = sim->s.material;
  const size_t w = (size_t)c->state_width;
  const int dissipative = (flags & DEM_MODEL_DISSIPATIVE) != 0;
  struct dem_owner_sum sum = {-1, {0}};
  /* The moving meshes' work on this owner: over the step (trapezoid) and
   * the half step ahead of the evaluation. */
  const int meshes_move = walls && sim->mw && sim->mw->moving;
  double wall_work = 0.0, wall_ahead = 0.0;
  struct dem_block blk;
  const struct dem_ask ask = dem_ask_of(sim, c, walls);
  dem_prefetch_range(sim, c, k0,
                     k0 + DEM_CENTRES_AHEAD < k1 ? k0 + DEM_CENTRES_AHEAD : k1,
                     ask);
  size_t *touched_at = c->touched_at + k0; /* the gather's list */
  for (size_t kb = k0; kb < k1; kb += DEM_BLOCK) {
    const size_t ke = kb + DEM_BLOCK < k1 ? kb + DEM_BLOCK : k1;
    dem_block_sort(sim, c, &blk, kb, ke, walls, periodic, lanes && !walls, ask);
    for (unsigned e = 0; e < blk.n_touch; e++) /* each will be `touched` */
      *touched_at++ = kb + blk.touch[e];
    if (dissipative || meshes_move)
      memset(blk.worked, 0, ke - kb);

    /* The open contacts: no force (already none, unless it touched at
     * the last evaluation or the lists were just built); one that stopped
     * touching in this step (a model with history keeps its first value
     * nonzero while the contact touches) counts, in a dissipative model,
     * the work of its forces going to zero, and its history goes. */
    int released = 0;
    for (unsigned e = 0; e < blk.n_open; e++) {
      const size_t k = kb + blk.open[e];
      if (!c->touched[k])
        continue;
      dem_contact_open(c, k, flags);
      if (!w || c->state[k * w] == 0.0)
        continue;
      if (dissipative && release) {
        const int i = c->ij[k][0], j = c->ij[k][1];
        struct dem_pair g;
        if (walls)
          dem_wall_touch(sim, k, &g);
        else
          dem_pair_apart(sim, k, &g, periodic);
        g.ri = g.arm_i = sim->s.radius[i];
        g.rj = g.arm_j = walls ? 0.0 : sim->s.radius[j];
        g.dist = sqrt(v3_dot(g.d, g.d));
        g.overlap = 0.0;
        g.dt = dt;
        dem_pair_kinematics(sim, i, walls ? -1 : j, &g, periodic);
        if (walls && j >= DEM_N_WALLS)
          dem_mesh_kinematics(sim, i, j, &g);
        release(dem_law_params(&sim->law, material[i],
                               walls ? dem_wall_material(sim, j) : material[j]),
                &g, c->state + k * w, blk.work[blk.open[e]]);
        blk.worked[blk.open[e]] = DEM_WORKED;
        released = 1;
      }
      memset(c->state + k * w, 0, w * sizeof *c->state);
    }

    /* The touching contacts: their geometry and kinematics, then the
     * kernel (one contact at a time, or the lane kernel on all). Their
     * work goes straight to the owners' sums, in key order, unless open
     * contacts of the block did some too, or meshes move: then it waits
     * for the pass over the whole block below. */
    const int direct = dissipative && !released && !meshes_move;
    for (unsigned e = 0; e < blk.n_touch; e++) {
      const unsigned at = blk.touch[e];
      const size_t k = kb + at;
      const int i = c->ij[k][0], j = c->ij[k][1];
      struct dem_pair *g = &blk.g[e];
      if (lanes && !walls) { /* the kernel does the rest */
        dem_lanes_put_pair(&blk.lanes, e, sim, k, c->state + k * w);
        continue;
      }
      if (lanes && !sim->mw) { /* flat walls: the same */
        dem_lanes_put_wall(&blk.lanes, e, sim, k, g, c->state + k * w);
        continue;
      }
      if (!walls)
        dem_pair_close(sim, k, g, blk.dist2[e]);
      g->dt = dt;
      if (flags & DEM_MODEL_VELOCITY) {
        dem_pair_kinematics(sim, i, walls ? -1 : j, g, periodic);
        if (walls && j >= DEM_N_WALLS)
          dem_mesh_kinematics(sim, i, j, g);
      }
      const void *p =
          dem_law_params(&sim->law, material[i],
                         walls ? dem_wall_material(sim, j) : material[j]);
      if (lanes) {
        dem_lanes_put(&blk.lanes, e, g, p, c->state + k * w);
        continue;
      }
      struct dem_pair_result r;
      kernel(p, g, w ? c->state + k * w : NULL, &r);
      dem_contact_store(c, k, flags, &r);
      if (direct) {
        dem_owner_add(sim, &sum, i, r.work);
      } else if (dissipative) {
        memcpy(blk.work[at], r.work, sizeof r.work);
        blk.worked[at] = DEM_WORKED;
      }
      if (meshes_move && j >= DEM_N_WALLS)
        dem_mesh_work(sim, i, j, g, r.f,
                      (flags & DEM_MODEL_TORQUE) ? r.t + 3 : NULL, flags, dt,
                      blk.mesh[at], &blk.worked[at]);
    }
    if (lanes && blk.n_touch) {
      struct dem_lanes *l = &blk.lanes;
      const unsigned last = blk.n_touch - 1;
      unsigned e = blk.n_touch;
      for (; e % DEM_LANES_VW; e++) { /* whole vectors */
        double *spare = l->spare[e % DEM_LANES_VW];
        memcpy(spare, l->state[last], w * sizeof *spare);
        if (!walls) {
          for (int a = 0; a < 3; a++) {
            l->d[a][e] = l->d[a][last];
            l->x[a][e] = l->x[a][last];
            if (periodic)
              l->shift[a][e] = l->shift[a][last];
          }
          l->dist[e] = l->dist[last];
          dem_lanes_put_pair(l, e, sim, kb + blk.touch[last], spare);
        } else if (!sim->mw)
          dem_lanes_put_wall(l, e, sim, kb + blk.touch[last], &blk.g[last],
                             spare);
        else
          dem_lanes_put(l, e, &blk.g[last], l->params[last], spare);
      }
      l->n = e;
      l->dt = dt;
      l->mode = !walls     ? DEM_LANES_PAIRS
                : !sim->mw ? DEM_LANES_WALLS
                           : DEM_LANES_GIVEN;
      l->periodic = periodic;
      l->bodies = &sim->b;
      l->kin = c->kin;
      lanes(l);
      for (e = 0; e < blk.n_touch; e++) {
        const unsigned at = blk.touch[e];
        const size_t k = kb + at;
        const int i = c->ij[k][0], j = c->ij[k][1];
        double work[DEM_N_DISSIPATION]; /* straight to the owner's sum */
        dem_lanes_get(l, e, c, k, flags, direct ? work : blk.work[at]);
        if (direct)
          dem_owner_add(sim, &sum, i, work);
        else if (dissipative)
          blk.worked[at] = DEM_WORKED;
        if (meshes_move && j >= DEM_N_WALLS)
          dem_mesh_work(sim, i, j, &blk.g[e], c->force[k],
                        (flags & DEM_MODEL_TORQUE) ? c->torque[k] + 3 : NULL,
                        flags, dt, blk.mesh[at], &blk.worked[at]);
      }
    }

    /* The block's work in key order, when it could not go straight; the
     * moving meshes' work on each owner (every owner's wall_ahead set). */
    if (!meshes_move && !(dissipative && !direct))
      continue;
    for (size_t k = kb; k < ke; k++) {
      const unsigned at = (unsigned)(k - kb);
      const int i = c->ij[k][0];
      if (blk.worked[at] & DEM_WORKED)
        dem_owner_add(sim, &sum, i, blk.work[at]);
      if (!meshes_move)
        continue;
      if (blk.worked[at] & DEM_WORKED_MESH) {
        wall_work += blk.mesh[at][0] + blk.mesh[at][1];
        wall_ahead += blk.mesh[at][1];
      }
      if (k + 1 == k1 || c->ij[k + 1][0] != i) {
        sim->s.wall_work[i] += wall_work;
        sim->s.wall_ahead[i] = wall_ahead;
        wall_work = wall_ahead = 0.0;
      }
    }
  }
  if (touched_at < c->touched_at + k1)
    *touched_at = SIZE_MAX;
  dem_owner_flush(sim, &sum);
}

/* The contacts of list c, chunk by chunk: inside a parallel region
 * (`shares`) each thread first its contiguous share of the chunks, as
 * the tiles give each thread a contiguous share of the bodies
 * (operators/pipeline.c), so that a thread reads mostly the sphere
 * positions it has just written, from its own core's caches; then, done
 * early, the last chunks of another's share (core/shares.h). The results
 * do not depend on who does which. Chunks taken as threads came free
 * (dynamic) read them from the other core's: the 60,000-sphere gas's
 * pair loop took 42 us a step on 2 threads, against 29 us for static
 * shares and 53 us on 1 (docs/performance.md, "Pairs where their spheres
 * were placed"). Without a team the same chunks in order, with no
 * OpenMP call (docs/performance.md, "Small systems"). */
static DEM_ALWAYS_INLINE void
dem_contact_slice(struct dem_sim *sim, struct dem_contact_list *c,
                  const int walls, const int periodic, double dt,
                  dem_pair_kernel kernel, dem_lane_kernel lanes,
                  void (*release)(const void *, const struct dem_pair *,
                                  const double *, double *),
                  unsigned flags, struct dem_shares *shares) {
  const long chunks = (long)dem_chunks(c);
#define DEM_CONTACT_CHUNK(j)                                                   \
  do {                                                                         \
    size_t k0, k1;                                                             \
    dem_owner_chunk((const int(*)[2])c->ij, c->n, (size_t)(j), c->chunk, &k0,  \
                    &k1);                                                      \
    dem_contact_range(sim, c, k0, k1, walls, periodic, dt, kernel, lanes,      \
                      release, flags);                                         \
  } while (0)
  if (shares) {
    const int me = omp_get_thread_num();
    for (long j; (j = dem_shares_next(shares, me)) >= 0;)
      DEM_CONTACT_CHUNK(j);
  } else {
    for (long j = 0; j < chunks; j++)
      DEM_CONTACT_CHUNK(j);
  }
#undef DEM_CONTACT_CHUNK
}

/* Every contact of list c: a parallel region from DEM_PARALLEL_MIN / 4
 * contacts (a contact costs several spheres' work) when there is more
 * than one thread (as DEM_PARALLEL_IF), else plainly. */
#define dem_contact_list_loop(sim, c, walls, periodic, dt, kernel, lanes,      \
                              release, flags)                                  \
  do {                                                                         \
    if ((c)->n > DEM_PARALLEL_MIN / 4 && omp_get_max_threads() > 1) {          \
      const int threads_ = omp_get_max_threads();                              \
      struct dem_shares shares_;                                               \
      (c)->chunk = dem_chunk_size((c)->n, (size_t)threads_);                   \
      dem_shares_init(&shares_, dem_chunks(c), threads_);                      \
      _Pragma("omp parallel")                                                  \
          dem_contact_slice((sim), (c), (walls), (periodic), (dt), (kernel),   \
                            (lanes), (release), (flags), &shares_);            \
    } else {                                                                   \
      (c)->chunk = dem_chunk_size((c)->n, 1);                                  \
      dem_contact_slice((sim), (c), (walls), (periodic), (dt), (kernel),       \
                        (lanes), (release), (flags), NULL);                    \
    }                                                                          \
  } while (0)

/* Every sphere-sphere contact, through `kernel` (and `release`, for a
 * dissipative model, or NULL): written in the model's own function, so
 * that the parallel region holds the kernel as a constant and inlines
 * it; periodic runs take an instantiation of their own, so that runs
 * without periodic axes pay nothing for them. */
#define dem_contact_pairs_loop(sim, dt, kernel, lanes, release, flags)         \
  do {                                                                         \
    if ((sim)->walls.periodic)                                                 \
      dem_contact_list_loop((sim), &(sim)->pairs, 0, 1, (dt), (kernel),        \
                            (lanes), (release), (flags));                      \
    else                                                                       \
      dem_contact_list_loop((sim), &(sim)->pairs, 0, 0, (dt), (kernel),        \
                            (lanes), (release), (flags));                      \
  } while (0)

/* Every sphere-wall contact (the box's flat walls), the same way. */
#define dem_contact_walls_loop(sim, dt, kernel, lanes, release, flags)         \
  dem_contact_list_loop((sim), &(sim)->wall_contacts, 1, 0, (dt), (kernel),    \
                        (lanes), (release), (flags))

#endif
