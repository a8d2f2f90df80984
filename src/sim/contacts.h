/* Contacts with identity: building the contact lists at each neighbour
 * build, and carrying every contact's history by its key across rebuilds,
 * spatial re-sorts and restarts. */
#ifndef DEM_CONTACTS_H
#define DEM_CONTACTS_H

#include "sim/fields.h"
#include "sim/sim.h"

/* A pair's rolling inertia, Ai et al. (Powder Technol. 206 (2011) 269):
 * 1/I = 1/(I_i + m_i r_i^2) + 1/(I_j + m_j r_j^2), each sphere's own
 * I = 2/5 m r^2 (m its body's mass). The lane kernels' rolling_inertia
 * (hertz_mindlin_lanes.h) does the same operations. */
static inline double dem_rolling_inertia(double mi, double ri, double mj,
                                         double rj) {
  const double ii = 1.4 * mi * ri * ri, ij = 1.4 * mj * rj * rj;
  return ii * ij / (ii + ij);
}

/* Rebuilds the pair contacts from full neighbour lists: start (n_spheres
 * + 1) and list (sphere indices, each sphere's in ascending partner id).
 * Each pair becomes one contact owned by its lower-id sphere; a pair
 * that was a contact before keeps its history, a new one starts from
 * zero, and one that left the lists is dropped. Writes into `codes`
 * (beside list) each entry's code: c for the contact the sphere owns, ~c
 * for the one its partner owns. Each contact's rstar, mstar and inertia
 * are set from the spheres' radii and their bodies' masses. With `only`
 * (m ascending sphere indices), only those spheres may have entries: the
 * others are not visited. */
dem_status dem_contacts_build_pairs(struct dem_sim *sim, const size_t *start,
                                    const int *list, int *codes,
                                    const size_t *only, size_t m);

/* Rebuilds the wall contacts: every sphere (with use[i] set, if use is
 * given) within its radius + skin of a wall, one contact per wall,
 * keeping the history of those that were contacts before. With `only` (m
 * ascending sphere indices, those with use set; no meshes), only those
 * spheres are visited. */
dem_status dem_contacts_build_walls(struct dem_sim *sim,
                                    const unsigned char *use,
                                    const size_t *only, size_t m);

/* The walls (numbers, ascending) a sphere at x is within `reach` of;
 * returns how many. */
int dem_walls_near(const struct dem_walls *wl, const double x[3], double reach,
                   int out[DEM_N_WALLS]);

/* Carries both lists along when the spheres are renumbered (order[new] =
 * old): each owner's contacts move with it. The lists must be rebuilt
 * before they are evaluated again (partner places are stale). Scratch:
 * corder, as many entries as the longer list; buf, as many bytes as the
 * widest array of either (dem_fields_max_item_bytes times its length). */
void dem_contacts_follow(struct dem_sim *sim, const size_t *order,
                         size_t *corder, void *buf);

/* Gives the contacts of `item` the histories in (key, state) (n rows, in
 * ascending key, as a snapshot holds them): each must be a contact of the
 * current lists. For a restart, after the lists were rebuilt as the run
 * that wrote the file had them. */
dem_status dem_contacts_adopt(struct dem_sim *sim, enum dem_item item,
                              const uint64_t (*key)[2], const double *state,
                              size_t n);

/* The contacts of `item` in ascending key: rows[k] is the k-th (as output
 * rows, independent of the spheres' current order). */
void dem_contacts_rows(const struct dem_sim *sim, enum dem_item item,
                       size_t *rows);

/* Sets the model's history width, whether it makes torques and reports
 * dissipated work, and allocates both lists (and the spheres' arrays
 * whose width depends on the law). */
dem_status dem_contacts_init(struct dem_sim *sim, int state_width,
                             int has_torque, int dissipative, int velocities);

#endif
