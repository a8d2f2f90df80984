/* Cell-list construction of full Verlet lists, with spheres sorted by cell. */
#include "sim/neighbors.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"

int dem_neighbors_stale(const struct dem_sim *sim) {
  const struct dem_spheres *s = &sim->s;
  if (!sim->nb.start)
    return 1;
  double limit = 0.25 * sim->nb.skin * sim->nb.skin;
  long n = (long)s->n;
  int stale = 0;
#pragma omp parallel for schedule(static) reduction(| : stale) if(n > DEM_PARALLEL_MIN)
  for (long i = 0; i < n; i++) {
    double d[3];
    v3_sub(d, s->x[i], s->x_build[i]);
    stale |= v3_dot(d, d) > limit;
  }
  return stale;
}

/* Reorders every per-sphere array by `order` (new index -> old index). */
static dem_status permute_spheres(struct dem_sim *sim, const size_t *order) {
  struct dem_spheres *s = &sim->s;
  struct dem_neighbors *nb = &sim->nb;
  size_t n = s->n;
  size_t need = n * 3 * sizeof(double);
  if (nb->perm_scratch_bytes < need) {
    free(nb->perm_scratch);
    nb->perm_scratch = malloc(need);
    if (!nb->perm_scratch)
      return dem_fail(DEM_ERR_NOMEM, "out of memory sorting %zu spheres", n);
    nb->perm_scratch_bytes = need;
  }
#define PERMUTE(arr, type)                                                     \
  do {                                                                         \
    type *tmp = nb->perm_scratch;                                              \
    for (size_t k = 0; k < n; k++)                                             \
      memcpy(&tmp[k], &s->arr[order[k]], sizeof(type));                        \
    memcpy(s->arr, tmp, n * sizeof(type));                                     \
  } while (0)
  typedef double vec3[3];
  PERMUTE(x, vec3);
  PERMUTE(offset, vec3);
  PERMUTE(force, vec3);
  PERMUTE(radius, double);
  PERMUTE(body, int);
  PERMUTE(material, int);
  PERMUTE(member, size_t);
#undef PERMUTE
  const struct dem_bodies *b = &sim->b;
  for (size_t k = 0; k < n; k++)
    b->member_slot[b->first_member[s->body[k]] + s->member[k]] = k;
  return DEM_OK;
}

static dem_status grow(void **ptr, size_t *have, size_t want, size_t size) {
  if (*have >= want && *ptr)
    return DEM_OK;
  void *p = realloc(*ptr, want * size);
  if (!p)
    return dem_fail(DEM_ERR_NOMEM, "out of memory for neighbour lists");
  *ptr = p;
  *have = want;
  return DEM_OK;
}

