/* Observing the state at a step boundary: energies and snapshots. */
#ifndef DEM_OBSERVE_H
#define DEM_OBSERVE_H

#include "io/h5io.h"
#include "operators/pipeline.h"
#include "sim/sim.h"

/* The columns of a snapshot, and the rows of what a snapshot writes in
 * another order than the arrays'. */
struct dem_observer {
  struct dem_observed_ids *id_rows; /* one per column of body ids */
  size_t *pair_rows, *wall_rows, rows_cap;
  struct dem_h5_column *columns;
  /* What the XDMF sidecar shows of the spheres and the bodies: the field
   * table's XDMF fields. */
  struct dem_xdmf_attribute *xdmf;
  size_t n_xdmf;
  /* The shapes as the output's /shapes stores them (n_shapes rows). */
  struct dem_h5_shape *shapes;
  size_t n_shapes;
  /* The walls whose loads /walls holds (contact/wall_loads.h), their
   * loads (n_walls x 6) and torque points at step walls_step. */
  struct dem_h5_wall *walls;
  size_t n_walls;
  double (*wall_load)[6], (*wall_point)[3];
  long walls_step;
  /* The mesh walls as the output's /meshes and the sidecar draw them, and
   * for each a snapshot column meshes/NAME of its vertices then (written
   * for the moving ones). */
  struct dem_h5_mesh *meshes;
  size_t n_meshes;
  struct dem_observed_mesh *mesh_rows;
};

dem_status dem_observer_init(struct dem_observer *o, const struct dem_sim *sim);
void dem_observer_free(struct dem_observer *o);
/* Room for the bodies and spheres the sim holds now (after insertion). */
dem_status dem_observer_fit(struct dem_observer *o, const struct dem_sim *sim);

/* Energies at the current step boundary, with the velocities synchronised
 * by the scheme into b.v_sync and b.w_sync. Sums run in a fixed order: the
 * same for any thread count. */
dem_status dem_observe_energy(struct dem_observer *o, struct dem_sim *sim,
                              const struct dem_pipeline *p,
                              struct dem_energy_row *row);

/* The walls' loads at the current step boundary (n_walls x 6, force then
 * torque each; contact/wall_loads.h), from the forces of the last
 * evaluation: taken once per step, so that a call before something
 * rebuilds the contact lists at the boundary (insertion) keeps them for
 * the energy row after. */
const double *dem_observe_walls(struct dem_observer *o, struct dem_sim *sim);

/* A snapshot of the current state: every written field of the field
 * table (call dem_observe_energy first at this boundary, for the
 * synchronised velocities, from which it fills the snapshot-only fields:
 * each body's angular velocity in the lab frame, and each sphere's
 * centre velocity and angular velocity). Rows go out in id order
 * (contacts in key order), whatever the current order of the arrays. */
dem_status dem_observe_snapshot(struct dem_observer *o, struct dem_sim *sim,
                                struct dem_snapshot *s);

#endif
