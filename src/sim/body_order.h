/* Spatial order of bodies: bodies and their spheres renumbered by cell, so
 * that each thread's static slice of the arrays is a compact region. */
#ifndef DEM_SIM_BODY_ORDER_H
#define DEM_SIM_BODY_ORDER_H

#include "sim/sim.h"

/* contact.sort_bodies: auto sorts from this many bodies. */
#define DEM_SORT_MIN_BODIES 1000
/* Bodies drift out of order slowly: one sort every this many neighbour
 * builds keeps the threads' slices compact at a few percent of the cost
 * of sorting at every build (docs/performance.md). */
#define DEM_SORT_EVERY_BUILDS 8

/* True when the next neighbour build should sort first. */
int dem_body_order_due(const struct dem_sim *sim);

/* Renumbers bodies by the cell of their centre (z slowest) and lays their
 * spheres out in the new body order, each body's members contiguous and
 * in member order; permutes every per-body and per-sphere array and keeps
 * id / index_of. Invalidates the neighbour lists: build them next. Every
 * result of dem is the same, bitwise, in any body order (force sums run
 * in id order), so when and whether this runs never changes a number. */
dem_status dem_body_order_sort(struct dem_sim *sim);

/* The sort, if it is due (dem_body_order_due), and its scratch freed:
 * before a neighbour build. */
dem_status dem_body_order_if_due(struct dem_sim *sim);

/* Frees the sort's scratch. */
void dem_body_order_release(struct dem_neighbors *nb);

#endif
