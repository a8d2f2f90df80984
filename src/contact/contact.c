/* Evaluating the contact law, gathering contact forces onto spheres, and the
 * contacts' elastic energy. */
#include "contact/contact.h"

#include <string.h>

#include "contact/loop.h"
#include "core/shares.h"
#include "sim/active.h"

/* How many spheres apart the sparse gather's stages ask for lines
 * (prefetch_sphere). */
#define GATHER_AHEAD 16

/* Contact `code` of a sphere's list (code: owned, ~code: its partner's)
 * as a place in the pair list (~code is code ^ -1: no branch). */
static inline size_t pair_of(int code) { return (size_t)(code ^ -(code < 0)); }

/* Sphere i, once, into the list of nb->touching (m so far). */
static inline void mark_touching(struct dem_neighbors *nb, size_t *m, int i) {
  if (nb->touching_mark[i])
    return;
  nb->touching_mark[i] = 1;
  nb->touching[(*m)++] = i;
}

/* The spheres of list c's contacts that touched at this evaluation
 * (`ends`: 2 for pairs, 1 for walls), each once, into nb->touching after
 * the m there: the places the contact loop listed in c->touched_at,
 * chunk by chunk. A pass over every contact's `touched`, on one thread
 * between two parallel loops, took 11-12 us a step in the 60,000-sphere
 * gas, of which a twelfth of the contacts touch; the pair loop itself
 * takes 29 us there on 2 threads (docs/performance.md, "The touching
 * contacts listed by the loop"). */
static size_t touching_of(struct dem_neighbors *nb,
                          const struct dem_contact_list *c, int ends, size_t m,
                          size_t *contacts) {
  const size_t chunks = dem_chunks(c);
  for (size_t j = 0; j < chunks; j++) {
    size_t k0, k1, e;
    dem_owner_chunk((const int(*)[2])c->ij, c->n, j, c->chunk, &k0, &k1);
    for (e = k0; e < k1 && c->touched_at[e] != SIZE_MAX; e++) {
      const size_t k = c->touched_at[e];
      mark_touching(nb, &m, c->ij[k][0]);
      if (ends == 2)
        mark_touching(nb, &m, c->ij[k][1]);
    }
    *contacts += e - k0;
  }
  return m;
}

/* The spheres with a contact (pair or wall) that touched at this
 * evaluation, each once, into nb->touching; returns how many, and adds
 * the contacts that touched to *contacts. */
static size_t touching_spheres(struct dem_neighbors *nb,
                               const struct dem_contact_list *c,
                               const struct dem_contact_list *wc,
                               size_t *contacts) {
  return touching_of(nb, wc, 1, touching_of(nb, c, 2, 0, contacts), contacts);
}

/* Asks for what the gather will read of the spheres who[..n) that the
 * processor cannot foresee, in three stages as it reaches sphere a: the
 * bounds of sphere who[a + 3 G]'s lists, its force, mark and body; the
 * entries of who[a + 2 G]'s list (its bounds asked for a stage before)
 * and its body's mark (`forced`); the contacts of who[a + G] (its
 * entries asked for before). Each stage reads only lines the one before
 * asked for, so none waits for memory, where one stage reading the
 * bounds, the entries and `touched` of the sphere 16 ahead waited for
 * each: at 1e6 spheres the gas's gather took 1.2-1.4 ms a step where it
 * took 1.5-1.7 (docs/performance.md, "Asking for lines as the loop
 * goes"). With a million spheres each line comes from memory. */
static DEM_ALWAYS_INLINE void prefetch_sphere(const struct dem_spheres *s,
                                              const struct dem_neighbors *nb,
                                              const struct dem_contact_list *c,
                                              const struct dem_contact_list *wc,
                                              const int *who, long a, long n,
                                              const int *forced, int torques) {
  const long g = GATHER_AHEAD;
  if (a + 3 * g < n) {
    const int i = who[a + 3 * g];
    __builtin_prefetch(&nb->start[i], 0);
    __builtin_prefetch(&wc->start[i], 0);
    __builtin_prefetch(&nb->touching_mark[i], 1);
    __builtin_prefetch(&s->body[i], 0);
    __builtin_prefetch(s->force[i], 1);
    __builtin_prefetch(&s->force[i][2], 1);
    if (torques) {
      __builtin_prefetch(s->torque[i], 1);
      __builtin_prefetch(&s->torque[i][2], 1);
    }
  }
  if (a + 2 * g < n) {
    const int i = who[a + 2 * g];
    const size_t e0 = nb->start[i], e1 = nb->start[i + 1];
    const size_t w0 = wc->start[i], w1 = wc->start[i + 1];
    if (e1 > e0) {
      __builtin_prefetch(&nb->list[e0], 0);
      __builtin_prefetch(&nb->list[e1 - 1], 0);
    }
    if (w1 > w0) {
      __builtin_prefetch(&wc->touched[w0], 0);
      __builtin_prefetch(wc->force[w0], 0);
      __builtin_prefetch(&wc->force[w0][2], 0);
    }
    if (forced)
      __builtin_prefetch(&forced[s->body[i]], 1);
  }
  if (a + g < n) {
    const int i = who[a + g];
    for (size_t k = nb->start[i]; k < nb->start[i + 1]; k++) {
      const int code = nb->list[k];
      const size_t p = pair_of(code);
      __builtin_prefetch(&c->touched[p], 0);
      __builtin_prefetch(c->force[p], 0);
      __builtin_prefetch(&c->force[p][2], 0);
      if (torques)
        __builtin_prefetch(c->torque[p] + (code < 0 ? 3 : 0), 0);
    }
  }
}

