/* Contact lists: owners' ranges, keys, and the merge of sorted keys that
 * carries each contact's history (as exaDEM and DEM-Engine do). */
#include "sim/contacts.h"

#include "sim/mesh_walls.h"
#include "sim/scan.h"

#include <stdlib.h>
#include <string.h>

#define SWAP(type, a, b)                                                       \
  do {                                                                         \
    type swap_ = (a);                                                          \
    (a) = (b);                                                                 \
    (b) = swap_;                                                               \
  } while (0)

static struct dem_contact_list *list_of(struct dem_sim *sim,
                                        enum dem_item item) {
  return item == DEM_ITEM_PAIRS ? &sim->pairs : &sim->wall_contacts;
}

/* The old keys and states (the merge's source) hold as many contacts as
 * the current arrays: both grow together. */
static dem_status grow_old(struct dem_contact_list *c, size_t cap) {
  size_t w = (size_t)c->state_width;
  void *key = realloc(c->old_key, cap * sizeof *c->old_key);
  if (key)
    c->old_key = key;
  void *state =
      w ? realloc(c->old_state, cap * w * sizeof *c->old_state) : c->old_state;
  if (state)
    c->old_state = state;
  if (!key || (w && !state))
    return dem_fail(DEM_ERR_NOMEM, "out of memory for %zu contacts", cap);
  return DEM_OK;
}

dem_status dem_contacts_init(struct dem_sim *sim, int state_width,
                             int has_torque, int dissipative, int velocities) {
  for (int k = 0; k < 2; k++) {
    enum dem_item item = k ? DEM_ITEM_WALL_CONTACTS : DEM_ITEM_PAIRS;
    struct dem_contact_list *c = list_of(sim, item);
    size_t cap = 64; /* grown by the first build to what it finds */
    c->state_width = state_width;
    c->has_torque = has_torque;
    c->dissipative = dissipative;
    c->velocities = velocities;
    c->n = c->n_old = 0;
    dem_status st = dem_fields_alloc(sim, item, cap, 0);
    if (!st)
      st = grow_old(c, cap);
    if (st)
      return st;
    c->cap = cap;
  }
  /* The arrays whose width depends on the law (torques, work, the
   * velocities kernels read). */
  dem_status st = dem_fields_alloc(sim, DEM_ITEM_SPHERES, sim->s.n, sim->s.n);
  if (!st)
    st = dem_fields_alloc(sim, DEM_ITEM_BODIES, sim->b.n, sim->b.n);
  return st;
}

/* Makes the current contacts the merge's source (old_*) and gives the
 * list room for n new ones, whose ranges the caller puts in c->start. */
static dem_status retire(struct dem_sim *sim, enum dem_item item, size_t n) {
  struct dem_contact_list *c = list_of(sim, item);
  typedef uint64_t key_t[2];
  SWAP(key_t *, c->key, c->old_key);
  SWAP(double *, c->state, c->old_state);
  SWAP(size_t *, c->start, c->old_start);
  c->n_old = c->n;
  c->n = 0;
  if (n <= c->cap)
    return DEM_OK;
  size_t cap = n + n / 4 + 64;
  dem_status st = grow_old(c, cap);
  if (!st) /* fresh current arrays: nothing in them is needed */
    st = dem_fields_alloc(sim, item, cap, 0);
  if (!st)
    c->cap = cap;
  return st;
}

/* The history of owner i's new contacts (keys ascending) from its old
 * ones (keys ascending): an equal key carries it, a new key starts at
 * zero, and an old key that is gone is dropped. Each may hold a force
 * (what its place held before): `touched` until it is evaluated. */
static void merge_owner(struct dem_contact_list *c, size_t i) {
  const size_t w = (size_t)c->state_width;
  size_t o = c->old_start[i], o1 = c->old_start[i + 1];
  for (size_t k = c->start[i]; k < c->start[i + 1]; k++) {
    c->touched[k] = 1;
    if (w == 0)
      continue;
    while (o < o1 && c->old_key[o][1] < c->key[k][1])
      o++;
    if (o < o1 && c->old_key[o][1] == c->key[k][1])
      memcpy(c->state + k * w, c->old_state + o * w, w * sizeof *c->state);
    else
      memset(c->state + k * w, 0, w * sizeof *c->state);
  }
}

/* The first place in list[a..b) (ascending partner id) whose id is not
 * below `id`. */
