/* Verlet lists: a broad phase on bodies' bounding spheres whose body pairs
 * pair their spheres near each other, or (without it) cell-sorted spheres
 * paired through a half stencil; mirrored into full lists. */
#include "sim/neighbors.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/shares.h"
#include "core/vec3.h"
#include "sim/agree.h"
#include "sim/contacts.h"
#include "sim/grid.h"
#include "sim/mesh_walls.h"
#include "sim/near.h"
#include "sim/periodic.h"
#include "sim/scan.h"
#include "sim/scratch.h"

/* The pairs (i < j) one thread found, in the order it found them. Each
 * thread's on cache lines of its own: the search writes `n` after every
 * range it scans. Where the heap put two threads' counts on one line, the
 * 60,000-sphere gas's pair search took 2.8 ms a build on 2 threads
 * against 3.5 ms on 1; on lines of their own, 1.8-2.2 ms
 * (docs/performance.md, "The pair buffers on lines of their own"). */
struct pair_buf {
  _Alignas(64) int (*ij)[2];
  size_t n, cap;
  int failed;
  int *sel; /* the spheres of two bodies near each other (by_bodies) */
  size_t sel_cap;
};
_Static_assert(sizeof(struct pair_buf) % 64 == 0 &&
                   _Alignof(struct pair_buf) == 64,
               "a thread's pair buffer fills whole cache lines of its own");

struct dem_nb_work {
  size_t n_alloc; /* spheres nb->start and nb->active hold */
  /* In the shared scratch (sim/scratch.h), laid out at each build. */
  size_t *cell_of, *order, *pos;
  size_t *cell_scratch; /* the counting sort's, beside cell_of */
  unsigned char *candidate;
  double (*sx)[3], *sr; /* positions and radii in cell order */
  int *sb;              /* bodies in cell order */
  struct dem_grid sg;
  struct pair_buf *tb;
  size_t *t_count; /* n_tb + 1: active spheres per thread, then offsets */
  int n_tb;
  int *codes;                /* beside nb->list: the entries as pair codes */
  int by_bodies;             /* the pairs hold sphere indices, not cell order */
  size_t *bcell_of, *border; /* in the scratch too */
  size_t *bcell_scratch;     /* the broad phase's counting sort's */
  double *bradius;
  struct dem_grid bg;
};

int dem_neighbors_stale(struct dem_sim *sim) {
  const struct dem_spheres *s = &sim->s;
  if (!sim->nb.start)
    return 1;
  double limit = 0.25 * sim->nb.skin * sim->nb.skin;
  if (sim->mw && sim->mw->moving) { /* the meshes' share of the skin */
    double half = 0.5 * sim->nb.skin,
           moved = sqrt(dem_mesh_walls_moved2(sim, sim->t_eval));
    if (!(moved < half))
      return 1;
    limit = (half - moved) * (half - moved);
  }
  if (sim->nb.moved2_known) { /* measured by update_spheres */
    sim->nb.moved2_known = 0;
    if (!(dem_agree_max(sim->nb.moved2) <= limit))
      return 1;
    /* The far bodies it did not place: their bound decides when it can,
     * else their exact displacement, so that the lists are rebuilt at
     * the same steps as when every sphere is placed. */
    if (dem_agree_max(sim->nb.far_bound2) <= limit)
      return 0;
    return !(dem_agree_max(dem_near_moved2(sim)) <= limit);
  }
  dem_near_place_all(sim);
  const double(*x)[3] = (const double(*)[3])s->x;
  const double(*x0)[3] = (const double(*)[3])s->x_build;
  long n = (long)s->n;
  double worst = 0.0;
  DEM_PARALLEL_IF(
      n > DEM_PARALLEL_MIN,
      omp parallel for schedule(static) reduction(max : worst),
      for (long i = 0; i < n; i++) {
    double dx = x[i][0] - x0[i][0], dy = x[i][1] - x0[i][1],
           dz = x[i][2] - x0[i][2];
    double d2 = dx * dx + dy * dy + dz * dz;
    worst = d2 > worst ? d2 : worst;
      });
  return !(dem_agree_max(worst) <= limit); /* NaN positions force a rebuild */
}

/* ---- allocation --------------------------------------------------------- */

/* The build's scratch for n spheres and n_bodies bodies: order and
 * candidate live through the build; one region after them serves in turn
 * the broad phase (bcell_of, border, bradius, its sort's scratch), the
 * cell keys (cell_of and the counting sort's scratch, until the sort),
 * the search (sx, sr, sb) and the mirroring (pos), each phase done with
 * it before the next writes. */
static size_t work_bytes(size_t n, size_t n_bodies) {
  size_t broad = 4 * dem_scratch_size(n_bodies, sizeof(size_t)),
         keys = 2 * dem_scratch_size(n, sizeof(size_t)),
         search = dem_scratch_size(n, 3 * sizeof(double)) +
                  dem_scratch_size(n, sizeof(double)) +
                  dem_scratch_size(n, sizeof(int));
  size_t region = broad > keys ? broad : keys;
  region = search > region ? search : region;
  return dem_scratch_size(n, sizeof(size_t)) + dem_scratch_size(n, 1) + region;
}