/* Sphere i sums its contacts' forces: the pairs through its list's codes
 * (c: owned, +f; ~c: its partner's, -f), in ascending partner id, then
 * its wall contacts. With `test` (a constant of the caller's loop), only
 * those that touched, the others' force and torques being +0
 * (`touched`): adding or taking +0 leaves a sum that starts at +0
 * bitwise as it is (it is never -0). Owned and partner's entries come in
 * no order a processor can foresee, so there is no branch on which: a
 * partner's force is added times -1 (f + -1 x is f - x, bit for bit),
 * and its torque is the pair's second. In the settled pile the gather
 * took 97-99 us a step where it took 114-117 with the branch (10th
 * percentiles; docs/performance.md, "No branch on the owner in the dense
 * gather"). */
static DEM_ALWAYS_INLINE void gather_sphere(struct dem_spheres *s,
                                            const struct dem_neighbors *nb,
                                            const struct dem_contact_list *c,
                                            const struct dem_contact_list *wc,
                                            int i, const int torques,
                                            const int test) {
  static const double sign[2] = {1.0, -1.0};
  double f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
  for (size_t k = nb->start[i]; k < nb->start[i + 1]; k++) {
    const int code = nb->list[k];
    const int partner = code < 0;
    const size_t p = pair_of(code);
    if (test && !c->touched[p])
      continue;
    const double sg = sign[partner];
    for (int a = 0; a < 3; a++)
      f[a] = f[a] + sg * c->force[p][a];
    if (torques)
      v3_add(t, t, c->torque[p] + 3 * partner);
  }
  for (size_t k = wc->start[i]; k < wc->start[i + 1]; k++) {
    if (test && !wc->touched[k])
      continue;
    v3_add(f, f, wc->force[k]);
    if (torques)
      v3_add(t, t, wc->torque[k]);
  }
  v3_add(s->force[i], s->force[i], f);
  if (torques)
    v3_add(s->torque[i], s->torque[i], t);
}

/* How many of c's contacts touched at this evaluation. */
static size_t count_touched(const struct dem_contact_list *c) {
  size_t n = 0;
  for (size_t k = 0; k < c->n; k++)
    n += c->touched[k];
  return n;
}

/* Spheres who[a0 .. a1) of n: the touching contacts' sums (`sparse`,
 * each sphere's mark cleared and its body marked in `forced`), or all
 * contacts'. */
static void gather_spheres(struct dem_sim *sim, const int *who, long n, long a0,
                           long a1, int sparse, int *forced) {
  struct dem_spheres *s = &sim->s;
  struct dem_neighbors *nb = &sim->nb;
  const struct dem_contact_list *c = &sim->pairs, *wc = &sim->wall_contacts;
  const int torques = c->has_torque;
  for (long a = a0; a < a1; a++) {
    if (sparse) {
      prefetch_sphere(s, nb, c, wc, who, a, n, forced, torques);
      gather_sphere(s, nb, c, wc, who[a], torques, 1);
      nb->touching_mark[who[a]] = 0;
      if (forced) /* two threads may mark one body: both write 1 */
        __atomic_store_n(&forced[s->body[who[a]]], 1, __ATOMIC_RELAXED);
    } else
      gather_sphere(s, nb, c, wc, who[a], torques, 0);
  }
}

/* Each sphere with a contact that touched gets its contacts' sum
 * (gather_sphere). In a dilute packing (at most a quarter of the listed
 * contacts touch) the other active spheres are not visited: their force
 * and torque would gain +0, and they are never -0 (zeroed as +0, or such
 * sums), so the random reads and writes of a million spheres' forces are
 * only the touching ones'. In a dense one nearly every active sphere
 * touches, and testing each contact is a branch the processor cannot
 * foresee (a settled pile's step took 1.5x as long): every active
 * sphere sums all its contacts, as it gives the same bits. */
