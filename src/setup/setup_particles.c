/* The particles section: explicit bodies and seeded random non-overlapping
 * fills. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"
#include "core/rng.h"
#include "setup/setup.h"
#include "sim/insert.h"

/* A placed body as the overlap search reads it: its centre and its
 * bounding radius (rounded up to a float: the bounding test only decides
 * which pairs of bodies the sphere test looks at, so a larger radius
 * changes no answer), and the next body of its cell's chain (-1: none).
 * One 32-byte record, where the search read the centre, the shape, the
 * scale, the shape's radius and the next link from five arrays: with a
 * million spheres each is a miss (docs/performance.md, "Faster random
 * fills"). */
struct placed {
  double x[3];
  float r;
  int32_t next;
};

/* Bodies placed so far, hashed by their bounding spheres' cells. */
struct placement {
  struct dem_sim *sim;
  const struct dem_node *shapes; /* the config's shapes, to find them by name */
  size_t placed;
  double h; /* cell size: twice the largest bounding radius */
  size_t mask;
  int32_t *head;
  struct placed *body; /* by body index; only placed bodies are set */
};

/* The cell of point x, its coordinates clamped so that absurd boxes
 * (1e37 m) stay defined behaviour. */
static void cell_of(const struct placement *p, const double x[3], long c[3]) {
  for (int k = 0; k < 3; k++) {
    double f = floor(x[k] / p->h);
    c[k] = f > -1e15 && f < 1e15 ? (long)f : f > 0 ? (long)1e15 : 0;
  }
}

static size_t cell_hash(const struct placement *p, const long c[3],
                        const long offset[3]) {
  uint64_t h = 1469598103934665603ULL;
  for (int k = 0; k < 3; k++)
    h = (h ^ (uint64_t)(c[k] + offset[k])) * 1099511628211ULL;
  return (size_t)(h ^ (h >> 29)) & p->mask;
}

/* Body b's bounding radius, up to the next float. */
static float bounding_radius(const struct dem_sim *sim, size_t b) {
  const double r =
      sim->shapes[sim->b.shape[b]].props.bounding_radius * sim->b.scale[b];
  const float f = (float)r;
  return (double)f >= r ? f : nextafterf(f, INFINITY);
}

/* Whether a sphere of body b overlaps one of body o. */
static int spheres_overlap(const struct dem_sim *sim, size_t b, size_t o) {
  const struct dem_bodies *bs = &sim->b;
  const struct dem_spheres *s = &sim->s;
  for (size_t i = bs->first_member[b]; i < bs->first_member[b + 1]; i++)
    for (size_t j = bs->first_member[o]; j < bs->first_member[o + 1]; j++) {
      double e[3], r = s->radius[i] + s->radius[j];
      v3_sub(e, s->x[i], s->x[j]);
      if (v3_dot(e, e) < r * r * (1.0 - 1e-12))
        return 1;
    }
  return 0;
}

/* The first body of each of the 27 cells around body b's (z, y, x
 * order; -1: empty), each asked for, so that their lines come together. */
static void cell_chains(const struct placement *p, size_t b,
                        int32_t first[27]) {
  long c[3];
  cell_of(p, p->sim->b.x[b], c);
  int n = 0;
  for (long dz = -1; dz <= 1; dz++)
    for (long dy = -1; dy <= 1; dy++)
      for (long dx = -1; dx <= 1; dx++) {
        const long off[3] = {dx, dy, dz};
        first[n] = p->head[cell_hash(p, c, off)];
        if (first[n] >= 0)
          __builtin_prefetch(&p->body[first[n]]);
        n++;
      }
}

/* Whether placed body o overlaps body b (bounding radius rb): bounding
 * spheres first, then the spheres. */
static int body_overlaps(const struct placement *p, size_t b, double rb,
                         int32_t o) {
  const struct placed *q = &p->body[o];
  double d[3];
  v3_sub(d, p->sim->b.x[b], q->x);
  const double reach = rb + (double)q->r;
  return v3_dot(d, d) < reach * reach && spheres_overlap(p->sim, b, (size_t)o);
}

/* The body (index) that body `b` overlaps among those placed, or -1: the
 * first found, cells in z, y, x order and each cell's bodies from the
 * last placed (the error of an explicit body names it). Spheres of both
 * bodies must be at their positions. */
