/* The field table and the allocation, release and permutation that walk
 * it. */
#include "sim/fields.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/huge.h"
#include "core/quat.h"
#include "core/vec3.h"

#define BODY(member) DEM_ITEM_BODIES, offsetof(struct dem_bodies, member)
#define SPHERE(member) DEM_ITEM_SPHERES, offsetof(struct dem_spheres, member)
#define PAIR(member) DEM_ITEM_PAIRS, offsetof(struct dem_contact_list, member)
#define WALL(member)                                                           \
  DEM_ITEM_WALL_CONTACTS, offsetof(struct dem_contact_list, member)

#define F64 DEM_FIELD_F64
#define I32 DEM_FIELD_I32
#define I64 DEM_FIELD_I64
#define ORDER DEM_FIELD_ORDER
#define OUT DEM_FIELD_OUTPUT
#define RESTART DEM_FIELD_RESTART
#define CHECK DEM_FIELD_CHECK
#define XDMF DEM_FIELD_XDMF
#define COMPUTED DEM_FIELD_COMPUTED

/* The snapshot-only fields, computed as they are written from the
 * synchronised velocities (v_sync, w_sync: the observer syncs them before
 * every snapshot), rather than kept: 48 bytes a sphere and 24 a body that
 * a run would carry for nothing between snapshots. */
static void body_angular_velocity_lab(const void *sim, size_t i, void *out) {
  const struct dem_bodies *b = &((const struct dem_sim *)sim)->b;
  q_rotate(out, b->q[i], b->w_sync[i]);
}

/* The velocity of sphere i's centre, v + w x r of its body (r from the
 * body's centre of mass, lab frame). */
static void sphere_velocity(const void *sim, size_t i, void *out) {
  const struct dem_sim *m = sim;
  const struct dem_bodies *b = &m->b;
  int k = m->s.body[i];
  double w[3], r[3], wxr[3];
  q_rotate(w, b->q[k], b->w_sync[k]);
  v3_sub(r, m->s.x[i], b->x[k]);
  v3_cross(wxr, w, r);
  v3_add(out, b->v_sync[k], wxr);
}

static void sphere_angular_velocity_lab(const void *sim, size_t i, void *out) {
  const struct dem_sim *m = sim;
  body_angular_velocity_lab(sim, (size_t)m->s.body[i], out);
}

/* Rows go out in id order (bodies, spheres) or key order (contacts), so
 * no file depends on the order the arrays happen to be in. */