dem_status dem_neighbors_build(struct dem_sim *sim) {
  struct dem_spheres *s = &sim->s;
  struct dem_neighbors *nb = &sim->nb;
  const size_t n = s->n;
  dem_status st;
  if (n == 0)
    return DEM_OK;

  /* Grid over the spheres' bounding box; cells at least one interaction
   * range wide, and no more cells than about twice the spheres. */
  double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      if (s->x[i][k] < lo[k])
        lo[k] = s->x[i][k];
      if (s->x[i][k] > hi[k])
        hi[k] = s->x[i][k];
    }
  double h = 2.0 * sim->max_radius + nb->skin;
  size_t dims[3], n_cells;
  for (;;) {
    n_cells = 1;
    for (int k = 0; k < 3; k++) {
      dims[k] = (size_t)((hi[k] - lo[k]) / h) + 1;
      n_cells *= dims[k];
    }
    if (n_cells <= 2 * n + 8)
      break;
    h *= 1.26;
  }

  size_t cap_cells = nb->n_cells_alloc;
  if ((st = grow((void **)&nb->cell_start, &cap_cells, n_cells + 1,
                 sizeof(size_t))))
    return st;
  nb->n_cells_alloc = cap_cells;
  size_t cap = 0;
  if (!nb->cell_of) {
    nb->cell_of = malloc(n * sizeof(size_t));
    nb->order = malloc(n * sizeof(size_t));
    nb->start = malloc((n + 1) * sizeof(size_t));
    if (!nb->cell_of || !nb->order || !nb->start)
      return dem_fail(DEM_ERR_NOMEM, "out of memory for neighbour lists");
  }
  (void)cap;

  size_t *cell_of = nb->cell_of, *cell_start = nb->cell_start;
  const double inv_h = 1.0 / h;
  for (size_t i = 0; i < n; i++) {
    size_t c[3];
    for (int k = 0; k < 3; k++) {
      size_t ck = (size_t)((s->x[i][k] - lo[k]) * inv_h);
      c[k] = ck < dims[k] ? ck : dims[k] - 1;
    }
    cell_of[i] = (c[2] * dims[1] + c[1]) * dims[0] + c[0];
  }
  /* Stable counting sort by cell. */
  memset(cell_start, 0, (n_cells + 1) * sizeof(size_t));
  for (size_t i = 0; i < n; i++)
    cell_start[cell_of[i] + 1]++;
  for (size_t c = 0; c < n_cells; c++)
    cell_start[c + 1] += cell_start[c];
  for (size_t i = 0; i < n; i++)
    nb->order[cell_start[cell_of[i]]++] = i;
  for (size_t c = n_cells; c > 0; c--)
    cell_start[c] = cell_start[c - 1];
  cell_start[0] = 0;
  if ((st = permute_spheres(sim, nb->order)))
    return st;
  /* After the sort, sphere k lies in the cell whose range contains k. */
  for (size_t c = 0; c < n_cells; c++)
    for (size_t k = cell_start[c]; k < cell_start[c + 1]; k++)
      cell_of[k] = c;

  const double skin = nb->skin;
  size_t *start = nb->start;
  /* Pass 1 counts, pass 2 fills: each sphere writes only its own range,
   * in a fixed cell order, so the lists do not depend on threads. */
  for (int pass = 0; pass < 2; pass++) {
#pragma omp parallel for schedule(static) if((long)n > DEM_PARALLEL_MIN)
    for (long li = 0; li < (long)n; li++) {
      size_t i = (size_t)li;
      size_t c = cell_of[i];
      long cx = (long)(c % dims[0]), cy = (long)((c / dims[0]) % dims[1]),
           cz = (long)(c / (dims[0] * dims[1]));
      const double *xi = s->x[i];
      const double ri = s->radius[i];
      const int bi = s->body[i];
      size_t count = 0;
      int *out = pass ? nb->list + start[i] : NULL;
      for (long dz = -1; dz <= 1; dz++) {
        long z = cz + dz;
        if (z < 0 || z >= (long)dims[2])
          continue;
        for (long dy = -1; dy <= 1; dy++) {
          long y = cy + dy;
          if (y < 0 || y >= (long)dims[1])
            continue;
          for (long dx = -1; dx <= 1; dx++) {
            long x = cx + dx;
            if (x < 0 || x >= (long)dims[0])
              continue;
            size_t cc = ((size_t)z * dims[1] + (size_t)y) * dims[0] + (size_t)x;
            for (size_t j = cell_start[cc]; j < cell_start[cc + 1]; j++) {
              if (s->body[j] == bi)
                continue;
              double d[3];
              v3_sub(d, xi, s->x[j]);
              double range = ri + s->radius[j] + skin;
              if (v3_dot(d, d) < range * range) {
                if (out)
                  out[count] = (int)j;
                count++;
              }
            }
          }
        }
      }
      if (!pass)
        start[i + 1] = count;
    }
    if (!pass) {
      start[0] = 0;
      for (size_t i = 0; i < n; i++)
        start[i + 1] += start[i];
      if ((st = grow((void **)&nb->list, &nb->capacity,
                     start[n] > 0 ? start[n] + start[n] / 4 : 16, sizeof(int))))
        return st;
    }
  }
  memcpy(s->x_build, s->x, n * sizeof *s->x);
  nb->builds++;
  return DEM_OK;
}