static size_t lower_bound(const int *list, size_t a, size_t b,
                          const size_t *sid, size_t id) {
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (sid[list[mid]] < id)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

dem_status dem_contacts_build_pairs(struct dem_sim *sim, const size_t *start,
                                    const int *list, int *codes,
                                    const size_t *only, size_t m) {
  const struct dem_spheres *s = &sim->s;
  struct dem_contact_list *c = &sim->pairs;
  const size_t *sid = s->id;
  const double *mass = sim->b.mass;
  const long n = (long)s->n, visit = only ? (long)m : n;
  dem_status st = retire(sim, DEM_ITEM_PAIRS, start[n] / 2);
  if (st)
    return st;
  /* The pairs each sphere owns: its partners of higher id, the tail of
   * its list. */
  size_t *range = c->start;
  DEM_PARALLEL_IF(visit > DEM_PARALLEL_MIN, omp parallel for schedule(static),
                  for (long a = 0; a < visit; a++) {
    const size_t i = only ? only[a] : (size_t)a;
    range[i + 1] = start[i + 1] -
                   lower_bound(list, start[i], start[i + 1], sid, sid[i] + 1);
                  });
  c->n = only ? dem_prefix_counts_at(range, s->n, only, m)
              : dem_prefix_counts(range, s->n);
  DEM_PARALLEL_IF(
      visit > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long a = 0; a < visit; a++) {
    const long i = only ? (long)only[a] : a;
    if (start[i + 1] == start[i]) /* no pairs: nothing to list or merge */
      continue;
    const size_t first_owned = start[i + 1] - (range[i + 1] - range[i]);
    for (size_t k = start[i]; k < start[i + 1]; k++) {
      const int j = list[k];
      size_t cj;
      if (k >= first_owned) {
        cj = range[i] + (k - first_owned);
        c->ij[cj][0] = (int)i;
        c->ij[cj][1] = j;
        c->key[cj][0] = sid[i];
        c->key[cj][1] = sid[j];
        const double ri = s->radius[i], rj = s->radius[j];
        const double mi = mass[s->body[i]], mj = mass[s->body[j]];
        c->rsum[cj] = ri + rj;
        c->rstar[cj] = ri * rj / c->rsum[cj];
        c->mstar[cj] = mi * mj / (mi + mj);
        c->inertia[cj] = dem_rolling_inertia(mi, ri, mj, rj);
        codes[k] = (int)cj;
      } else { /* j owns it: i's place among j's partners of higher id */
        size_t j_owned = start[j + 1] - (range[j + 1] - range[j]);
        size_t at = lower_bound(list, j_owned, start[j + 1], sid, sid[i]);
        codes[k] = ~(int)(range[j] + (at - j_owned));
      }
    }
    merge_owner(c, (size_t)i);
      });
  return DEM_OK;
}

int dem_walls_near(const struct dem_walls *wl, const double x[3], double reach,
                   int out[DEM_N_WALLS]) {
  int m = 0;
  for (int k = 0; k < 3; k++) {
    if (wl->periodic >> k & 1u) /* no walls across a periodic axis */
      continue;
    if (x[k] - wl->lo[k] < reach)
      out[m++] = 2 * k;
    if (wl->hi[k] - x[k] < reach)
      out[m++] = 2 * k + 1;
  }
  return m;
}

/* Room for the triangles near one sphere. */
struct near_buf {
  struct dem_mesh_hit *pt;
  size_t cap;
  struct dem_mesh_hit local[128];
};

/* The mesh patches near sphere i, as (patch, triangle, copy) in b->pt
 * (ascending); returns how many, or (size_t)-1 when out of memory. */
static size_t mesh_near(const struct dem_sim *sim, long i, double reach,
                        struct near_buf *b) {
  if (!b->pt) {
    b->pt = b->local;
    b->cap = sizeof b->local / sizeof *b->local;
  }
  size_t n = dem_mesh_walls_near(sim, sim->s.x[i], reach, b->pt, b->cap);
  if (n > b->cap) {
    void *p = malloc(n * sizeof *b->pt);
    if (!p)
      return (size_t)-1;
    if (b->pt != b->local)
      free(b->pt);
    b->pt = p;
    b->cap = n;
    n = dem_mesh_walls_near(sim, sim->s.x[i], reach, b->pt, b->cap);
  }
  return n;
}

/* Distinct patches among n hits, ascending by patch. */
static size_t patches_in(const struct dem_mesh_hit *pt, size_t n) {
  size_t m = 0;
  for (size_t k = 0; k < n; k++)
    m += k == 0 || pt[k].patch != pt[k - 1].patch;
  return m;
}