const struct dem_field dem_fields[] = {
    /* name, path, item + offset, type, width, flags, unit, description */
    {"x", "bodies/position", BODY(x), F64, 3, ORDER | RESTART, "m",
     "centre of mass, lab frame"},
    {"v_sync", "bodies/velocity", BODY(v_sync), F64, 3, OUT | XDMF, "m/s",
     "velocity at the snapshot's time, lab frame"},
    {"q", "bodies/orientation", BODY(q), F64, 4, ORDER | RESTART, "1",
     "orientation quaternion (w, x, y, z), principal frame to lab"},
    {"w_sync", "bodies/angular_velocity", BODY(w_sync), F64, 3, OUT, "rad/s",
     "angular velocity at the snapshot's time, body principal frame"},
    {"w_sync_lab", "bodies/angular_velocity_lab", DEM_ITEM_BODIES, 0, F64, 3,
     COMPUTED | OUT | XDMF, "rad/s",
     "angular velocity at the snapshot's time, lab frame"},
    {"mass", "bodies/mass", BODY(mass), F64, 1, ORDER | CHECK | XDMF, "kg",
     "mass"},
    {"inertia", "bodies/inertia", BODY(inertia), F64, 3, ORDER | CHECK,
     "kg m^2", "principal moments of inertia"},
    {"scale", "bodies/scale", BODY(scale), F64, 1, ORDER | OUT, "1",
     "size factor on the shape: sphere radii and offsets times it (1 but "
     "for inserted bodies with a size distribution)"},
    {"shape", "bodies/shape", BODY(shape), I32, 1, ORDER | CHECK | XDMF, "1",
     "shape number: row of /shapes, in the order of the config's shapes"},
    {"v", "state/velocity", BODY(v), F64, 3, ORDER | RESTART, "m/s",
     "velocity as the scheme holds it (half a step behind for leapfrog)"},
    {"w", "state/angular_velocity", BODY(w), F64, 3, ORDER | RESTART, "rad/s",
     "angular velocity as the scheme holds it, body principal frame"},
    {"rot_aux", "state/rot_aux", BODY(rot_aux), F64, DEM_ROT_AUX,
     ORDER | RESTART, "1", "the rotation integrator's own per-body state"},
    {"force", "state/force", BODY(force), F64, 3, ORDER | RESTART, "N",
     "total force at the last evaluation, lab frame"},
    {"torque", "state/torque", BODY(torque), F64, 3, ORDER | RESTART, "N m",
     "total torque about the centre of mass at the last evaluation, lab "
     "frame"},
    {"x_build", "state/body_x_build", BODY(x_build), F64, 3, ORDER | RESTART,
     "m", "centre of mass at the last neighbour build"},
    {"v_contact", NULL, BODY(v_contact), F64, DEM_WIDTH_MOTION, ORDER, "m/s",
     "velocity at the time forces are evaluated, lab frame"},
    {"w_contact", NULL, BODY(w_contact), F64, DEM_WIDTH_MOTION, ORDER, "rad/s",
     "angular velocity at the time forces are evaluated, lab frame"},
    {"w_move", NULL, BODY(w_move), F64, DEM_WIDTH_MOTION, ORDER, "rad/s",
     "angular velocity as the scheme holds it, lab frame"},
    {"id", NULL, BODY(id), I64, 1, ORDER, "1", "number in the input"},
    {"index_of", NULL, BODY(index_of), I64, 1, 0, "1", "place of each id"},
    {"image", "bodies/image", BODY(image), I32, DEM_WIDTH_PERIODIC,
     ORDER | RESTART, "1",
     "periodic images crossed along x, y, z: the position without the "
     "wraps is position + image (max - min)"},
    {"x_unwrapped", "bodies/position_unwrapped", BODY(x_unwrapped), F64,
     DEM_WIDTH_PERIODIC, OUT, "m",
     "centre of mass without the periodic wraps, position + image L"},
    {"energy_in", "state/body_inserted_energy", BODY(energy_in), F64,
     DEM_WIDTH_INSERT, ORDER | RESTART | DEM_FIELD_SINCE_4, "J",
     "energy the body brought in when inserted: kinetic + gravitational at "
     "that time (0 for bodies there from the start)"},
    {"first_member", NULL, BODY(first_member), I64, 1, DEM_FIELD_PLUS_ONE, "1",
     "first member sphere"},
    {"forced", NULL, BODY(forced), I32, 1, ORDER, "1",
     "nonzero if some member sphere may hold a contact force "
     "(dem_spheres.forces_marked)"},

    {"x", "spheres/position", SPHERE(x), F64, 3, ORDER | OUT, "m",
     "centre, lab frame"},
    {"radius", "spheres/radius", SPHERE(radius), F64, 1, ORDER | CHECK | XDMF,
     "m", "radius"},
    {"body", "spheres/body", SPHERE(body), I32, 1,
     ORDER | CHECK | XDMF | DEM_FIELD_BODY_INDEX, "1", "body number"},
    {"v_snap", "spheres/velocity", DEM_ITEM_SPHERES, 0, F64, 3,
     COMPUTED | OUT | XDMF, "m/s",
     "velocity of the centre at the snapshot's time, v + w x r of its body, "
     "lab frame"},
    {"w_snap", "spheres/angular_velocity_lab", DEM_ITEM_SPHERES, 0, F64, 3,
     COMPUTED | OUT | XDMF, "rad/s",
     "angular velocity of its body at the snapshot's time, lab frame"},
    {"member", "state/sphere_member", SPHERE(member), I64, 1, ORDER | CHECK,
     "1", "place among its shape's spheres"},
    {"x_build", "state/sphere_x_build", SPHERE(x_build), F64, 3,
     ORDER | RESTART, "m", "centre at the last neighbour build"},
    {"offset", NULL, SPHERE(offset), F64, 3, ORDER, "m",
     "centre in the body principal frame"},
    {"force", NULL, SPHERE(force), F64, 3, ORDER, "N",
     "contact forces being gathered, lab frame"},
    {"torque", NULL, SPHERE(torque), F64, DEM_WIDTH_SPIN, ORDER, "N m",
     "contact torques about the centre being gathered, lab frame"},
    {"dissipated", "state/sphere_dissipated", SPHERE(dissipated), F64,
     DEM_WIDTH_WORK, ORDER | RESTART, "J",
     "work dissipated by the contacts this sphere owns (damping, friction, "
     "rolling)"},
    {"wall_work", "state/sphere_wall_work", SPHERE(wall_work), F64,
     DEM_WIDTH_MESH, ORDER | RESTART, "J",
     "work of the moving mesh walls on the contacts this sphere owns, to half "
     "a step past the last force evaluation"},
    {"wall_ahead", "state/sphere_wall_ahead", SPHERE(wall_ahead), F64,
     DEM_WIDTH_MESH, ORDER | RESTART, "J",
     "the half step past the last force evaluation of wall_work"},
    {"mesh_t_build", "state/sphere_mesh_t_build", SPHERE(mesh_t_build), F64,
     DEM_WIDTH_MESH, ORDER | RESTART, "s",
     "time of the mesh walls at the last neighbour build"},
    {"material", NULL, SPHERE(material), I32, 1, ORDER, "1", "material"},
    {"id", NULL, SPHERE(id), I64, 1, ORDER, "1", "number in the input"},
    {"index_of", NULL, SPHERE(index_of), I64, 1, 0, "1", "place of each id"},

    {"key", "contacts/spheres", PAIR(key), I64, 2, ORDER | RESTART, "1",
     "the two spheres' numbers, lower first"},
    {"state", "contacts/history", PAIR(state), F64, DEM_WIDTH_STATE,
     ORDER | RESTART, "1", "the contact model's history (see its doc)"},
    {"force", "contacts/force", PAIR(force), F64, 3, ORDER | OUT, "N",
     "force on the first sphere at the last evaluation, lab frame"},
    {"torque", NULL, PAIR(torque), F64, DEM_WIDTH_TORQUE, ORDER, "N m",
     "torques on the two spheres about their centres, lab frame"},
    {"touched", NULL, PAIR(touched), I32, 1, ORDER, "1",
     "0 if the spheres did not touch at the last evaluation (no force)"},
    {"touched_at", NULL, PAIR(touched_at), I64, 1, 0, "1",
     "the pairs that touched at the last evaluation, chunk by chunk"},
    {"ij", NULL, PAIR(ij), I32, 2, ORDER, "1", "the two spheres' places now"},
    {"rsum", NULL, PAIR(rsum), F64, 1, ORDER, "m", "sum of the radii"},
    {"rstar", NULL, PAIR(rstar), F64, 1, ORDER, "m", "effective radius"},
    {"mstar", NULL, PAIR(mstar), F64, 1, ORDER, "kg",
     "the two bodies' effective mass"},
    {"inertia", NULL, PAIR(inertia), F64, 1, ORDER, "kg m^2",
     "the pair's rolling inertia"},

    {"key", "wall_contacts/sphere_wall", WALL(key), I64, 2, ORDER | RESTART,
     "1", "sphere number and wall (2 axis + side: 0 x min, 1 x max, ...)"},
    {"state", "wall_contacts/history", WALL(state), F64, DEM_WIDTH_STATE,
     ORDER | RESTART, "1", "the contact model's history (see its doc)"},
    {"force", "wall_contacts/force", WALL(force), F64, 3, ORDER | OUT, "N",
     "force on the sphere at the last evaluation, lab frame"},
    {"torque", NULL, WALL(torque), F64, DEM_WIDTH_TORQUE, ORDER, "N m",
     "torque on the sphere about its centre, lab frame (first three)"},
    {"touched", NULL, WALL(touched), I32, 1, ORDER, "1",
     "0 if the sphere did not touch the wall at the last evaluation"},
    {"touched_at", NULL, WALL(touched_at), I64, 1, 0, "1",
     "the contacts that touched at the last evaluation, chunk by chunk"},
    {"ij", NULL, WALL(ij), I32, 2, ORDER, "1", "the sphere's place and wall"},
    {"rsum", NULL, WALL(rsum), F64, 1, ORDER, "m", "the sphere's radius"},
    {"tri_first", NULL, WALL(tri_first), I64, DEM_WIDTH_MESH, ORDER, "1",
     "a mesh patch's first candidate triangle (sim/mesh_walls.h)"},
    {"tri_count", NULL, WALL(tri_count), I64, DEM_WIDTH_MESH, ORDER, "1",
     "a mesh patch's number of candidate triangles"},
    {NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL}};

