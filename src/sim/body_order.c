/* Spatial order of bodies: a counting sort by cell and the permutation of
 * every per-body and per-sphere array. */
#include "sim/body_order.h"

#include <stdlib.h>
#include <string.h>

#include "sim/contacts.h"
#include "sim/fields.h"
#include "sim/grid.h"
#include "sim/near.h"
#include "sim/scan.h"

struct dem_order_work {
  /* In the neighbour build's scratch (sim/scratch.h), laid out at each
   * sort: the build that follows lays its own over them. */
  size_t *key, *order;  /* per body: cell, new -> old */
  size_t *first;        /* n_bodies + 1: new first members */
  size_t *sphere_order; /* per sphere: new -> old */
  size_t *corder;       /* per contact of either list: new -> old */
  void *buf;            /* one array's worth, for the permutation */
  struct dem_grid grid;
};

int dem_body_order_due(const struct dem_sim *sim) {
  const struct dem_neighbors *nb = &sim->nb;
  int on =
      nb->sort_bodies == DEM_SORT_ON ||
      (nb->sort_bodies == DEM_SORT_AUTO && sim->b.n >= DEM_SORT_MIN_BODIES);
  return on && sim->b.n > 1 &&
         (nb->sorted_at < 0 ||
          nb->builds - nb->sorted_at >= DEM_SORT_EVERY_BUILDS);
}

dem_status dem_body_order_if_due(struct dem_sim *sim) {
  if (!dem_body_order_due(sim))
    return DEM_OK;
  dem_status st = dem_body_order_sort(sim);
  dem_body_order_release(&sim->nb); /* its grid, until the next sort */
  return st;
}

void dem_body_order_release(struct dem_neighbors *nb) {
  struct dem_order_work *w = nb->order_work;
  if (!w)
    return;
  free(w->grid.cell_start);
  free(w);
  nb->order_work = NULL;
}

static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

/* Scratch for n_bodies and n_spheres and both contact lists, in the
 * neighbour build's (kept from sort to sort: the contacts' buffers were
 * allocated and freed at each sort, and their pages faulted in anew). */
static dem_status reserve(struct dem_sim *sim, struct dem_neighbors *nb,
                          size_t n_bodies, size_t n_spheres) {
  if (!nb->order_work && !(nb->order_work = calloc(1, sizeof *nb->order_work)))
    return dem_fail(DEM_ERR_NOMEM, "out of memory for sorting bodies");
  struct dem_order_work *w = nb->order_work;
  const size_t n_pairs = sim->pairs.n, n_walls = sim->wall_contacts.n;
  /* The widest per-item array of bodies, spheres or contacts. */
  size_t bytes =
      max_size(n_bodies * dem_fields_max_item_bytes(sim, DEM_ITEM_BODIES),
               n_spheres * dem_fields_max_item_bytes(sim, DEM_ITEM_SPHERES));
  bytes =
      max_size(bytes, n_pairs * dem_fields_max_item_bytes(sim, DEM_ITEM_PAIRS));
  bytes = max_size(
      bytes, n_walls * dem_fields_max_item_bytes(sim, DEM_ITEM_WALL_CONTACTS));
  const size_t n_contacts = max_size(max_size(n_pairs, n_walls), 1);
  const size_t z = sizeof(size_t);
  dem_status st = dem_scratch_reserve(
      &nb->scratch,
      2 * dem_scratch_size(n_bodies, z) + dem_scratch_size(n_bodies + 1, z) +
          dem_scratch_size(n_spheres, z) + dem_scratch_size(n_contacts, z) +
          dem_scratch_size(bytes, 1));
  if (st)
    return st;
  size_t at = 0;
  w->key = dem_scratch_take(&nb->scratch, &at, n_bodies, z);
  w->order = dem_scratch_take(&nb->scratch, &at, n_bodies, z);
  w->first = dem_scratch_take(&nb->scratch, &at, n_bodies + 1, z);
  w->sphere_order = dem_scratch_take(&nb->scratch, &at, n_spheres, z);
  w->corder = dem_scratch_take(&nb->scratch, &at, n_contacts, z);
  w->buf = dem_scratch_take(&nb->scratch, &at, bytes, 1);
  return DEM_OK;
}

dem_status dem_body_order_sort(struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  const size_t nb = b->n, ns = s->n;
  dem_status st;
  if (nb < 2)
    return DEM_OK;
  dem_near_forget(sim); /* the near flags follow the old numbering */
  if ((st = reserve(sim, &sim->nb, nb, ns)))
    return st;
  struct dem_order_work *w = sim->nb.order_work;

  /* Cells about two bounding radii wide, no more than bodies. */
  double lo[3], hi[3], h = 0;
  for (size_t p = 0; p < sim->n_shapes; p++)
    if (2 * sim->shapes[p].props.bounding_radius > h)
      h = 2 * sim->shapes[p].props.bounding_radius;
  dem_bounding_box((const double(*)[3])b->x, nb, NULL, lo, hi);
  if (!(h > 0))
    h = 1;
  if ((st = dem_grid_size(&w->grid, lo, hi, h, nb)))
    return st;
  long n = (long)nb;
  dem_grid_cells_of(&w->grid, (const double(*)[3])b->x, nb, w->key);
  /* sphere_order (ns >= nb entries) is filled after the sort */
  dem_counting_sort(nb, w->key, w->grid.n_cells, w->grid.cell_start, w->order,
                    w->sphere_order);

  /* Spheres in the new body order, members in member order: the new
   * ranges are a prefix sum of the member counts. */
  DEM_PARALLEL_IF(
      n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long k = 0; k < n; k++) {
    const size_t old = w->order[k];
    w->first[k + 1] = b->first_member[old + 1] - b->first_member[old];
      });
  dem_prefix_counts(w->first, nb);
  DEM_PARALLEL_IF(
      n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long k = 0; k < n; k++) {
    const size_t old = w->order[k], m0 = b->first_member[old];
    for (size_t m = 0; m < w->first[k + 1] - w->first[k]; m++)
      w->sphere_order[w->first[k] + m] = m0 + m;
      });

  /* Every per-body and per-sphere array of the field table, and the
   * contacts with their owners. */
  dem_fields_permute(sim, DEM_ITEM_BODIES, nb, w->order, w->buf);
  dem_fields_permute(sim, DEM_ITEM_SPHERES, ns, w->sphere_order, w->buf);
  dem_contacts_follow(sim, w->sphere_order, w->corder, w->buf);
  memcpy(b->first_member, w->first, (nb + 1) * sizeof *w->first);
  DEM_PARALLEL_IF(
      n > DEM_PARALLEL_MIN, omp parallel for schedule(static),
      for (long k = 0; k < n; k++) {
    for (size_t i = b->first_member[k]; i < b->first_member[k + 1]; i++)
      s->body[i] = (int)k;
    b->index_of[b->id[k]] = (size_t)k;
      });
  const long nsl = (long)ns;
  DEM_PARALLEL_IF(nsl > DEM_PARALLEL_MIN, omp parallel for schedule(static),
                  for (long i = 0; i < nsl; i++) s->index_of[s->id[i]] =
                      (size_t)i;);

  sim->nb.sorted_at = sim->nb.builds;
  sim->nb.sorts++;
  return DEM_OK;
}