static void work_layout(struct dem_nb_work *w, const struct dem_scratch *sc,
                        size_t n, size_t n_bodies) {
  size_t at = 0;
  w->order = dem_scratch_take(sc, &at, n, sizeof *w->order);
  w->candidate = dem_scratch_take(sc, &at, n, 1);
  const size_t region = at;
  w->bcell_of = dem_scratch_take(sc, &at, n_bodies, sizeof *w->bcell_of);
  w->border = dem_scratch_take(sc, &at, n_bodies, sizeof *w->border);
  w->bradius = dem_scratch_take(sc, &at, n_bodies, sizeof *w->bradius);
  w->bcell_scratch =
      dem_scratch_take(sc, &at, n_bodies, sizeof *w->bcell_scratch);
  at = region;
  w->cell_of = dem_scratch_take(sc, &at, n, sizeof *w->cell_of);
  w->cell_scratch = dem_scratch_take(sc, &at, n, sizeof *w->cell_scratch);
  at = region;
  w->sx = dem_scratch_take(sc, &at, n, sizeof *w->sx);
  w->sr = dem_scratch_take(sc, &at, n, sizeof *w->sr);
  w->sb = dem_scratch_take(sc, &at, n, sizeof *w->sb);
  at = region;
  w->pos = dem_scratch_take(sc, &at, n, sizeof *w->pos);
}

static dem_status work_reserve(struct dem_neighbors *nb, size_t n,
                               size_t n_bodies) {
  if (!nb->work && !(nb->work = calloc(1, sizeof *nb->work)))
    return dem_fail(DEM_ERR_NOMEM, "out of memory for neighbour lists");
  struct dem_nb_work *w = nb->work;
  if (w->n_alloc < n || !nb->start) {
    size_t m = n ? n : 1;
    free(nb->start), free(nb->active);
    free(nb->touching), free(nb->touching_mark);
    nb->start = malloc((m + 1) * sizeof *nb->start);
    nb->active = malloc(m * sizeof *nb->active);
    nb->touching = malloc(m * sizeof *nb->touching);
    nb->touching_mark = calloc(m, 1);
    if (!nb->start || !nb->active || !nb->touching || !nb->touching_mark) {
      w->n_alloc = 0;
      return dem_fail(DEM_ERR_NOMEM,
                      "out of memory for neighbour lists "
                      "of %zu spheres",
                      n);
    }
    w->n_alloc = n;
  }
  dem_status st = dem_scratch_reserve(&nb->scratch, work_bytes(n, n_bodies));
  if (st)
    return st;
  work_layout(w, &nb->scratch, n, n_bodies);
  int threads = omp_get_max_threads();
  if (w->n_tb < threads) {
    struct pair_buf *tb =
        aligned_alloc(_Alignof(struct pair_buf), (size_t)threads * sizeof *tb);
    if (!tb)
      return dem_fail(DEM_ERR_NOMEM, "out of memory for neighbour lists");
    if (w->n_tb)
      memcpy(tb, w->tb, (size_t)w->n_tb * sizeof *tb);
    memset(tb + w->n_tb, 0, (size_t)(threads - w->n_tb) * sizeof *tb);
    free(w->tb);
    w->tb = tb;
    size_t *c = realloc(w->t_count, (size_t)(threads + 1) * sizeof *c);
    if (!c)
      return dem_fail(DEM_ERR_NOMEM, "out of memory for neighbour lists");
    w->t_count = c;
    w->n_tb = threads;
  }
  return DEM_OK;
}

void dem_neighbors_release(struct dem_neighbors *nb) {
  struct dem_nb_work *w = nb->work;
  free(nb->start), free(nb->list), free(nb->active);
  free(nb->touching), free(nb->touching_mark);
  nb->start = NULL, nb->list = NULL, nb->active = NULL;
  nb->touching = NULL, nb->touching_mark = NULL;
  nb->capacity = nb->n_active = 0;
  dem_near_release(nb);
  if (!w)
    return;
  dem_scratch_release(&nb->scratch);
  free(w->sg.cell_start), free(w->bg.cell_start);
  for (int t = 0; t < w->n_tb; t++)
    free(w->tb[t].ij), free(w->tb[t].sel);
  free(w->tb);
  free(w->t_count);
  free(w->codes);
  free(w);
  nb->work = NULL;
}

size_t dem_neighbors_bytes(const struct dem_neighbors *nb) {
  const struct dem_nb_work *w = nb->work;
  if (!w)
    return 0;
  size_t bytes = sizeof *w + nb->capacity * 2 * sizeof *nb->list;
  bytes += (w->n_alloc + 1) * sizeof *nb->start;
  bytes += w->n_alloc * (sizeof *nb->active + sizeof *nb->touching + 1) +
           nb->scratch.bytes;
  bytes += (w->sg.cells_alloc + w->bg.cells_alloc) * sizeof(size_t);
  for (int t = 0; t < w->n_tb; t++)
    bytes += w->tb[t].cap * sizeof *w->tb[t].ij +
             w->tb[t].sel_cap * sizeof *w->tb[t].sel;
  return bytes;
}

