/* Observing the state at a step boundary: energies and snapshots. */
#ifndef DEM_OBSERVE_H
#define DEM_OBSERVE_H

#include "io/h5io.h"
#include "sim/sim.h"

/* Scratch for synchronised velocities, per-sphere sums, and the sphere
 * columns a snapshot writes as ids. */
struct dem_observer {
  double (*v)[3], (*w)[3];
  double *scratch;
  int *sphere_body, *sphere_member;
};

dem_status dem_observer_init(struct dem_observer *o, const struct dem_sim *sim);
void dem_observer_free(struct dem_observer *o);

/* Energies at the current step boundary (velocities synchronised by the
 * scheme). Sums run in a fixed order: the same for any thread count. */
void dem_observe_energy(struct dem_observer *o, const struct dem_sim *sim,
                        struct dem_energy_row *row);

/* Fills a snapshot view of the current state, with the restart state
 * (uses o's synced velocities: call dem_observe_energy first at this
 * boundary). Rows go out in id order, whatever the bodies' current order. */
void dem_observe_snapshot(struct dem_observer *o, const struct dem_sim *sim,
                          struct dem_snapshot *s);

#endif