dem_status dem_contacts_build_walls(struct dem_sim *sim,
                                    const unsigned char *use,
                                    const size_t *only, size_t m) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_walls *wl = &sim->walls;
  struct dem_contact_list *c = &sim->wall_contacts;
  struct dem_mesh_walls *mw = sim->mw;
  const long n = (long)s->n;
  if (mw) /* meshes are searched for every sphere */
    only = NULL;
  const long visit = only ? (long)m : n;
  const double skin = sim->nb.skin;
  size_t *range = c->old_start; /* counts, before retire swaps them in */
  size_t *tris = NULL;          /* per sphere, candidate triangles */
  int failed = 0;
  if (mw) {
    dem_status st = dem_mesh_walls_grid(sim);
    if (st)
      return st;
    tris = calloc((size_t)n + 1, sizeof *tris);
    if (!tris)
      return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh contacts");
  }
  DEM_PARALLEL_IF(
      visit > DEM_PARALLEL_MIN,
      omp parallel reduction(|
                             : failed),
      {
        struct near_buf nb = {0};
        _Pragma("omp for schedule(static)") for (long a = 0; a < visit; a++) {
          const long i = only ? (long)only[a] : a;
          int w[DEM_N_WALLS];
          range[i + 1] =
              wl->enabled && (!use || use[i])
                  ? (size_t)dem_walls_near(wl, s->x[i], s->radius[i] + skin, w)
                  : 0;
          if (mw) {
            size_t m = mesh_near(sim, i, s->radius[i] + skin, &nb);
            if (m == (size_t)-1) {
              failed = 1;
              m = 0;
            }
            tris[i + 1] = m;
            range[i + 1] += patches_in(nb.pt, m);
          }
        }
        if (nb.pt != nb.local)
          free(nb.pt);
      });
  if (failed) {
    free(tris);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh contacts");
  }
  /* retire() makes old_start the current ranges and these the new ones:
   * the counts must survive it, so they were written to old_start. */
  size_t total = only ? dem_prefix_counts_at(range, s->n, only, m)
                      : dem_prefix_counts(range, s->n);
  dem_status st = retire(sim, DEM_ITEM_WALL_CONTACTS, total);
  if (!st && mw) {
    size_t n_cand = dem_prefix_counts(tris, s->n);
    if (n_cand > mw->cap_cand) {
      free(mw->cand);
      free(mw->cand_shift);
      mw->cand_shift = NULL;
      mw->cap_cand = n_cand + n_cand / 4 + 64;
      mw->cand = malloc(mw->cap_cand * sizeof *mw->cand);
      if (wl->periodic)
        mw->cand_shift = malloc(mw->cap_cand * sizeof *mw->cand_shift);
      if (!mw->cand || (wl->periodic && !mw->cand_shift))
        st = dem_fail(DEM_ERR_NOMEM, "out of memory for mesh contacts");
    }
    mw->n_cand = n_cand;
  }
  if (st) {
    free(tris);
    return st;
  }
  range = c->start;
  c->n = total;
  DEM_PARALLEL_IF(visit > DEM_PARALLEL_MIN, omp parallel, {
    struct near_buf nb = {0};
    _Pragma("omp for schedule(static)") for (long a = 0; a < visit; a++) {
      const long i = only ? (long)only[a] : a;
      int w[DEM_N_WALLS];
      if (range[i + 1] == range[i])
        continue;
      int nw = wl->enabled && (!use || use[i])
                   ? dem_walls_near(wl, s->x[i], s->radius[i] + skin, w)
                   : 0;
      size_t k = range[i];
      for (int a = 0; a < nw; a++, k++) {
        c->ij[k][0] = (int)i;
        c->ij[k][1] = w[a];
        c->key[k][0] = s->id[i];
        c->key[k][1] = (uint64_t)w[a];
        c->rsum[k] = s->radius[i];
        if (mw)
          c->tri_first[k] = c->tri_count[k] = 0;
      }
      if (mw && tris[i + 1] > tris[i]) {
        size_t m = mesh_near(sim, i, s->radius[i] + skin, &nb), q = tris[i];
        if (m == (size_t)-1) /* the first pass had the room: not reached */
          m = 0;
        for (size_t a = 0; a < m; a++, q++) {
          const int patch = nb.pt[a].patch;
          if (a == 0 || patch != nb.pt[a - 1].patch) {
            if (a > 0)
              k++;
            c->ij[k][0] = (int)i;
            c->ij[k][1] = DEM_N_WALLS + patch;
            c->key[k][0] = s->id[i];
            c->key[k][1] = (uint64_t)(DEM_N_WALLS + patch);
            c->rsum[k] = s->radius[i];
            c->tri_first[k] = q;
            c->tri_count[k] = 0;
          }
          mw->cand[q] = nb.pt[a].tri;
          if (mw->cand_shift)
            v3_copy(mw->cand_shift[q], nb.pt[a].shift);
          c->tri_count[k]++;
        }
      }
      merge_owner(c, (size_t)i);
    }
    if (nb.pt != nb.local)
      free(nb.pt);
  });
  free(tris);
  return DEM_OK;
}