/* ---- sphere order ---------------------------------------------------------
 */

/* How many spheres ahead copy_sorted asks for what it reads: the cell
 * order jumps through the sphere arrays, far beyond the caches with a
 * million spheres. */
#define COPY_AHEAD 16

/* Positions, radii and bodies of the spheres in cell order, for the
 * search (the spheres themselves stay in body order: each body's members
 * are contiguous, so placing spheres and gathering their forces onto
 * bodies stream through memory). */
static void copy_sorted(struct dem_sim *sim, size_t n_search) {
  const struct dem_spheres *s = &sim->s;
  struct dem_nb_work *w = sim->nb.work;
  const size_t *order = w->order;
  long n = (long)n_search;
  DEM_PARALLEL_IF(
      n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long k = 0; k < n; k++) {
    if (k + COPY_AHEAD < n) {
      const size_t a = order[k + COPY_AHEAD];
      __builtin_prefetch(s->x[a], 0);
      __builtin_prefetch(&s->x[a][2], 0);
      __builtin_prefetch(&s->radius[a], 0);
      __builtin_prefetch(&s->body[a], 0);
    }
    size_t i = order[k];
    w->sx[k][0] = s->x[i][0];
    w->sx[k][1] = s->x[i][1];
    w->sx[k][2] = s->x[i][2];
    w->sr[k] = s->radius[i];
    w->sb[k] = s->body[i];
      });
}

/* ---- broad phase ----------------------------------------------------------
 */

/* The block of grid cells (at most 3 x 3 x 3) around x's own: lo..hi on
 * each axis, clipped to the grid. */
static inline void cells_around(const struct dem_grid *g, const double x[3],
                                size_t lo[3], size_t hi[3]) {
  size_t c[3];
  dem_grid_coords(g, x, c);
  for (int a = 0; a < 3; a++) {
    lo[a] = c[a] ? c[a] - 1 : 0;
    hi[a] = c[a] + 1 < g->dims[a] ? c[a] + 1 : c[a];
  }
}

/* Whether no sphere of body k (bounding radius R) can be within r + skin
 * of a wall: its centre is farther than ||M(q)|| R + skin from every one.
 * A sphere sits at x_k + M(q) p with |p| + r <= R, and q_rotate's matrix
 * is M(q) = s^2 R_q + (1 - s^2) I for |q| = s (SPIRAL does not
 * normalise), so ||M(q)|| <= s^2 + |1 - s^2|; plus rounding. The walls'
 * calls for each sphere are saved for the bodies in the open. */
static int body_clear_of_walls(const struct dem_sim *sim, long k, double R) {
  const struct dem_walls *wl = &sim->walls;
  const double *x = sim->b.x[k], *q = sim->b.q[k];
  double s2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  double ext = R * (s2 + fabs(1 - s2)) * (1 + 1e-12) +
               1e-12 * (fabs(x[0]) + fabs(x[1]) + fabs(x[2]) + R) +
               sim->nb.skin;
  for (int a = 0; a < 3; a++)
    if (!(wl->periodic >> a & 1u) &&
        !(x[a] - wl->lo[a] > ext && wl->hi[a] - x[a] > ext))
      return 0;
  return 1;
}

/* Whether sphere i is within r_i + skin of the bounding sphere (radius
 * Ro) of body o. */
static inline int near_body(const struct dem_sim *sim, size_t i, size_t o,
                            double Ro, double skin) {
  double d[3];
  v3_sub(d, sim->s.x[i], sim->b.x[o]);
  double r = Ro + sim->s.radius[i] + skin;
  return v3_dot(d, d) < r * r;
}

/* Below, with the sphere phase. */
static void pair_bodies(const struct dem_sim *sim, size_t k, size_t o,
                        struct pair_buf *out);

/* candidate[i] = 1 for the spheres within r_i + skin of a wall or of
 * another body's bounding sphere: only they can have a listed pair; and
 * each pair of bodies whose bounding spheres are within reach pairs its
 * spheres near each other (pair_bodies) in the same walk, so a body far
 * from all others costs nothing and no sphere is sorted. (If
 * spheres i of b and j of c are within r_i + r_j + skin, then
 * |x_i - x_c| <= r_i + r_j + skin + (R_c - r_j) and
 * |x_b - x_c| <= R_b + R_c + skin.) */