static long find_overlap(const struct placement *p, size_t b) {
  const double rb = bounding_radius(p->sim, b);
  int32_t first[27];
  cell_chains(p, b, first);
  for (int k = 0; k < 27; k++)
    for (int32_t o = first[k]; o >= 0; o = p->body[o].next)
      if (body_overlaps(p, b, rb, o))
        return o;
  return -1;
}

/* Whether body b overlaps any placed body: find_overlap's answer, with
 * the 27 chains walked side by side, one body of each in turn, each next
 * one asked for as its chain is reached, so that many misses are in
 * flight where one chain's walk waited for each in turn (a random fill
 * of a million spheres spent most of its setup there, about 8 tries a
 * body). */
static int overlaps_any(const struct placement *p, size_t b) {
  const double rb = bounding_radius(p->sim, b);
  int32_t at[27];
  cell_chains(p, b, at);
  int n = 0;
  for (int k = 0; k < 27; k++)
    if (at[k] >= 0)
      at[n++] = at[k];
  while (n > 0) {
    int left = 0;
    for (int k = 0; k < n; k++) {
      const int32_t o = at[k];
      if (body_overlaps(p, b, rb, o))
        return 1;
      const int32_t next = p->body[o].next;
      if (next >= 0) {
        __builtin_prefetch(&p->body[next]);
        at[left++] = next;
      }
    }
    n = left;
  }
  return 0;
}

static void insert(struct placement *p, size_t b) {
  static const long zero[3] = {0, 0, 0};
  long c[3];
  cell_of(p, p->sim->b.x[b], c);
  const size_t h = cell_hash(p, c, zero);
  struct placed *q = &p->body[b];
  v3_copy(q->x, p->sim->b.x[b]);
  q->r = bounding_radius(p->sim, b);
  q->next = p->head[h];
  p->head[h] = (int32_t)b;
  p->placed++;
}

/* Which wall body b crosses, or -1; axes in `skip` (bits) have none. */
static int outside_box(const struct dem_sim *sim, size_t b, unsigned skip) {
  if (!sim->walls.enabled)
    return -1;
  const struct dem_bodies *bs = &sim->b;
  for (size_t i = bs->first_member[b]; i < bs->first_member[b + 1]; i++)
    for (int k = 0; k < 3; k++)
      if (!(skip >> k & 1u) &&
          (sim->s.x[i][k] - sim->s.radius[i] < sim->walls.lo[k] ||
           sim->s.x[i][k] + sim->s.radius[i] > sim->walls.hi[k]))
        return k;
  return -1;
}

/* The shape an entry names: its position in the config's `shapes` mapping
 * (the order of sim->shapes), found in constant time. */
dem_status dem_setup_find_shape(const struct dem_node *shapes,
                                const struct dem_node *item, int *out) {
  const char *name;
  dem_status st = dem_cfg_string(item, "shape", 1, NULL, &name);
  if (st)
    return st;
  size_t k = dem_node_find(shapes, name);
  if (k != SIZE_MAX) {
    *out = (int)k;
    return DEM_OK;
  }
  const char *near = dem_node_closest_key(shapes, name);
  return dem_cfg_error(dem_node_get(item, "shape"), "unknown shape '%s'%s%s%s",
                       name, near ? " (did you mean '" : "", near ? near : "",
                       near ? "'?)" : "");
}

/* A body's `scale`: one size factor (default 1), > 0. */
static dem_status read_body_scale(const struct dem_node *def, double *scale) {
  return dem_cfg_double(def, "scale", 0, 1.0, DEM_POSITIVE, scale);
}

/* How far from the origin a body can go: the box, else where it starts
 * (or the region it is put in), for the size of its gravitational energy. */
static double reach(const struct dem_sim *sim, const double lo[3],
                    const double hi[3]) {
  const double *a = sim->walls.enabled ? sim->walls.lo : lo;
  const double *z = sim->walls.enabled ? sim->walls.hi : hi;
  double r = 0;
  for (int k = 0; k < 3; k++)
    r = fmax(r, fmax(fabs(a[k]), fabs(z[k])));
  return r;
}

/* |x| without overflow for huge components. */
static double norm3(const double x[3]) {
  double m = fmax(fabs(x[0]), fmax(fabs(x[1]), fabs(x[2])));
  if (!(m > 0) || !isfinite(m))
    return m;
  double a = x[0] / m, b = x[1] / m, c = x[2] / m;
  return m * sqrt(a * a + b * b + c * c);
}

