/* Insertion over time: bodies due by now put at random free places of a
 * region, with sizes drawn from a distribution, into grown arrays. */
#include "sim/insert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"
#include "core/vec3.h"
#include "sim/fields.h"
#include "sim/mesh_walls.h"
#include "sim/near.h"
#include "sim/neighbors.h"

static double normal_draw(struct dem_rng *rng) {
  double u = dem_rng_uniform(rng), v = dem_rng_uniform(rng);
  return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

double dem_size_draw(const struct dem_size_dist *d, struct dem_rng *rng) {
  switch (d->kind) {
  case DEM_SIZE_UNIFORM:
    return d->min + (d->max - d->min) * dem_rng_uniform(rng);
  case DEM_SIZE_NORMAL:
  case DEM_SIZE_LOGNORMAL:
    /* Truncated by rejection; setup checked that [min, max] holds a fair
     * share of the distribution, so the bound is never reached in
     * practice (then the nearer bound). */
    for (int k = 0; k < 100000; k++) {
      double z = normal_draw(rng);
      double s =
          d->kind == DEM_SIZE_NORMAL ? d->a + d->b * z : d->a * exp(d->b * z);
      if (s >= d->min && s <= d->max)
        return s;
    }
    return d->kind == DEM_SIZE_NORMAL && d->a < d->min ? d->min : d->max;
  case DEM_SIZE_TABLE: {
    double u = dem_rng_uniform(rng);
    size_t k = 0;
    while (k + 1 < d->n && !(u < d->cum[k]))
      k++;
    return d->sizes[k];
  }
  default:
    return d->a;
  }
}

void dem_body_pose(struct dem_sim *sim, size_t b, int shape, double scale,
                   const double x[3], const double q_input[4]) {
  struct dem_bodies *bs = &sim->b;
  struct dem_spheres *s = &sim->s;
  const struct dem_shape *sh = &sim->shapes[shape];
  bs->shape[b] = shape;
  bs->scale[b] = scale;
  v3_copy(bs->x[b], x);
  q_mul(bs->q[b], q_input, sh->props.axes);
  bs->mass[b] = sh->props.mass * (scale * scale * scale);
  double s5 = scale * scale * scale * scale * scale;
  for (int k = 0; k < 3; k++)
    bs->inertia[b][k] = sh->props.inertia[k] * s5;
  for (size_t k = 0; k < sh->n_spheres; k++) {
    size_t i = bs->first_member[b] + k;
    s->body[i] = (int)b;
    s->member[i] = k;
    s->radius[i] = sh->radius[k] * scale;
    s->material[i] = sh->material;
    v3_scale(s->offset[i], sh->offset[k], scale);
    double d[3];
    q_rotate(d, bs->q[b], s->offset[i]);
    v3_add(s->x[i], x, d);
  }
}

/* Row i of every array of `item` set to zero (but the member ranges). */
static void zero_row(struct dem_sim *sim, enum dem_item item, size_t i) {
  for (const struct dem_field *f = dem_fields; f->name; f++) {
    if (f->item != item || (f->flags & DEM_FIELD_PLUS_ONE) ||
        !dem_field_stored(f))
      continue;
    size_t bytes =
        (size_t)dem_field_width(sim, f) * dem_field_type_size(f->type);
    char *a = *dem_field_slot(sim, f);
    if (a && bytes)
      memset(a + i * bytes, 0, bytes);
  }
}

/* Owner ranges of a contact list for spheres up to cap. */
static dem_status grow_ranges(struct dem_contact_list *c, size_t n,
                              size_t cap) {
  size_t *a = realloc(c->start, (cap + 1) * sizeof *a);
  if (a)
    c->start = a;
  size_t *o = realloc(c->old_start, (cap + 1) * sizeof *o);
  if (o)
    c->old_start = o;
  if (!a || !o)
    return dem_fail(DEM_ERR_NOMEM, "out of memory for %zu spheres", cap);
  for (size_t i = n + 1; i <= cap; i++)
    c->start[i] = c->start[n];
  return DEM_OK;
}

/* Room for nb bodies and ns spheres (doubling, so that appends are
 * cheap on average). */
static dem_status reserve(struct dem_sim *sim, size_t nb, size_t ns) {
  struct dem_inserter *ins = sim->insert;
  dem_status st = DEM_OK;
  if (ins->body_cap < sim->b.n)
    ins->body_cap = sim->b.n;
  if (ins->sphere_cap < sim->s.n)
    ins->sphere_cap = sim->s.n;
  if (nb > ins->body_cap) {
    size_t cap = nb > 2 * ins->body_cap ? nb : 2 * ins->body_cap;
    if ((st = dem_fields_alloc(sim, DEM_ITEM_BODIES, cap, sim->b.n)))
      return st;
    ins->body_cap = cap;
  }
  if (ns > ins->sphere_cap) {
    size_t cap = ns > 2 * ins->sphere_cap ? ns : 2 * ins->sphere_cap;
    if ((st = dem_fields_alloc(sim, DEM_ITEM_SPHERES, cap, sim->s.n)) ||
        (st = grow_ranges(&sim->pairs, sim->s.n, cap)) ||
        (st = grow_ranges(&sim->wall_contacts, sim->s.n, cap)))
      return st;
    ins->sphere_cap = cap;
  }
  return st;
}

/* Makes the body at index b->n (posed, its spheres at s->n..) part of
 * the state: ids following the last, empty contact ranges. */
static void commit_body(struct dem_sim *sim) {
  struct dem_bodies *b = &sim->b;
  struct dem_spheres *s = &sim->s;
  size_t k = b->n, m0 = b->first_member[k], m1 = b->first_member[k + 1];
  b->id[k] = b->index_of[k] = k;
  for (size_t i = m0; i < m1; i++) {
    s->id[i] = s->index_of[i] = i;
    v3_copy(s->x_build[i], s->x[i]);
    sim->pairs.start[i + 1] = sim->pairs.start[i];
    sim->wall_contacts.start[i + 1] = sim->wall_contacts.start[i];
  }
  v3_copy(b->x_build[k], b->x[k]);
  b->n = k + 1;
  s->n = m1;
}

/* Body b->n made ready for posing: rows zeroed, member range set. */
static void open_body(struct dem_sim *sim, int shape) {
  struct dem_bodies *b = &sim->b;
  size_t k = b->n, m0 = sim->s.n, n = sim->shapes[shape].n_spheres;
  zero_row(sim, DEM_ITEM_BODIES, k);
  for (size_t i = m0; i < m0 + n; i++)
    zero_row(sim, DEM_ITEM_SPHERES, i);
  b->first_member[k] = m0;
  b->first_member[k + 1] = m0 + n;
}

dem_status dem_insert_append(struct dem_sim *sim, size_t n, const int *shape,
                             const double *scale) {
  size_t ns = sim->s.n;
  for (size_t j = 0; j < n; j++)
    ns += sim->shapes[shape[j]].n_spheres;
  dem_status st = reserve(sim, sim->b.n + n, ns);
  static const double zero[3] = {0, 0, 0}, one[4] = {1, 0, 0, 0};
  for (size_t j = 0; j < n && !st; j++) {
    open_body(sim, shape[j]);
    dem_body_pose(sim, sim->b.n, shape[j], scale[j], zero, one);
    commit_body(sim);
  }
  return st;
}

/* Whether a sphere at x of radius r crosses a wall. The one place that
 * knows the walls: mesh walls join here. */
static int crosses_walls(const struct dem_sim *sim, const double x[3],
                         double r) {
  const struct dem_walls *w = &sim->walls;
  for (int k = 0; w->enabled && k < 3; k++)
    if (x[k] - r < w->lo[k] || x[k] + r > w->hi[k])
      return 1;
  /* Mesh triangles as placed now, every one (and their periodic
   * copies): the triangle grid may predate larger new spheres. */
  return dem_mesh_walls_overlap(sim, x, r);
}

/* Whether the spheres of body b (posed, not committed) overlap a wall or
 * one of the n candidate spheres. */
static int blocked(const struct dem_sim *sim, size_t b, double reach,
                   const size_t *cand, size_t n) {
  const struct dem_spheres *s = &sim->s;
  size_t m0 = sim->b.first_member[b], m1 = sim->b.first_member[b + 1];
  for (size_t i = m0; i < m1; i++)
    if (crosses_walls(sim, s->x[i], s->radius[i]))
      return 1;
  for (size_t c = 0; c < n; c++) {
    size_t j = cand[c];
    double d[3];
    v3_sub(d, s->x[j], sim->b.x[b]);
    double far = reach + s->radius[j];
    if (v3_dot(d, d) >= far * far)
      continue;
    for (size_t i = m0; i < m1; i++) {
      double r = s->radius[i] + s->radius[j];
      v3_sub(d, s->x[j], s->x[i]);
      if (v3_dot(d, d) < r * r)
        return 1;
    }
  }
  return 0;
}

/* A uniform random point of the region. */
static void region_point(const struct dem_insert_spec *e, struct dem_rng *rng,
                         double x[3]) {
  if (e->region == DEM_REGION_BOX) {
    for (int k = 0; k < 3; k++)
      x[k] = e->lo[k] + (e->hi[k] - e->lo[k]) * dem_rng_uniform(rng);
    return;
  }
  /* Two unit vectors normal to the axis, then radius, angle, height. */
  const double *a = e->axis;
  double t[3] = {1, 0, 0}, e1[3], e2[3];
  if (fabs(a[0]) > 0.9)
    t[0] = 0, t[1] = 1;
  v3_cross(e1, a, t);
  v3_scale(e1, e1, 1.0 / sqrt(v3_dot(e1, e1)));
  v3_cross(e2, a, e1);
  double r = e->radius * sqrt(dem_rng_uniform(rng));
  double th = 6.283185307179586 * dem_rng_uniform(rng);
  double h = e->height * (dem_rng_uniform(rng) - 0.5);
  for (int k = 0; k < 3; k++)
    x[k] = e->center[k] + a[k] * h + r * (cos(th) * e1[k] + sin(th) * e2[k]);
}

long dem_insert_count_due(const struct dem_insert_spec *s, double t) {
  if (t < s->start)
    return 0;
  if (s->rate <= 0)
    return s->count;
  double tt = t < s->end ? t : s->end;
  double n = floor(s->rate * (tt - s->start) + 1e-9);
  return n < (double)s->count ? (long)n : s->count;
}

/* The spheres that a body of entry e could touch: within its reach of
 * the region's bounds. */
static size_t candidates(const struct dem_sim *sim,
                         const struct dem_insert_spec *e, size_t *cand) {
  const struct dem_spheres *s = &sim->s;
  size_t n = 0;
  for (size_t i = 0; i < s->n; i++) {
    double m = e->reach + s->radius[i];
    int in = 1;
    for (int k = 0; k < 3 && in; k++)
      in = s->x[i][k] > e->lo[k] - m && s->x[i][k] < e->hi[k] + m;
    if (in)
      cand[n++] = i;
  }
  return n;
}

/* Tries to place body number k of entry e (index ei); 1 if placed. */
static int place_one(struct dem_sim *sim, const struct dem_insert_spec *e,
                     size_t ei, long k, int half_step, size_t *cand,
                     size_t *n_cand) {
  struct dem_rng rng;
  uint64_t seed = sim->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(ei + 1));
  seed = dem_rng_splitmix(&seed) ^ (uint64_t)k;
  dem_rng_seed(&rng, seed);
  double u = dem_rng_uniform(&rng);
  size_t pick = 0;
  while (pick + 1 < e->n_shapes && !(u < e->cum[pick]))
    pick++;
  int shape = e->shape[pick];
  double scale = dem_size_draw(&e->size, &rng);
  double reach = sim->shapes[shape].props.bounding_radius * scale;
  struct dem_bodies *b = &sim->b;
  size_t at = b->n;
  open_body(sim, shape);
  for (long a = 0; a < e->max_attempts; a++) {
    double x[3], q[4];
    region_point(e, &rng, x);
    dem_rng_quaternion(&rng, q);
    dem_body_pose(sim, at, shape, scale, x, q);
    if (blocked(sim, at, reach, cand, *n_cand))
      continue;
    /* The velocity the scheme holds: for leapfrog half a step back under
     * the force at t, which is the weight alone (no contact). */
    for (int c = 0; c < 3; c++) {
      b->force[at][c] = b->mass[at] * sim->gravity[c];
      b->v[at][c] = e->v[c];
      b->v_sync[at][c] = e->v[c];
    }
    if (half_step)
      v3_axpy(b->v[at], -0.5 * sim->dt / b->mass[at], b->force[at]);
    /* What it brings into the balance: it starts without spin or
     * contact, so kinetic + gravitational as the energy rows count them
     * (at insertion no periodic wrap has been taken off yet). */
    b->energy_in[at] = 0.5 * b->mass[at] * v3_dot(e->v, e->v) -
                       b->mass[at] * v3_dot(sim->gravity, b->x[at]);
    for (size_t i = b->first_member[at]; i < b->first_member[at + 1]; i++)
      cand[(*n_cand)++] = i;
    commit_body(sim);
    return 1;
  }
  return 0;
}