static dem_status broad_phase(struct dem_sim *sim) {
  const struct dem_bodies *b = &sim->b;
  const struct dem_spheres *s = &sim->s;
  const struct dem_walls *wl = &sim->walls;
  struct dem_nb_work *w = sim->nb.work;
  const double skin = sim->nb.skin;
  const long nbod = (long)b->n;
  double max_r = 0, lo[3], hi[3];
  for (long k = 0; k < nbod; k++) {
    w->bradius[k] =
        sim->shapes[b->shape[k]].props.bounding_radius * b->scale[k];
    if (w->bradius[k] > max_r)
      max_r = w->bradius[k];
  }
  dem_bounding_box((const double(*)[3])b->x, b->n, NULL, lo, hi);
  struct dem_grid *g = &w->bg;
  dem_status st = dem_grid_size(g, lo, hi, 2 * max_r + skin, 8 * b->n + 64);
  if (st)
    return st;
  dem_grid_cells_of(g, (const double(*)[3])b->x, b->n, w->bcell_of);
  dem_counting_sort(b->n, w->bcell_of, g->n_cells, g->cell_start, w->border,
                    w->bcell_scratch);
  const double *R = w->bradius;
  unsigned char *cand = w->candidate;
  DEM_PARALLEL_IF(nbod > DEM_PARALLEL_MIN_BODIES, omp parallel, {
    struct pair_buf *out = &w->tb[omp_get_thread_num()];
    out->n = 0;
    out->failed = 0;
    _Pragma("omp for schedule(static)") for (long k = 0; k < nbod; k++) {
      const size_t m0 = b->first_member[k], m1 = b->first_member[k + 1];
      int clear = !wl->enabled || body_clear_of_walls(sim, k, R[k]);
      for (size_t m = m0; m < m1; m++) {
        size_t i = m;
        int walls[DEM_N_WALLS];
        cand[i] = !clear &&
                  dem_walls_near(wl, s->x[i], s->radius[i] + skin, walls) > 0;
      }
      size_t lo[3], hi[3];
      cells_around(g, b->x[k], lo, hi);
      for (size_t z = lo[2]; z <= hi[2]; z++)
        for (size_t y = lo[1]; y <= hi[1]; y++) {
          size_t row = (z * g->dims[1] + y) * g->dims[0];
          size_t e = g->cell_start[row + hi[0] + 1];
          for (size_t q = g->cell_start[row + lo[0]]; q < e; q++) {
            size_t o = w->border[q];
            if (o == (size_t)k)
              continue;
            double d[3];
            v3_sub(d, b->x[k], b->x[o]);
            double reach = R[k] + R[o] + skin;
            if (!(v3_dot(d, d) < reach * reach))
              continue;
            for (size_t m = m0; m < m1; m++)
              if (!cand[m])
                cand[m] = (unsigned char)near_body(sim, m, o, R[o], skin);
            if (o > (size_t)k) /* each body pair once */
              pair_bodies(sim, (size_t)k, o, out);
          }
        }
    }
  });
  return DEM_OK;
}

/* ---- sphere phase ---------------------------------------------------------
 */

/* Room in p for `more` pairs after its n; 0 (p->failed set) when there is
 * no memory for them. */
static inline int pair_room(struct pair_buf *p, size_t more) {
  if (p->n + more <= p->cap)
    return 1;
  size_t cap = p->cap ? 2 * p->cap : 1024;
  while (cap < p->n + more)
    cap *= 2;
  void *q = realloc(p->ij, cap * sizeof *p->ij);
  if (!q) {
    p->failed = 1;
    return 0;
  }
  p->ij = q;
  p->cap = cap;
  return 1;
}

static inline int pair_push(struct pair_buf *p, int i, int j) {
  if (!pair_room(p, 1))
    return 0;
  p->ij[p->n][0] = i;
  p->ij[p->n][1] = j;
  p->n++;
  return 1;
}

/* Pairs (i, j > i) of other bodies within r_i + r_j + skin, j in
 * [j0, j1), appended in ascending j. Every candidate is written and the
 * count moves on only for a pair, with no branch on the test: in the
 * 60,000-sphere gas a sphere has about five candidates in four ranges,
 * one in six within reach (mostly its own rod's spheres, which the body
 * test drops), and the processor cannot foresee which; the search took
 * 3.4 ms a build where it took 4.2 (docs/performance.md, "No branch in
 * the pair search"). */
static inline void scan_range(const struct dem_nb_work *w, double skin,
                              size_t i, size_t j0, size_t j1,
                              struct pair_buf *out) {
  const double(*x)[3] = (const double(*)[3])w->sx;
  const double xi = x[i][0], yi = x[i][1], zi = x[i][2];
  const double ri = w->sr[i] + skin;
  const int bi = w->sb[i];
  if (!pair_room(out, j1 - j0))
    return;
  int(*ij)[2] = out->ij;
  size_t n = out->n;
  for (size_t j = j0; j < j1; j++) {
    const double dx = xi - x[j][0], dy = yi - x[j][1], dz = zi - x[j][2];
    const double range = ri + w->sr[j];
    ij[n][0] = (int)i;
    ij[n][1] = (int)j;
    n += (dx * dx + dy * dy + dz * dz < range * range) & (w->sb[j] != bi);
  }
  out->n = n;
}