static void *item_base(struct dem_sim *sim, enum dem_item item) {
  switch (item) {
  case DEM_ITEM_BODIES:
    return &sim->b;
  case DEM_ITEM_SPHERES:
    return &sim->s;
  case DEM_ITEM_PAIRS:
    return &sim->pairs;
  default:
    return &sim->wall_contacts;
  }
}

static const struct dem_contact_list *list_of(const struct dem_sim *sim,
                                              enum dem_item item) {
  return item == DEM_ITEM_PAIRS ? &sim->pairs : &sim->wall_contacts;
}

dem_field_row_fn dem_field_compute(const struct dem_field *f) {
  static const struct {
    const char *path;
    dem_field_row_fn row;
  } computed[] = {
      {"bodies/angular_velocity_lab", body_angular_velocity_lab},
      {"spheres/velocity", sphere_velocity},
      {"spheres/angular_velocity_lab", sphere_angular_velocity_lab}};
  for (size_t k = 0; dem_field_stored(f) == 0 && k < 3; k++)
    if (strcmp(f->path, computed[k].path) == 0)
      return computed[k].row;
  return NULL;
}

int dem_field_width(const struct dem_sim *sim, const struct dem_field *f) {
  if (f->width == DEM_WIDTH_STATE)
    return list_of(sim, f->item)->state_width;
  if (f->width == DEM_WIDTH_TORQUE)
    return list_of(sim, f->item)->has_torque ? 6 : 0;
  if (f->width == DEM_WIDTH_WORK)
    return sim->pairs.dissipative ? DEM_N_DISSIPATION : 0;
  if (f->width == DEM_WIDTH_SPIN)
    return sim->pairs.has_torque ? 3 : 0;
  if (f->width == DEM_WIDTH_MOTION)
    return sim->pairs.velocities ? 3 : 0;
  if (f->width == DEM_WIDTH_MESH)
    return sim->mw ? 1 : 0;
  if (f->width == DEM_WIDTH_PERIODIC)
    return sim->walls.periodic ? 3 : 0;
  if (f->width == DEM_WIDTH_INSERT)
    return sim->insert ? 1 : 0;
  return f->width;
}