int dem_insert_pending(const struct dem_sim *sim) {
  const struct dem_inserter *ins = sim->insert;
  for (size_t ei = 0; ins && ei < ins->n; ei++)
    if (dem_insert_count_due(&ins->spec[ei], sim->t) > ins->spec[ei].done)
      return 1;
  return 0;
}

dem_status dem_insert_due(struct dem_sim *sim, int half_step, size_t *added) {
  struct dem_inserter *ins = sim->insert;
  *added = 0;
  if (!ins)
    return DEM_OK;
  for (size_t ei = 0; ei < ins->n; ei++) {
    struct dem_insert_spec *e = &ins->spec[ei];
    long due = dem_insert_count_due(e, sim->t);
    if (due <= e->done)
      continue;
    dem_near_place_all(sim); /* the overlap checks read every sphere */
    size_t n_try = (size_t)(due - e->done), most = 0;
    for (size_t k = 0; k < e->n_shapes; k++)
      if (sim->shapes[e->shape[k]].n_spheres > most)
        most = sim->shapes[e->shape[k]].n_spheres;
    size_t ns = sim->s.n + n_try * most;
    dem_status st = reserve(sim, sim->b.n + n_try, ns);
    size_t *cand = st ? NULL : malloc((ns ? ns : 1) * sizeof *cand);
    if (!st && !cand)
      st = dem_fail(DEM_ERR_NOMEM, "out of memory inserting bodies");
    if (st)
      return st;
    size_t n_cand = candidates(sim, e, cand);
    long missed = 0;
    for (long k = e->done; k < due; k++) {
      if (place_one(sim, e, ei, k, half_step, cand, &n_cand))
        (*added)++;
      else
        missed++;
    }
    free(cand);
    e->done = due;
    e->skipped += missed;
    ins->skipped += missed;
    if (missed && !ins->warned) {
      fprintf(stderr,
              "  warning: t = %.6g s: insert entry %zu: no free place for %ld "
              "of %zu bodies after %ld attempts each (the region is full); "
              "the summary counts those not inserted\n",
              sim->t, ei + 1, missed, n_try, e->max_attempts);
      ins->warned = 1;
    }
  }
  ins->inserted += (long)*added;
  if (*added)
    return dem_neighbors_build(sim);
  return DEM_OK;
}