/* Spheres [i0, i1) of the sorted ones, each paired with the later
 * spheres of its own cell row (the cell and the next one) and of the
 * four forward rows (y+1, z) and (y-1..y+1, z+1), three cells wide: five
 * contiguous ranges, the same for every sphere of a cell, so they are
 * found once per cell. Rows come in ascending cell order, so each
 * sphere's partners come in ascending index. */
static void find_pairs_range(const struct dem_nb_work *w, double skin,
                             size_t i0, size_t i1, struct pair_buf *out) {
  const struct dem_grid *g = &w->sg;
  const size_t *cs = g->cell_start;
  const size_t d0 = g->dims[0], d1 = g->dims[1], d2 = g->dims[2];
  /* the cell of sphere i0: the last c with cs[c] <= i0 */
  size_t lo = 0, hi = g->n_cells;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (cs[mid] <= i0)
      lo = mid;
    else
      hi = mid;
  }
  size_t c = lo, cell_end = 0, row_end = 0;
  /* c's coordinates, followed as c steps on (no division per cell) */
  size_t cx = c % d0, cy = (c / d0) % d1, cz = c / (d0 * d1);
  size_t rb[4], re[4];
  int nr = 0;
  for (size_t i = i0; i < i1; i++) {
    if (i >= cell_end || i == i0) {
      while (cs[c + 1] <= i) {
        c++;
        if (++cx == d0) {
          cx = 0;
          if (++cy == d1)
            cy = 0, cz++;
        }
      }
      cell_end = cs[c + 1];
      size_t x0 = cx ? cx - 1 : 0, x1 = cx + 1 < d0 ? cx + 1 : cx;
      row_end = cs[c - cx + x1 + 1];
      static const int fwd[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};
      nr = 0;
      for (int r = 0; r < 4; r++) {
        long y = (long)cy + fwd[r][0];
        size_t z = cz + (size_t)fwd[r][1];
        if (y < 0 || y >= (long)d1 || z >= d2)
          continue;
        size_t row = (z * d1 + (size_t)y) * d0;
        rb[nr] = cs[row + x0];
        re[nr] = cs[row + x1 + 1];
        nr += re[nr] > rb[nr];
      }
    }
    scan_range(w, skin, i, i + 1, row_end, out);
    for (int r = 0; r < nr; r++)
      scan_range(w, skin, i, rb[r], re[r], out);
  }
}

/* Every sorted sphere's pairs (find_pairs_range), in parts that each
 * thread takes from its own share first, then from another's when done
 * early (core/shares.h): a pair is found by whoever searches its first
 * sphere, into that thread's buffer, and the lists are sorted after, so
 * who finds it changes nothing. On 2 threads at 60,000 spheres, one
 * thread's wait for the other at the end of the search added up to 3-30
 * ms a thousand steps, which thread changing from run to run. */
static void find_pairs(struct dem_sim *sim, size_t n_search) {
  struct dem_nb_work *w = sim->nb.work;
  const double skin = sim->nb.skin;
  const int threads = n_search > DEM_PARALLEL_MIN && omp_get_max_threads() > 1
                          ? omp_get_max_threads()
                          : 1;
  for (int t = 0; t < threads; t++)
    w->tb[t].n = 0, w->tb[t].failed = 0;
  if (threads == 1)
    find_pairs_range(w, skin, 0, n_search, &w->tb[0]);
  else
    DEM_IN_SHARED_PARTS(
        n_search, threads, i0, i1,
        find_pairs_range(w, skin, i0, i1, &w->tb[omp_get_thread_num()]););
}

/* The pairs between bodies k and o (k < o, bounding spheres within
 * reach): the spheres of k near o's bounding sphere against those of o
 * near k's, the broad phase's tests (a pair within range has both, see
 * broad_phase), in sphere indices (i of k below j of o). */
static void pair_bodies(const struct dem_sim *sim, size_t k, size_t o,
                        struct pair_buf *out) {
  const struct dem_nb_work *w = sim->nb.work;
  const size_t *first = sim->b.first_member;
  const double skin = sim->nb.skin, *R = w->bradius;
  const size_t mk = first[k + 1] - first[k], mo = first[o + 1] - first[o];
  if (out->sel_cap < mk + mo) {
    int *sel = realloc(out->sel, (mk + mo) * sizeof *sel);
    if (!sel) {
      out->failed = 1;
      return;
    }
    out->sel = sel;
    out->sel_cap = mk + mo;
  }
  int *a = out->sel, *c;
  size_t na = 0, nc = 0;
  for (size_t i = first[k]; i < first[k + 1]; i++)
    if (near_body(sim, i, o, R[o], skin))
      a[na++] = (int)i;
  if (na == 0)
    return;
  c = a + na;
  for (size_t j = first[o]; j < first[o + 1]; j++)
    if (near_body(sim, j, k, R[k], skin))
      c[nc++] = (int)j;
  const double(*x)[3] = (const double(*)[3])sim->s.x;
  const double *r = sim->s.radius;
  for (size_t p = 0; p < na; p++) {
    const int i = a[p];
    const double xi = x[i][0], yi = x[i][1], zi = x[i][2], ri = r[i] + skin;
    for (size_t q = 0; q < nc; q++) {
      const int j = c[q];
      double dx = xi - x[j][0], dy = yi - x[j][1], dz = zi - x[j][2];
      double range = ri + r[j];
      if (dx * dx + dy * dy + dz * dz < range * range)
        pair_push(out, i, j);
    }
  }
}