/* A body whose energy or weight overflows (a velocity of 1e200 m/s, gravity
 * of 1e308 m/s^2) would stop the run at its first step with a non-finite
 * force: refused here with the reason. */
static dem_status check_body_scale(const struct dem_sim *sim,
                                   const struct dem_node *def, const char *body,
                                   int shape, double scale, double speed,
                                   double spin, double x) {
  const struct dem_clump_props *pr = &sim->shapes[shape].props;
  const double s3 = scale * scale * scale, s5 = s3 * scale * scale;
  double m = pr->mass * s3, inertia = pr->inertia[0] * s5,
         g = norm3(sim->gravity);
  /* A size factor far from 1 can take the mass or the moments out of
   * the numbers (1e120^3 overflows, 1e-70^5 vanishes). */
  if (scale != 1.0 && (!(m > 0) || !isfinite(m) || !(inertia > 0) ||
                       !isfinite(pr->inertia[2] * s5)))
    return dem_cfg_error(dem_node_get(def, "scale"),
                         "key 'scale': %s (shape '%s') scaled by %g has mass "
                         "%g kg and moments of inertia from %g to %g kg m^2, "
                         "out of the range of the numbers",
                         body, sim->shapes[shape].name, scale, m, inertia,
                         pr->inertia[2] * s5);
  const char *why = !isfinite(0.5 * m * speed * speed)
                        ? "its kinetic energy 1/2 m v^2"
                    : !isfinite(0.5 * pr->inertia[2] * s5 * spin * spin)
                        ? "its rotational energy 1/2 I w^2"
                    : !isfinite(m * g)     ? "its weight m g"
                    : !isfinite(m * g * x) ? "its gravitational energy m g x"
                                           : NULL;
  if (!why)
    return DEM_OK;
  return dem_cfg_error(def,
                       "%s (shape '%s', mass %g kg): %s overflows (speed %g "
                       "m/s, angular speed %g rad/s, gravity %g m/s^2, "
                       "distance from the origin up to %g m)",
                       body, sim->shapes[shape].name, m, why, speed, spin, g,
                       x);
}

static dem_status place_explicit(struct placement *p, size_t b,
                                 const struct dem_node *def) {
  static const char *const keys[] = {"shape",
                                     "position",
                                     "orientation",
                                     "velocity",
                                     "angular_velocity",
                                     "angular_velocity_frame",
                                     "scale",
                                     NULL};
  static const char *const frames[] = {"lab", "body", NULL};
  static const double zero[3] = {0, 0, 0}, identity[4] = {1, 0, 0, 0};
  struct dem_sim *sim = p->sim;
  double x[3], q[4], w[3], scale;
  int shape, frame;
  dem_status st;
  if ((st = dem_cfg_check_keys(def, keys, "particles.body")) ||
      (st = dem_setup_find_shape(p->shapes, def, &shape)) ||
      (st = read_body_scale(def, &scale)) ||
      (st = dem_cfg_vec(def, "position", 1, NULL, 3, DEM_ANY, x)) ||
      (st = dem_cfg_vec(def, "orientation", 0, identity, 4, DEM_ANY, q)) ||
      (st = dem_cfg_vec(def, "velocity", 0, zero, 3, DEM_ANY, sim->b.v[b])) ||
      (st = dem_cfg_vec(def, "angular_velocity", 0, zero, 3, DEM_ANY, w)) ||
      (st =
           dem_cfg_choice(def, "angular_velocity_frame", 0, 0, frames, &frame)))
    return st;
  double norm = q_norm(q);
  if (fabs(norm - 1.0) > 1e-6)
    return dem_cfg_error(dem_node_get(def, "orientation"),
                         "key 'orientation': expected a unit quaternion "
                         "[w, x, y, z], found norm %.9g",
                         norm);
  q_normalize(q);
  dem_body_pose(sim, b, shape, scale, x, q);
  /* angular_velocity_frame: body means the body's principal frame. */
  if (frame == 0)
    q_rotate_inv(sim->b.w[b], sim->b.q[b], w);
  else
    v3_copy(sim->b.w[b], w);
  /* A body may straddle a periodic boundary (random fills stay inside:
   * their overlap check knows no images). */
  int wall = outside_box(sim, b, sim->walls.periodic);
  if (wall >= 0)
    return dem_cfg_error(def,
                         "body %zu (shape '%s') is not inside the box "
                         "(it crosses a wall normal to %c)",
                         b, sim->shapes[shape].name, "xyz"[wall]);
  char body[48];
  snprintf(body, sizeof body, "body %zu", b);
  if ((st = check_body_scale(sim, def, body, shape, scale, norm3(sim->b.v[b]),
                             norm3(w), reach(sim, x, x))))
    return st;
  long other = find_overlap(p, b);
  if (other >= 0)
    return dem_cfg_error(def, "body %zu overlaps body %ld at the start", b,
                         other);
  insert(p, b);
  return DEM_OK;
}