void dem_insert_resume(struct dem_sim *sim) {
  struct dem_inserter *ins = sim->insert;
  for (size_t ei = 0; ins && ei < ins->n; ei++)
    ins->spec[ei].done = dem_insert_count_due(&ins->spec[ei], sim->t);
}

void dem_shape_scales(const struct dem_sim *sim, long *count, double *smin) {
  for (size_t k = 0; k < sim->n_shapes; k++)
    count[k] = 0, smin[k] = HUGE_VAL;
  for (size_t i = 0; i < sim->b.n; i++) {
    int k = sim->b.shape[i];
    count[k]++;
    smin[k] = fmin(smin[k], sim->b.scale[i]);
  }
  const struct dem_inserter *ins = sim->insert;
  for (size_t e = 0; ins && e < ins->n; e++)
    for (size_t j = 0; j < ins->spec[e].n_shapes; j++) {
      int k = ins->spec[e].shape[j];
      count[k] += 2;
      smin[k] = fmin(smin[k], ins->spec[e].size.min);
    }
}

void dem_inserter_free(struct dem_inserter *ins) {
  if (!ins)
    return;
  for (size_t i = 0; i < ins->n; i++) {
    free(ins->spec[i].shape);
    free(ins->spec[i].cum);
    free(ins->spec[i].size.sizes);
    free(ins->spec[i].size.cum);
  }
  free(ins->spec);
  free(ins);
}