/* ---- periodic axes -------------------------------------------------------
 */

/* find_pairs with periodic axes: each sphere against the later spheres
 * (j > i) of every distinct cell around its own, at the nearest image. */
static void find_pairs_periodic(struct dem_sim *sim, size_t n_search) {
  struct dem_nb_work *w = sim->nb.work;
  const struct dem_grid *g = &w->sg;
  const struct dem_walls *wl = &sim->walls;
  const double skin = sim->nb.skin;
  const size_t *cs = g->cell_start;
  const double(*x)[3] = (const double(*)[3])w->sx;
  DEM_PARALLEL_IF(n_search > DEM_PARALLEL_MIN, omp parallel, {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    struct pair_buf *out = &w->tb[t];
    out->n = 0;
    out->failed = 0;
    size_t i0 = n_search * (size_t)t / (size_t)nt;
    size_t i1 = n_search * (size_t)(t + 1) / (size_t)nt;
    size_t c = 0, cell_end = 0, near[27];
    int n_near = 0;
    for (size_t i = i0; i < i1; i++) {
      if (i >= cell_end || i == i0) {
        while (cs[c + 1] <= i)
          c++;
        cell_end = cs[c + 1];
        const size_t d0 = g->dims[0], d1 = g->dims[1];
        const size_t cc[3] = {c % d0, (c / d0) % d1, c / (d0 * d1)};
        n_near = dem_periodic_stencil(wl, g, cc, near);
      }
      const double ri = w->sr[i] + skin;
      for (int r = 0; r < n_near; r++) {
        size_t j0 = cs[near[r]], j1 = cs[near[r] + 1];
        for (size_t j = j0 > i + 1 ? j0 : i + 1; j < j1; j++) {
          double d[3], shift[3], range = ri + w->sr[j];
          v3_sub(d, x[i], x[j]);
          dem_min_image(wl, d, shift);
          if (v3_dot(d, d) < range * range && w->sb[j] != w->sb[i])
            pair_push(out, (int)i, (int)j);
        }
      }
    }
  });
}

/* The ends of the threads' pairs that land in spheres [k0, k1): counted
 * into pos (fill = 0), or written into their lists at pos (fill = 1).
 * Every thread scans every pair in the same order, so each list gets its
 * entries in the same order whatever the thread count (and they are
 * sorted after anyway). */
static void mirror_slice(const struct dem_nb_work *w, size_t k0, size_t k1,
                         int fill, size_t *pos, int *list) {
  const size_t *order = w->order;
  for (int t = 0; t < w->n_tb; t++) {
    const struct pair_buf *p = &w->tb[t];
    for (size_t k = 0; k < p->n; k++) {
      const size_t i = w->by_bodies ? (size_t)p->ij[k][0] : order[p->ij[k][0]],
                   j = w->by_bodies ? (size_t)p->ij[k][1] : order[p->ij[k][1]];
      if (i - k0 < k1 - k0) { /* k0 <= i < k1, unsigned */
        if (fill)
          list[pos[i]] = (int)j;
        pos[i]++;
      }
      if (j - k0 < k1 - k0) {
        if (fill)
          list[pos[j]] = (int)i;
        pos[j]++;
      }
    }
  }
}

/* Sphere i's list sorted by partner id (insertion sort: lists are
 * short), so that force sums do not depend on the current sphere order. */
static void sort_list(int *list, size_t a, size_t b, const size_t *id) {
  for (size_t k = a + 1; k < b; k++) {
    int v = list[k];
    size_t m = k;
    for (; m > a && id[list[m - 1]] > id[v]; m--)
      list[m] = list[m - 1];
    list[m] = v;
  }
}

/* The lists' starts (nb.start) from the threads' pairs: each thread
 * counts its slice of the spheres' entries, then the slices are scanned. */