static dem_status fill(struct placement *p, size_t first, long count,
                       const struct dem_node *def, struct dem_rng *rng,
                       int shape, double speed, double angular_speed,
                       long attempts_max, const struct dem_node *region,
                       const struct dem_size_dist *size);

static dem_status place_random(struct placement *p, size_t first, long count,
                               const struct dem_node *def,
                               struct dem_rng *rng) {
  static const char *const keys[] = {"shape",         "count",  "speed",
                                     "angular_speed", "region", "max_attempts",
                                     "scale",         NULL};
  double speed, angular_speed;
  long attempts_max;
  int shape;
  const struct dem_node *region;
  struct dem_size_dist size = {0};
  const int scaled = dem_node_get(def, "scale") != NULL;
  dem_status st;
  if ((st = dem_cfg_check_keys(def, keys, "particles.random_fill")) ||
      (st = dem_setup_find_shape(p->shapes, def, &shape)) ||
      (st = dem_cfg_double(def, "speed", 0, 0, DEM_NONNEGATIVE, &speed)) ||
      (st = dem_cfg_double(def, "angular_speed", 0, 0, DEM_NONNEGATIVE,
                           &angular_speed)) ||
      (st = dem_cfg_long(def, "max_attempts", 0, 10000, 1, 100000000,
                         &attempts_max)) ||
      (st = dem_cfg_mapping(def, "region", 0, &region)) ||
      (st = dem_setup_read_scale(def, "particles.random_fill.scale", &size)))
    return st;
  st = fill(p, first, count, def, rng, shape, speed, angular_speed,
            attempts_max, region, scaled ? &size : NULL);
  free(size.sizes);
  free(size.cum);
  return st;
}

/* random_fill's placement; size: the entry's size distribution, or NULL
 * (then no size is drawn: an entry without `scale` draws what it always
 * drew). */
static dem_status fill(struct placement *p, size_t first, long count,
                       const struct dem_node *def, struct dem_rng *rng,
                       int shape, double speed, double angular_speed,
                       long attempts_max, const struct dem_node *region,
                       const struct dem_size_dist *size) {
  static const char *const region_keys[] = {"min", "max", NULL};
  struct dem_sim *sim = p->sim;
  double lo[3], hi[3];
  double smin = size ? size->min : 1.0, smax = size ? size->max : 1.0;
  dem_status st;
  if (region) {
    if ((st = dem_cfg_check_keys(region, region_keys,
                                 "particles.random_fill.region")) ||
        (st = dem_cfg_vec(region, "min", 1, NULL, 3, DEM_ANY, lo)) ||
        (st = dem_cfg_vec(region, "max", 1, NULL, 3, DEM_ANY, hi)))
      return st;
  } else if (sim->walls.enabled) {
    v3_copy(lo, sim->walls.lo);
    v3_copy(hi, sim->walls.hi);
  } else {
    return dem_cfg_error(def, "random_fill needs a 'region' {min, max} when "
                              "there is no domain box");
  }
  if ((st = check_body_scale(sim, def, "random_fill", shape, smax, speed,
                             angular_speed, reach(sim, lo, hi))))
    return st;
  /* More solid volume than random close packing (64 %) of the region
   * holds cannot be placed: say so at once instead of trying. */
  double region_volume = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  double solid =
      (double)count * sim->shapes[shape].props.volume * smin * smin * smin;
  if (solid > 0.64 * region_volume)
    return dem_cfg_error(def,
                         "random_fill: %ld bodies of shape '%s' need "
                         "%.4g m^3, more than 64 %% of the region's "
                         "%.4g m^3; use fewer bodies or a larger region",
                         count, sim->shapes[shape].name, solid, region_volume);
  /* Centres stay a bounding radius inside the region, so every sphere is
   * inside it whatever the orientation. */
  double rb = sim->shapes[shape].props.bounding_radius * smax;
  for (int k = 0; k < 3; k++) {
    lo[k] += rb;
    hi[k] -= rb;
    if (!(lo[k] < hi[k]))
      return dem_cfg_error(def,
                           "random_fill: the region is too small for "
                           "shape '%s' (bounding radius %g) along %c",
                           sim->shapes[shape].name, rb, "xyz"[k]);
  }
  for (long c = 0; c < count; c++) {
    size_t b = first + (size_t)c;
    long tries = 0;
    double s = size ? dem_size_draw(size, rng) : 1.0;
    for (;;) {
      double x[3], q[4];
      for (int k = 0; k < 3; k++)
        x[k] = lo[k] + (hi[k] - lo[k]) * dem_rng_uniform(rng);
      dem_rng_quaternion(rng, q);
      dem_body_pose(sim, b, shape, s, x, q);
      if (!overlaps_any(p, b) && outside_box(sim, b, 0) < 0)
        break;
      if (++tries >= attempts_max)
        return dem_cfg_error(def,
                             "random_fill could not place body %ld of "
                             "%ld without overlap after %ld attempts; "
                             "use fewer bodies or a larger region",
                             c + 1, count, attempts_max);
    }
    double u[3];
    dem_rng_unit_vector(rng, u);
    v3_scale(sim->b.v[b], u, speed);
    dem_rng_unit_vector(rng, u);
    v3_scale(u, u, angular_speed);
    q_rotate_inv(sim->b.w[b], sim->b.q[b], u);
    insert(p, b);
  }
  return DEM_OK;
}