size_t dem_field_type_size(enum dem_field_type t) {
  return t == DEM_FIELD_F64   ? sizeof(double)
         : t == DEM_FIELD_I32 ? sizeof(int)
                              : sizeof(size_t);
}

void **dem_field_slot(struct dem_sim *sim, const struct dem_field *f) {
  return (void **)((char *)item_base(sim, f->item) + f->offset);
}

size_t dem_item_count(const struct dem_sim *sim, enum dem_item item) {
  switch (item) {
  case DEM_ITEM_BODIES:
    return sim->b.n;
  case DEM_ITEM_SPHERES:
    return sim->s.n;
  default:
    return list_of(sim, item)->n;
  }
}

static size_t item_bytes(const struct dem_sim *sim, const struct dem_field *f) {
  return (size_t)dem_field_width(sim, f) * dem_field_type_size(f->type);
}

dem_status dem_fields_alloc(struct dem_sim *sim, enum dem_item item, size_t n,
                            size_t keep) {
  for (const struct dem_field *f = dem_fields; f->name; f++) {
    if (f->item != item || !dem_field_stored(f))
      continue;
    size_t bytes = item_bytes(sim, f);
    void **slot = dem_field_slot(sim, f);
    if (bytes == 0) { /* a width this run does not use */
      free(*slot);
      *slot = NULL;
      continue;
    }
    size_t plus = (f->flags & DEM_FIELD_PLUS_ONE) ? 1 : 0;
    size_t count = n + plus, kept = keep ? keep + plus : 0;
    void *p = dem_huge_calloc(count ? count : 1, bytes);
    if (!p)
      return dem_fail(DEM_ERR_NOMEM, "out of memory for %zu items (%s)", n,
                      f->name);
    if (kept && *slot)
      memcpy(p, *slot, (kept < count ? kept : count) * bytes);
    free(*slot);
    *slot = p;
  }
  return DEM_OK;
}