static void count_lists(struct dem_sim *sim) {
  struct dem_nb_work *w = sim->nb.work;
  const size_t n = sim->s.n;
  size_t *start = sim->nb.start, *pos = w->pos;
  size_t part[DEM_SCAN_MAX_SLICES + 1];
  const int team = omp_get_max_threads() < DEM_SCAN_MAX_SLICES
                       ? omp_get_max_threads()
                       : DEM_SCAN_MAX_SLICES;
  DEM_PARALLEL_IF(n > DEM_PARALLEL_MIN, omp parallel num_threads(team), {
    const size_t t = (size_t)omp_get_thread_num(),
                 nt = (size_t)omp_get_num_threads();
    const size_t k0 = n * t / nt, k1 = n * (t + 1) / nt;
    memset(pos + k0, 0, (k1 - k0) * sizeof *pos);
    mirror_slice(w, k0, k1, 0, pos, NULL);
    size_t sum = 0;
    for (size_t k = k0; k < k1; k++)
      sum += pos[k];
    part[t + 1] = sum;
    _Pragma("omp barrier") _Pragma("omp single") {
      part[0] = 0;
      for (size_t u = 0; u < nt; u++)
        part[u + 1] += part[u];
    }
    size_t run = part[t];
    for (size_t k = k0; k < k1; k++) {
      start[k] = run;
      run += pos[k];
    }
    if (t + 1 == nt)
      start[n] = run;
  });
}

/* The lists from the threads' pairs at nb.start, each sorted by partner
 * id: each thread fills its slice of the spheres. */
static void fill_lists(struct dem_sim *sim, int *list) {
  struct dem_nb_work *w = sim->nb.work;
  const size_t n = sim->s.n, *id = sim->s.id;
  size_t *start = sim->nb.start, *pos = w->pos;
  const int team = omp_get_max_threads() < DEM_SCAN_MAX_SLICES
                       ? omp_get_max_threads()
                       : DEM_SCAN_MAX_SLICES;
  DEM_PARALLEL_IF(n > DEM_PARALLEL_MIN, omp parallel num_threads(team), {
    size_t k0, k1;
    dem_thread_slice(n, &k0, &k1);
    memcpy(pos + k0, start + k0, (k1 - k0) * sizeof *pos);
    mirror_slice(w, k0, k1, 1, pos, list);
    for (size_t k = k0; k < k1; k++)
      sort_list(list, start[k], start[k + 1], id);
  });
}

/* Full lists from the threads' pairs (in cell-order indices, or sphere
 * indices by_bodies), in the spheres' own indices, each list sorted
 * ascending. Each thread owns a slice of the spheres: it counts, scans
 * and fills their lists (reading every pair; the pairs are a few per
 * sphere at most). With `at` (m ascending spheres, the only ones pairs
 * name), one pass over them instead. */
static dem_status mirror_pairs(struct dem_sim *sim, const size_t *at,
                               size_t m) {
  struct dem_neighbors *nb = &sim->nb;
  struct dem_nb_work *w = nb->work;
  const size_t n = sim->s.n;
  size_t *start = nb->start, *pos = w->pos;
  for (int t = 0; t < w->n_tb; t++)
    if (w->tb[t].failed)
      return dem_fail(DEM_ERR_NOMEM, "out of memory for neighbour pairs");
  if (at) {
    for (size_t a = 0; a < m; a++)
      pos[at[a]] = 0;
    mirror_slice(w, 0, n, 0, pos, NULL);
    for (size_t a = 0; a < m; a++)
      start[at[a] + 1] = pos[at[a]];
    dem_prefix_counts_at(start, n, at, m);
  } else
    count_lists(sim);
  if (nb->capacity < start[n] || !nb->list) {
    size_t cap = start[n] + start[n] / 4 + 16;
    free(nb->list), free(w->codes);
    nb->list = malloc(cap * sizeof *nb->list);
    w->codes = malloc(cap * sizeof *w->codes);
    nb->capacity = cap;
    if (!nb->list || !w->codes) {
      nb->capacity = 0;
      return dem_fail(DEM_ERR_NOMEM,
                      "out of memory for %zu neighbour "
                      "entries",
                      start[n]);
    }
  }
  int *list = nb->list;
  const size_t *id = sim->s.id;
  if (at) {
    for (size_t a = 0; a < m; a++)
      pos[at[a]] = start[at[a]];
    mirror_slice(w, 0, n, 1, pos, list);
    for (size_t a = 0; a < m; a++)
      sort_list(list, start[at[a]], start[at[a] + 1], id);
  } else
    fill_lists(sim, list);
  /* The pairs become contacts, which keep their history; the lists
   * become codes into them. */
  dem_status st = dem_contacts_build_pairs(sim, start, list, w->codes, at, m);
  int *codes = w->codes;
  w->codes = nb->list;
  nb->list = codes;
  return st;
}

/* The sphere phase without the broad phase (or with periodic axes):
 * every sphere sorted by cell and paired through the cells' stencil. */