static void gather(struct dem_sim *sim) {
  struct dem_spheres *s = &sim->s;
  struct dem_neighbors *nb = &sim->nb;
  const struct dem_contact_list *c = &sim->pairs, *wc = &sim->wall_contacts;
  const int *who = nb->active;
  long n = (long)nb->n_active;
  int sparse = 0;
  /* The sparse gather marks the bodies of the spheres it adds to, for
   * gather_forces (dem_spheres.forces_marked); the dense one adds to
   * every active sphere and marks none. */
  int *forced = sim->b.forced;
  /* Sparse where the last gather found few touching: they are counted
   * as they are listed, not by a pass over every contact's `touched` on
   * one thread (1.3 ms of 1,000 steps of the 60,000-sphere gas, 1.7 ms on
   * two threads); a packing that became dense takes the sparse path once
   * more. */
  if (nb->touching && /* set by the build, with the lists */
      (nb->gather_sparse ||
       4 * (count_touched(c) + count_touched(wc)) <= c->n + wc->n)) {
    size_t contacts = 0;
    n = (long)touching_spheres(nb, c, wc, &contacts);
    who = nb->touching;
    sparse = 1;
    nb->gather_sparse = 4 * contacts <= c->n + wc->n;
  } else
    nb->gather_sparse = 0;
  /* Parts of the spheres, each thread its share first, then another's
   * (core/shares.h): each sphere's sums are its own, whoever makes them. */
  const int threads = n > DEM_PARALLEL_MIN / 4 ? omp_get_max_threads() : 1;
  if (threads > 1)
    DEM_IN_SHARED_PARTS(
        (size_t)n, threads, a0, a1,
        gather_spheres(sim, who, n, (long)a0, (long)a1, sparse, forced););
  else
    gather_spheres(sim, who, n, 0, n, sparse, forced);
  if (!sparse || !forced)
    s->forces_marked = 0;
  s->forces_dirty = 1;
}

void dem_contact_forces(struct dem_sim *sim, double dt) {
  const struct dem_contact_model *m = sim->law.model;
  m->pairs(sim, dt);
  dem_mesh_walls_place(sim, sim->t_eval);
  if (sim->walls.enabled || sim->mw)
    m->walls(sim, dt);
  sim->wall_contacts.kin = NULL; /* the pairs' rows live one evaluation */
  gather(sim);
}

double dem_contact_elastic_energy(const struct dem_sim *sim, double *scratch) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_contact_list *c = &sim->pairs, *wc = &sim->wall_contacts;
  const struct dem_contact_model *m = sim->law.model;
  const int *mat = s->material;
  const long n = (long)s->n;
  const int periodic = sim->walls.periodic != 0;
  if (!sim->nb.start)
    return 0.0;
  /* Per owner: its pairs in ascending partner id, then its walls, so
   * the total depends on neither the thread count nor the order. Only
   * the active spheres (with a pair or a wall contact) own any: the
   * others' +0 is set once. */
  const int *active = sim->nb.active;
  const long na = (long)sim->nb.n_active;
  size_t ids[DEM_ACTIVE_IDS_MAX];
  const size_t few = dem_active_ids(sim, ids, DEM_ACTIVE_IDS_MAX);
  if (few == (size_t)-1)
    memset(scratch, 0, (size_t)n * sizeof *scratch);
  DEM_PARALLEL_IF(
      na > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long a = 0; a < na; a++) {
    const long i = active[a];
    double pairs = 0.0, walls = 0.0;
    struct dem_pair g;
    for (size_t k = c->start[i]; k < c->start[i + 1]; k++)
      if (dem_pair_touch(sim, k, &g, periodic))
        pairs += m->energy(
            dem_law_params(&sim->law, mat[i], mat[c->ij[k][1]]), &g,
            c->state_width ? c->state + k * (size_t)c->state_width : NULL);
    for (size_t k = wc->start[i]; k < wc->start[i + 1]; k++)
      if (dem_wall_touch(sim, k, &g))
        walls += m->energy(
            dem_law_params(&sim->law, mat[i],
                           dem_wall_material(sim, wc->ij[k][1])),
            &g,
            wc->state_width ? wc->state + k * (size_t)wc->state_width : NULL);
    scratch[s->id[i]] = pairs + walls;
      });
  double total = 0.0;
  if (few != (size_t)-1) { /* the others' +0 leaves a sum from +0 alone */
    for (size_t a = 0; a < few; a++)
      total += scratch[ids[a]];
    return total;
  }
  for (long i = 0; i < n; i++)
    total += scratch[i];
  return total;
}

void dem_contact_dissipated(const struct dem_sim *sim,
                            double out[DEM_N_DISSIPATION]) {
  const struct dem_spheres *s = &sim->s;
  for (int m = 0; m < DEM_N_DISSIPATION; m++)
    out[m] = 0.0;
  if (!s->dissipated)
    return;
  for (size_t id = 0; id < s->n; id++) { /* in id order: any order alike */
    const double *d = s->dissipated + s->index_of[id] * DEM_N_DISSIPATION;
    for (int m = 0; m < DEM_N_DISSIPATION; m++)
      out[m] += d[m];
  }
}

double dem_contact_wall_work(const struct dem_sim *sim) {
  const struct dem_spheres *s = &sim->s;
  double total = 0.0;
  if (!s->wall_work)
    return 0.0;
  for (size_t id = 0; id < s->n; id++) { /* in id order: any order alike */
    size_t i = s->index_of[id];
    total += s->wall_work[i] - s->wall_ahead[i];
  }
  return total;
}