void dem_fields_release(struct dem_sim *sim, enum dem_item item) {
  for (const struct dem_field *f = dem_fields; f->name; f++) {
    if (f->item != item || !dem_field_stored(f))
      continue;
    void **slot = dem_field_slot(sim, f);
    free(*slot);
    *slot = NULL;
  }
}

size_t dem_fields_max_item_bytes(const struct dem_sim *sim,
                                 enum dem_item item) {
  size_t most = 0;
  for (const struct dem_field *f = dem_fields; f->name; f++)
    if (f->item == item && (f->flags & DEM_FIELD_ORDER) &&
        item_bytes(sim, f) > most)
      most = item_bytes(sim, f);
  return most;
}

size_t dem_fields_bytes(const struct dem_sim *sim, enum dem_item item,
                        size_t n) {
  size_t bytes = 0;
  for (const struct dem_field *f = dem_fields; f->name; f++)
    if (f->item == item && dem_field_stored(f))
      bytes +=
          item_bytes(sim, f) * (n + ((f->flags & DEM_FIELD_PLUS_ONE) ? 1 : 0));
  return bytes;
}

/* tmp[k] = src[order[k]] for k in [k0, k1), items of `size` bytes: a
 * loop for each common size, whose copies the compiler inlines, where a
 * call to memcpy for each item of a few bytes cost more than the copy:
 * the spatial sort of the 60,000-sphere gas took 17 ms over 1,000 steps
 * on one thread where it took 26 (docs/performance.md, "The spatial
 * sort's copies"). */
#define GATHER_ITEMS(SIZE)                                                     \
  for (size_t k = k0; k < k1; k++)                                             \
  memcpy(tmp + k * (SIZE), src + order[k] * (SIZE), (SIZE))
static void gather_items(char *tmp, const char *src, const size_t *order,
                         size_t k0, size_t k1, size_t size) {
  switch (size) {
  case 4:
    GATHER_ITEMS(4);
    break;
  case 8:
    GATHER_ITEMS(8);
    break;
  case 12:
    GATHER_ITEMS(12);
    break;
  case 16:
    GATHER_ITEMS(16);
    break;
  case 24:
    GATHER_ITEMS(24);
    break;
  case 32:
    GATHER_ITEMS(32);
    break;
  case 64:
    GATHER_ITEMS(64);
    break;
  default:
    GATHER_ITEMS(size);
    break;
  }
}
#undef GATHER_ITEMS

/* a[k] = a[order[k]] for k < n, items of `size` bytes, through buf:
 * gathered into buf, then copied back, each thread its slice (a serial
 * copy back was a serial part of every spatial sort). */
static void permute(void *a, size_t size, size_t n, const size_t *order,
                    void *buf) {
  const char *src = a;
  char *tmp = buf;
  long nn = (long)n;
  DEM_PARALLEL_IF(nn > DEM_PARALLEL_MIN, omp parallel, {
    size_t k0, k1;
    dem_thread_slice(n, &k0, &k1);
    gather_items(tmp, src, order, k0, k1, size);
    _Pragma("omp barrier");
    memcpy((char *)a + k0 * size, tmp + k0 * size, (k1 - k0) * size);
  });
}

void dem_fields_permute(struct dem_sim *sim, enum dem_item item, size_t n,
                        const size_t *order, void *buf) {
  for (const struct dem_field *f = dem_fields; f->name; f++) {
    if (f->item != item || !(f->flags & DEM_FIELD_ORDER))
      continue;
    size_t bytes = item_bytes(sim, f);
    void *a = *dem_field_slot(sim, f);
    if (bytes && a)
      permute(a, bytes, n, order, buf);
  }
}