/* Moves one list's contacts with their owners (order[new] = old). */
static void follow_list(struct dem_sim *sim, enum dem_item item,
                        const size_t *order, size_t *corder, void *buf) {
  struct dem_contact_list *c = list_of(sim, item);
  const size_t ns = sim->s.n, n = c->n;
  size_t *start = c->old_start; /* free until the next build */
  const long nsl = (long)ns;
  DEM_PARALLEL_IF(nsl > DEM_PARALLEL_MIN, omp parallel for schedule(static),
                  for (long k = 0; k < nsl; k++) start[k + 1] =
                      c->start[order[k] + 1] - c->start[order[k]];);
  dem_prefix_counts(start, ns);
  DEM_PARALLEL_IF(
      nsl > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long k = 0; k < nsl; k++) {
    const size_t a = c->start[order[k]];
    for (size_t m = 0; m < start[k + 1] - start[k]; m++)
      corder[start[k] + m] = a + m;
      });
  dem_fields_permute(sim, item, n, corder, buf);
  SWAP(size_t *, c->start, c->old_start);
}

void dem_contacts_follow(struct dem_sim *sim, const size_t *order,
                         size_t *corder, void *buf) {
  follow_list(sim, DEM_ITEM_PAIRS, order, corder, buf);
  follow_list(sim, DEM_ITEM_WALL_CONTACTS, order, corder, buf);
}

dem_status dem_contacts_adopt(struct dem_sim *sim, enum dem_item item,
                              const uint64_t (*key)[2], const double *state,
                              size_t n) {
  struct dem_contact_list *c = list_of(sim, item);
  const struct dem_spheres *s = &sim->s;
  const size_t w = (size_t)c->state_width, ns = s->n;
  const uint64_t partners =
      item == DEM_ITEM_PAIRS
          ? ns
          : DEM_N_WALLS + (sim->mw ? (uint64_t)sim->mw->n_patches : 0);
  for (size_t k = 0; k < n; k++) {
    int ascending = k == 0 || key[k - 1][0] < key[k][0] ||
                    (key[k - 1][0] == key[k][0] && key[k - 1][1] < key[k][1]);
    if (key[k][0] >= ns || key[k][1] >= partners || !ascending ||
        (item == DEM_ITEM_PAIRS && key[k][1] <= key[k][0]))
      return dem_fail(DEM_ERR_USAGE,
                      "contact %zu (%llu, %llu): not a contact of this "
                      "system, or out of order",
                      k, (unsigned long long)key[k][0],
                      (unsigned long long)key[k][1]);
  }
  /* The adopted contacts as the merge's source, grouped by owner place. */
  if (n > c->cap) {
    return dem_fail(DEM_ERR_USAGE,
                    "%zu contacts given, but the lists hold %zu: they were "
                    "not rebuilt as the file's run had them",
                    n, c->n);
  }
  memset(c->old_start, 0, (ns + 1) * sizeof *c->old_start);
  for (size_t k = 0; k < n; k++)
    c->old_start[s->index_of[key[k][0]] + 1]++;
  dem_prefix_counts(c->old_start, ns);
  size_t *fill = malloc((ns ? ns : 1) * sizeof *fill);
  if (!fill)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  memcpy(fill, c->old_start, ns * sizeof *fill);
  for (size_t k = 0; k < n; k++) {
    size_t at = fill[s->index_of[key[k][0]]]++;
    memcpy(c->old_key[at], key[k], sizeof *key);
    if (w)
      memcpy(c->old_state + at * w, state + k * w, w * sizeof *state);
  }
  free(fill);
  c->n_old = n;
  /* Every adopted key must be a contact now: count the matches. */
  size_t matched = 0;
  for (size_t i = 0; i < ns; i++) {
    size_t o = c->old_start[i];
    for (size_t k = c->start[i]; k < c->start[i + 1]; k++) {
      while (o < c->old_start[i + 1] && c->old_key[o][1] < c->key[k][1])
        o++;
      matched += o < c->old_start[i + 1] && c->old_key[o][1] == c->key[k][1];
    }
    merge_owner(c, i);
  }
  if (matched != n)
    return dem_fail(DEM_ERR_USAGE,
                    "%zu of %zu stored contacts are not in the rebuilt "
                    "neighbour lists",
                    n - matched, n);
  return DEM_OK;
}

void dem_contacts_rows(const struct dem_sim *sim, enum dem_item item,
                       size_t *rows) {
  const struct dem_contact_list *c =
      item == DEM_ITEM_PAIRS ? &sim->pairs : &sim->wall_contacts;
  size_t r = 0;
  for (size_t id = 0; id < sim->s.n; id++) {
    size_t i = sim->s.index_of[id];
    for (size_t k = c->start[i]; k < c->start[i + 1]; k++)
      rows[r++] = k;
  }
}
