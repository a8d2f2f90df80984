/* Observing the state at a step boundary: energies and snapshots. */
#ifndef DEM_OBSERVE_H
#define DEM_OBSERVE_H

#include "io/h5io.h"
#include "sim/sim.h"

/* Scratch for synchronised velocities and per-sphere sums. */
struct dem_observer {
  double (*v)[3], (*w)[3];
  double *scratch;
};

dem_status dem_observer_init(struct dem_observer *o, const struct dem_sim *sim);
void dem_observer_free(struct dem_observer *o);

/* Energies at the current step boundary (velocities synchronised by the
 * scheme). Sums run in a fixed order: the same for any thread count. */
void dem_observe_energy(struct dem_observer *o, const struct dem_sim *sim,
                        struct dem_energy_row *row);

/* Fills a snapshot view of the current state (uses o's synced velocities:
 * call dem_observe_energy first at this boundary). */
void dem_observe_snapshot(const struct dem_observer *o,
                          const struct dem_sim *sim, struct dem_snapshot *s);

#endif