/* One particles entry: its shape and how many bodies it makes. */
struct entry {
  int shape;
  long count;
  int random_fill;
  int insert;       /* bodies come during the run (dem_setup_insert) */
  double scale_max; /* the largest size factor (1: no scale) */
};

/* The `scale` of a random_fill (a size factor or a distribution) or of a
 * body (a size factor): the sizes the neighbour grid, the default skin
 * and the placement's cells must know of. */
static dem_status entry_sizes(const struct dem_node *def, struct dem_sim *sim,
                              struct entry *e) {
  struct dem_size_dist d = {0};
  e->scale_max = 1.0;
  if (!dem_node_get(def, "scale"))
    return DEM_OK;
  dem_status st =
      e->random_fill
          ? dem_setup_read_scale(def, "particles.random_fill.scale", &d)
          : read_body_scale(def, &d.min);
  if (!e->random_fill)
    d.max = d.min;
  free(d.sizes);
  free(d.cum);
  if (st)
    return st;
  const struct dem_shape *sh = &sim->shapes[e->shape];
  for (size_t i = 0; i < sh->n_spheres; i++) {
    sim->max_radius = fmax(sim->max_radius, sh->radius[i] * d.max);
    sim->min_radius = fmin(sim->min_radius, sh->radius[i] * d.min);
  }
  e->scale_max = d.max;
  return DEM_OK;
}

/* Reads each entry's kind, shape and count once, so the arrays are
 * allocated once and the placement loops need not parse them again. */
static dem_status read_entries(const struct dem_node *list,
                               const struct dem_node *shapes,
                               struct dem_sim *sim, struct entry *entries,
                               size_t *n_bodies, size_t *n_spheres) {
  static const char *const kinds[] = {"body", "random_fill", "insert", NULL};
  *n_bodies = *n_spheres = 0;
  for (size_t i = 0; i < dem_node_size(list); i++) {
    const struct dem_node *item = dem_node_at(list, i);
    struct entry *e = &entries[i];
    dem_status st = dem_cfg_check_keys(item, kinds, "particles");
    if (st)
      return st;
    if (dem_node_size(item) != 1)
      return dem_cfg_error(item, "each particles entry is one 'body', one "
                                 "'random_fill' or one 'insert'");
    const struct dem_node *def = dem_node_at(item, 0);
    if (strcmp(dem_node_key_at(item, 0), "insert") == 0) {
      e->count = 0;
      e->insert = 1;
      continue;
    }
    e->random_fill = strcmp(dem_node_key_at(item, 0), "random_fill") == 0;
    e->count = 1;
    /* Keys are checked in full when the body is placed. */
    if ((st = dem_setup_find_shape(shapes, def, &e->shape)))
      return st;
    if ((e->random_fill && (st = dem_cfg_long(def, "count", 1, 0, 0,
                                              DEM_MAX_SPHERES, &e->count))) ||
        (st = entry_sizes(def, sim, e)))
      return st;
    /* Refused before the arrays are allocated: the limit keeps the sums
     * far from overflowing too. */
    size_t spheres = (size_t)e->count * sim->shapes[e->shape].n_spheres;
    if (spheres > (size_t)DEM_MAX_SPHERES - *n_spheres)
      return dem_cfg_error(def,
                           "particles: %zu spheres in all with this entry's "
                           "%ld bodies of shape '%s' (%zu spheres each), more "
                           "than the limit of %ld",
                           *n_spheres + spheres, e->count,
                           sim->shapes[e->shape].name,
                           sim->shapes[e->shape].n_spheres, DEM_MAX_SPHERES);
    *n_bodies += (size_t)e->count;
    *n_spheres += spheres;
  }
  return DEM_OK;
}

