/* Time-step advice from the shortest contact a system can expect. */
#ifndef DEM_CONTACT_ADVICE_H
#define DEM_CONTACT_ADVICE_H

#include "contact/model.h"

/* Duration of a head-on collision of effective mass m*, radius R*, at
 * impact speed v, for one material pair's parameters. */
typedef double (*dem_contact_time_fn)(const void *params, double mstar,
                                      double rstar, double v);

/* The shortest contact the initial state suggests: for every pair of
 * shapes in use (bodies present and those insert entries draw from) and
 * every shape against the box and each mesh, a collision at the fastest
 * impact (relative speed twice the fastest body speed |v| + |w| r_bound
 * or an insert entry's speed, plus sqrt(2 |g| L) of a fall across the
 * scene L: box, meshes, insert regions and bodies; against a moving mesh
 * plus its fastest surface speed), between the smallest spheres at the
 * smallest size factor of their shape. out->time_step is that duration / steps;
 * `law` names the duration's law in messages. */
void dem_contact_time_advice(const struct dem_sim *sim, const char *law,
                             dem_contact_time_fn duration, int steps,
                             struct dem_dt_advice *out);

#endif