static dem_status find_pairs_in_cells(struct dem_sim *sim) {
  struct dem_spheres *s = &sim->s;
  struct dem_neighbors *nb = &sim->nb;
  struct dem_nb_work *w = nb->work;
  const struct dem_walls *wl = &sim->walls;
  const size_t n = s->n;
  const long nn = (long)n;
  dem_status st;
  /* Sphere grid: cells one interaction range wide, no more than about
   * eight per sphere. */
  double lo[3], hi[3];
  dem_bounding_box((const double(*)[3])s->x, n, NULL, lo, hi);
  for (int k = 0; k < 3; k++)
    if (wl->periodic >> k & 1u)
      lo[k] = wl->lo[k], hi[k] = wl->hi[k];
  struct dem_grid *g = &w->sg;
  if ((st = dem_grid_size(g, lo, hi, 2.0 * sim->max_radius + nb->skin,
                          8 * n + 64)))
    return st;
  if (wl->periodic) {
    dem_periodic_grid(wl, g);
    DEM_PARALLEL_IF(nn > DEM_PARALLEL_MIN, omp parallel for schedule(static),
                    for (long i = 0; i < nn; i++) w->cell_of[i] =
                        dem_periodic_cell_of(wl, g, s->x[i]););
  } else
    dem_grid_cells_of(g, (const double(*)[3])s->x, n, w->cell_of);
  dem_counting_sort(n, w->cell_of, g->n_cells + 1, g->cell_start, w->order,
                    w->cell_scratch);
  copy_sorted(sim, n);
  if (wl->periodic)
    find_pairs_periodic(sim, n);
  else
    find_pairs(sim, n);
  return DEM_OK;
}

/* Whether sphere k has a pair or a wall contact. */
static inline int is_active(const struct dem_sim *sim, size_t k) {
  const size_t *wc = sim->wall_contacts.start;
  return sim->nb.start[k + 1] > sim->nb.start[k] || wc[k + 1] > wc[k];
}

dem_status dem_neighbors_build(struct dem_sim *sim) {
  struct dem_spheres *s = &sim->s;
  struct dem_neighbors *nb = &sim->nb;
  const size_t n = s->n;
  dem_status st;
  if (n == 0)
    return DEM_OK;
  if ((st = work_reserve(nb, n, sim->b.n)))
    return st;
  dem_near_place_all(sim);
  dem_mesh_walls_place(sim, sim->t_eval);
  struct dem_nb_work *w = nb->work;
  for (int t = 0; t < w->n_tb; t++)
    w->tb[t].n = 0;
  /* The broad phase knows no periodic images: off with periodic axes. */
  const struct dem_walls *wl = &sim->walls;
  int broad = !wl->periodic && (nb->broad_phase == DEM_BROAD_ON ||
                                (nb->broad_phase == DEM_BROAD_AUTO &&
                                 n >= DEM_BROAD_PHASE_MIN_SPHERES * sim->b.n));
  if (broad && (st = broad_phase(sim)))
    return st;
  const unsigned char *use = broad ? w->candidate : NULL;

  const long nn = (long)n;
  size_t n_search = n;
  w->by_bodies = broad;
  if (broad) { /* the broad phase paired the spheres (pair_bodies) */
    n_search = 0;
    for (size_t i = 0; i < n; i++)
      if (use[i])
        w->order[n_search++] = i;
  } else if ((st = find_pairs_in_cells(sim)))
    return st;
  /* Few searched spheres (and no meshes, which every sphere may meet):
   * only they can have a pair or a wall contact, and the lists, the
   * contacts and the active set visit only them. */
  const size_t *at = broad && !sim->mw && 8 * n_search < n ? w->order : NULL;
  if ((st = mirror_pairs(sim, at, n_search)) ||
      (st = dem_contacts_build_walls(sim, use, at, n_search)))
    return st;
  if (at) {
    size_t na = 0;
    for (size_t a = 0; a < n_search; a++)
      if (is_active(sim, at[a]))
        nb->active[na++] = (int)at[a];
    nb->n_active = na;
  }

  /* The spheres the contact loop visits, ascending: each thread counts
   * its slice, then writes it after the slices before it. */
  size_t *counts = w->t_count;
  DEM_PARALLEL_IF(nn > DEM_PARALLEL_MIN, omp parallel, {
    size_t t = (size_t)omp_get_thread_num(), nt = omp_get_num_threads();
    size_t k0 = n * t / nt, k1 = n * (t + 1) / nt, c = 0;
    if (!at) {
      for (size_t k = k0; k < k1; k++)
        c += is_active(sim, k);
      counts[t + 1] = c;
      _Pragma("omp barrier") _Pragma("omp single") {
        counts[0] = 0;
        for (size_t u = 0; u < nt; u++)
          counts[u + 1] += counts[u];
        nb->n_active = counts[nt];
      }
      for (size_t k = k0, a = counts[t]; k < k1; k++) {
        if (is_active(sim, k))
          nb->active[a++] = (int)k;
      }
    }
    /* Build positions: the displacement check's reference. */
    memcpy(s->x_build + k0, s->x + k0, (k1 - k0) * sizeof *s->x);
    if (s->mesh_t_build)
      for (size_t k = k0; k < k1; k++)
        s->mesh_t_build[k] = sim->t_eval;
    size_t b0 = sim->b.n * t / nt, b1 = sim->b.n * (t + 1) / nt;
    memcpy(sim->b.x_build + b0, sim->b.x + b0, (b1 - b0) * sizeof *sim->b.x);
  });
  nb->n_candidates = n_search;
  nb->moved2_known = 0;
  nb->builds++;
  return dem_near_update(sim);
}