static dem_status place_all(const struct dem_node *list,
                            const struct dem_node *shapes, struct dem_sim *sim,
                            const struct entry *entries);

dem_status dem_setup_particles(const struct dem_node *root,
                               struct dem_sim *sim) {
  const struct dem_node *list;
  size_t n_bodies, n_spheres;
  dem_status st;
  if ((st = dem_cfg_sequence(root, "particles", 1, &list)))
    return st;
  size_t n_entries = dem_node_size(list);
  struct entry *entries = calloc(n_entries ? n_entries : 1, sizeof *entries);
  if (!entries)
    return dem_fail(DEM_ERR_NOMEM, "out of memory");
  const struct dem_node *shapes = dem_node_get(root, "shapes");
  st = read_entries(list, shapes, sim, entries, &n_bodies, &n_spheres);
  if (!st)
    st = dem_setup_insert(list, shapes, sim);
  if (!st && n_bodies == 0 && !sim->insert)
    st = dem_cfg_error(list, "key 'particles': no bodies to simulate");
  if (!st)
    st = dem_sim_alloc_bodies(sim, n_bodies, n_spheres);
  if (!st)
    st = place_all(list, shapes, sim, entries);
  free(entries);
  return st;
}

/* Places every body: member ranges first, then each entry in order. */
static dem_status place_all(const struct dem_node *list,
                            const struct dem_node *shapes, struct dem_sim *sim,
                            const struct entry *entries) {
  size_t n_bodies = sim->b.n;
  dem_status st = DEM_OK;
  struct placement p = {.sim = sim, .shapes = shapes};
  double max_rb = 0;
  for (size_t k = 0; k < sim->n_shapes; k++)
    if (sim->shapes[k].props.bounding_radius > max_rb)
      max_rb = sim->shapes[k].props.bounding_radius;
  for (size_t i = 0; i < dem_node_size(list); i++)
    if (entries[i].scale_max > 1.0)
      max_rb =
          fmax(max_rb, entries[i].scale_max *
                           sim->shapes[entries[i].shape].props.bounding_radius);
  p.h = 2.0 * max_rb;
  size_t buckets = 1;
  while (buckets < 2 * n_bodies)
    buckets <<= 1;
  p.mask = buckets - 1;
  if (n_bodies > INT32_MAX)
    return dem_fail(DEM_ERR_NOMEM, "%zu bodies: more than this build places",
                    n_bodies);
  p.head = malloc(buckets * sizeof *p.head);
  p.body = malloc((n_bodies ? n_bodies : 1) * sizeof *p.body);
  if (!p.head || !p.body) {
    free(p.head);
    free(p.body);
    return dem_fail(DEM_ERR_NOMEM, "out of memory placing bodies");
  }
  for (size_t k = 0; k < buckets; k++)
    p.head[k] = -1;

  /* Member ranges first: each body's spheres are contiguous at start. */
  size_t b = 0, sphere = 0;
  for (size_t i = 0; i < dem_node_size(list); i++)
    for (long c = 0; c < entries[i].count; c++, b++) {
      sim->b.first_member[b] = sphere;
      sphere += sim->shapes[entries[i].shape].n_spheres;
    }
  sim->b.first_member[b] = sphere;

  struct dem_rng rng;
  dem_rng_seed(&rng, sim->seed);
  b = 0;
  for (size_t i = 0; i < dem_node_size(list) && !st; i++) {
    const struct dem_node *def = dem_node_at(dem_node_at(list, i), 0);
    if (entries[i].insert)
      continue;
    if (entries[i].random_fill)
      st = place_random(&p, b, entries[i].count, def, &rng);
    else
      st = place_explicit(&p, b, def);
    b += (size_t)entries[i].count;
  }
  free(p.head);
  free(p.body);
  return st;
}
