/* The force and torque the spheres exert on each wall: the box's walls and
 * each mesh, summed from the wall contacts' stored forces in a fixed order. */
#include "contact/wall_loads.h"

#include "contact/loop.h"
#include "sim/active.h"

const char *const dem_box_wall_names[DEM_N_WALLS] = {
    "box_xmin", "box_xmax", "box_ymin", "box_ymax", "box_zmin", "box_zmax"};

/* Box walls on a periodic axis do not exist and get no slot. */
static int box_wall_exists(const struct dem_sim *sim, int wall) {
  return sim->walls.enabled && !(sim->walls.periodic >> (wall / 2) & 1u);
}

static size_t box_count(const struct dem_sim *sim) {
  size_t n = 0;
  for (int wall = 0; wall < DEM_N_WALLS; wall++)
    n += (size_t)box_wall_exists(sim, wall);
  return n;
}

size_t dem_wall_load_count(const struct dem_sim *sim) {
  return box_count(sim) + (sim->mw ? sim->mw->n : 0);
}

/* The slot of wall number `wall` (a box wall, or a mesh patch: its mesh),
 * or -1 when it has none. */
static long slot_of(const struct dem_sim *sim, int wall, size_t n_box) {
  if (wall >= DEM_N_WALLS)
    return (long)n_box + sim->mw->patch_mesh[wall - DEM_N_WALLS];
  if (!box_wall_exists(sim, wall))
    return -1;
  long slot = 0;
  for (int w = 0; w < wall; w++)
    slot += box_wall_exists(sim, w);
  return slot;
}

/* The box wall in a slot below box_count. */
static int box_wall_of(const struct dem_sim *sim, size_t slot) {
  for (int wall = 0; wall < DEM_N_WALLS; wall++)
    if (box_wall_exists(sim, wall) && slot-- == 0)
      return wall;
  return -1;
}

const char *dem_wall_load_name(const struct dem_sim *sim, size_t slot) {
  size_t n_box = box_count(sim);
  if (slot < n_box)
    return dem_box_wall_names[box_wall_of(sim, slot)];
  return sim->mw->mesh[slot - n_box].name;
}

void dem_wall_load_point(const struct dem_sim *sim, size_t slot, double t,
                         double out[3]) {
  const struct dem_walls *wl = &sim->walls;
  size_t n_box = box_count(sim);
  if (slot < n_box) { /* the centre of the wall's face */
    int wall = box_wall_of(sim, slot), axis = wall / 2;
    for (int c = 0; c < 3; c++)
      out[c] = 0.5 * (wl->lo[c] + wl->hi[c]);
    out[axis] = wall % 2 ? wl->hi[axis] : wl->lo[axis];
    return;
  }
  /* The mesh's motion centre, carried by its velocity after the start
   * (as the vertices are: sim/mesh_walls.c). */
  const struct dem_motion *mo = &sim->mw->mesh[slot - n_box].motion;
  double tau = t - mo->start;
  v3_copy(out, mo->center);
  if (mo->moving && tau > 0)
    v3_axpy(out, tau, mo->velocity);
}

void dem_contact_wall_loads(const struct dem_sim *sim, double (*point)[3],
                            double (*load)[6]) {
  const struct dem_spheres *s = &sim->s;
  const struct dem_contact_list *wc = &sim->wall_contacts;
  const size_t n_slots = dem_wall_load_count(sim), n_box = box_count(sim);
  for (size_t k = 0; k < n_slots; k++) {
    dem_wall_load_point(sim, k, sim->t_eval, point[k]);
    for (int c = 0; c < 6; c++)
      load[k][c] = 0.0;
  }
  if (!wc->start)
    return;
  /* Sphere by sphere in id order, each one's contacts in wall order: the
   * sums are the same, bitwise, for any thread count and sphere order. */
  size_t ids[DEM_ACTIVE_IDS_MAX]; /* the ones with contacts, if few */
  const size_t few = dem_active_ids(sim, ids, DEM_ACTIVE_IDS_MAX);
  const size_t n_ids = few == (size_t)-1 ? s->n : few;
  for (size_t a = 0; a < n_ids; a++) {
    const size_t i = s->index_of[few == (size_t)-1 ? a : ids[a]];
    for (size_t k = wc->start[i]; k < wc->start[i + 1]; k++) {
      struct dem_pair g = {0};
      const long slot = slot_of(sim, wc->ij[k][1], n_box);
      /* A contact that does not touch has no force (the loop cleared
       * it); one that does is where the force was evaluated: nothing
       * moved since. */
      if (slot < 0 || !dem_wall_touch(sim, k, &g))
        continue;
      double p[3], arm[3], f[3], t[3];
      v3_copy(p, s->x[i]); /* the contact point, as the loop takes it */
      v3_axpy(p, -g.arm_i / g.dist, g.d);
      if (wc->ij[k][1] >= DEM_N_WALLS) /* on the mesh, not a periodic copy */
        v3_sub(p, p, g.shift);
      v3_sub(arm, p, point[slot]);
      v3_scale(f, wc->force[k], -1.0); /* the reaction on the wall */
      v3_cross(t, arm, f);
      if (wc->has_torque) /* the wall's own: its rolling resistance */
        v3_add(t, t, wc->torque[k] + 3);
      v3_add(load[slot], load[slot], f);
      v3_add(load[slot] + 3, load[slot] + 3, t);
    }
  }
}
