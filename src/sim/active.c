/* The active spheres in id order (sim/active.h). */
#include "sim/active.h"

size_t dem_active_ids(const struct dem_sim *sim, size_t *ids, size_t cap) {
  const struct dem_neighbors *nb = &sim->nb;
  const size_t na = nb->n_active;
  if (!nb->start || !nb->active || na > cap || 8 * na >= sim->s.n)
    return (size_t)-1;
  /* Insertion sort: few, and ascending already unless the spheres were
   * renumbered (sim/body_order.c). */
  for (size_t a = 0; a < na; a++) {
    const size_t v = sim->s.id[nb->active[a]];
    size_t m = a;
    for (; m > 0 && ids[m - 1] > v; m--)
      ids[m] = ids[m - 1];
    ids[m] = v;
  }
  return na;
}
