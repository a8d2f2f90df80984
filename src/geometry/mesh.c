/* Mesh walls: welding vertices, flat patches, and placing a moving mesh
 * exactly at any time (from its rest placement, nothing accumulates). */
#include "geometry/mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"
#include "core/vec3.h"

/* Vertex k of triangle t, as an index into the unwelded array (3 t + k). */
struct corner {
  double x[3];
  size_t at;
};

static int by_position(const void *a, const void *b) {
  const struct corner *p = a, *q = b;
  for (int k = 0; k < 3; k++)
    if (p->x[k] != q->x[k])
      return p->x[k] < q->x[k] ? -1 : 1;
  return (p->at > q->at) - (p->at < q->at);
}

/* An edge of triangle `tri` (its edge j, from vertex j to j + 1) as the
 * surface knows it: its end vertices lo < hi and, on a periodic surface,
 * the periods rel from lo's copy to hi's (so that an edge and its image
 * are one edge) and the periods `at` of this triangle's copy of lo. */
struct edge {
  int lo, hi, rel[3], at[3];
  int j;
  size_t tri;
};

static int by_vertices(const void *a, const void *b) {
  const struct edge *p = a, *q = b;
  if (p->lo != q->lo)
    return p->lo < q->lo ? -1 : 1;
  if (p->hi != q->hi)
    return p->hi < q->hi ? -1 : 1;
  for (int k = 0; k < 3; k++)
    if (p->rel[k] != q->rel[k])
      return p->rel[k] < q->rel[k] ? -1 : 1;
  return (p->tri > q->tri) - (p->tri < q->tri);
}

/* Whether p and q are one edge of the surface (from different triangles). */
static int same_edge(const struct edge *p, const struct edge *q) {
  return p->lo == q->lo && p->hi == q->hi && p->rel[0] == q->rel[0] &&
         p->rel[1] == q->rel[1] && p->rel[2] == q->rel[2];
}

/* How the surface sees the mesh's vertices: vertex v is vertex cls[v]
 * moved by img[v] periods (NULL, NULL: each vertex is its own). */
struct identity {
  const int *cls;
  const int (*img)[3];
  const double *period;
};

static int vertex_of(const struct identity *id, int v) {
  return id->cls ? id->cls[v] : v;
}

static int periods_of(const struct identity *id, int v, int k) {
  return id->img ? id->img[v][k] : 0;
}

/* Edge j of triangle t, its ends ordered (on a periodic surface, an edge
 * from a vertex to its own image is ordered by its periods). */
static struct edge edge_of(const struct dem_mesh *m, const struct identity *id,
                           size_t t, int j) {
  int a = m->tri[t][j], b = m->tri[t][(j + 1) % 3];
  int ca = vertex_of(id, a), cb = vertex_of(id, b), rel[3], flip = ca > cb;
  for (int k = 0; k < 3; k++)
    rel[k] = periods_of(id, b, k) - periods_of(id, a, k);
  if (ca == cb)
    for (int k = 2; k >= 0; k--)
      if (rel[k] != 0)
        flip = rel[k] < 0;
  struct edge e = {
      .lo = flip ? cb : ca, .hi = flip ? ca : cb, .j = j, .tri = t};
  for (int k = 0; k < 3; k++) {
    e.rel[k] = flip ? -rel[k] : rel[k];
    e.at[k] = periods_of(id, flip ? b : a, k);
  }
  return e;
}

/* Whether the triangles of edges p and q, which share it, lie in one
 * plane: normals parallel and, on a periodic surface, the periods
 * between the two copies along that plane. */
static int one_plane(const struct dem_mesh *m, const struct identity *id,
                     const struct edge *p, const struct edge *q) {
  const double *a = m->normal[p->tri], *b = m->normal[q->tri];
  double c[3], shift[3];
  v3_cross(c, a, b);
  if (!(v3_dot(c, c) < 1e-18)) /* not parallel */
    return 0;
  if (!id->period)
    return 1;
  for (int k = 0; k < 3; k++)
    shift[k] = (p->at[k] - q->at[k]) * id->period[k];
  double along = v3_dot(shift, a);
  return along * along <= 1e-18 * v3_dot(shift, shift);
}

static size_t find(size_t *parent, size_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

static void unit_normal(double n[3], const double a[3], const double b[3],
                        const double c[3]) {
  double ab[3], ac[3];
  v3_sub(ab, b, a);
  v3_sub(ac, c, a);
  v3_cross(n, ab, ac);
  double len = sqrt(v3_dot(n, n));
  v3_scale(n, n, len > 0 ? 1.0 / len : 0.0);
}

/* Patches: triangles that share an edge and are coplanar, joined; the
 * owners of shared edges and vertices. Edges and vertices are those of
 * the surface `id` describes. */
static dem_status find_patches(struct dem_mesh *m, const struct identity *id) {
  size_t n = m->n_tri;
  struct edge *e = malloc(3 * n * sizeof *e);
  size_t *parent = malloc(n * sizeof *parent);
  if (!e || !parent) {
    free(e), free(parent);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", m->name);
  }
  for (size_t t = 0; t < n; t++) {
    parent[t] = t;
    for (int k = 0; k < 3; k++)
      e[3 * t + k] = edge_of(m, id, t, k);
  }
  qsort(e, 3 * n, sizeof *e, by_vertices);
  for (size_t k = 1; k < 3 * n; k++) {
    if (!same_edge(&e[k], &e[k - 1]))
      continue;
    if (one_plane(m, id, &e[k], &e[k - 1])) {
      size_t a = find(parent, e[k].tri), b = find(parent, e[k - 1].tri);
      if (a != b)
        parent[a > b ? a : b] = a < b ? a : b;
    }
  }
  /* Patches numbered by their first triangle, in file order. */
  size_t *number = malloc(n * sizeof *number);
  if (!number) {
    free(e), free(parent);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", m->name);
  }
  m->n_patches = 0;
  for (size_t t = 0; t < n; t++) {
    size_t r = find(parent, t);
    if (r == t)
      number[t] = m->n_patches++;
    m->patch[t] = (int)number[r];
  }
  /* Owners of shared edges and vertices: the lowest patch touching them. */
  int *lowest = malloc((m->n_vert ? m->n_vert : 1) * sizeof *lowest);
  if (!lowest) {
    free(e), free(parent), free(number);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", m->name);
  }
  int *highest = malloc((m->n_vert ? m->n_vert : 1) * sizeof *highest);
  if (!highest) {
    free(e), free(parent), free(number), free(lowest);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", m->name);
  }
  for (size_t v = 0; v < m->n_vert; v++) {
    lowest[v] = (int)m->n_patches;
    highest[v] = -1;
  }
  for (size_t t = 0; t < n; t++)
    for (int k = 0; k < 3; k++) {
      int v = vertex_of(id, m->tri[t][k]);
      if (m->patch[t] < lowest[v])
        lowest[v] = m->patch[t];
      if (m->patch[t] > highest[v])
        highest[v] = m->patch[t];
    }
  for (size_t a = 0; a < 3 * n;) {
    size_t b = a;
    int low = m->patch[e[a].tri], high = low;
    while (b < 3 * n && same_edge(&e[b], &e[a])) {
      if (m->patch[e[b].tri] < low)
        low = m->patch[e[b].tri];
      if (m->patch[e[b].tri] > high)
        high = m->patch[e[b].tri];
      b++;
    }
    for (size_t k = a; k < b; k++) {
      m->edge_owner[e[k].tri][e[k].j] = low;
      m->edge_shared[e[k].tri][e[k].j] = low != high;
    }
    a = b;
  }
  for (size_t t = 0; t < n; t++)
    for (int k = 0; k < 3; k++) {
      int v = vertex_of(id, m->tri[t][k]);
      m->vertex_owner[t][k] = lowest[v];
      m->vertex_shared[t][k] = lowest[v] != highest[v];
    }
  free(lowest), free(highest);
  free(e), free(parent), free(number);
  return DEM_OK;
}

dem_status dem_mesh_build(struct dem_mesh *m, const char *name,
                          const double (*tri)[3][3], size_t n) {
  struct corner *c = malloc(3 * n * sizeof *c);
  m->n_tri = n;
  m->tri = malloc(n * sizeof *m->tri);
  m->patch = malloc(n * sizeof *m->patch);
  m->normal = malloc(n * sizeof *m->normal);
  m->edge_owner = malloc(n * sizeof *m->edge_owner);
  m->vertex_owner = malloc(n * sizeof *m->vertex_owner);
  m->edge_shared = malloc(n * sizeof *m->edge_shared);
  m->vertex_shared = malloc(n * sizeof *m->vertex_shared);
  if (!c || !m->tri || !m->patch || !m->normal || !m->edge_owner ||
      !m->vertex_owner || !m->edge_shared || !m->vertex_shared) {
    free(c);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", name);
  }
  for (size_t t = 0; t < n; t++) {
    double len2 = 0;
    for (int k = 0; k < 3; k++) {
      double d[3];
      v3_sub(d, tri[t][(k + 1) % 3], tri[t][k]);
      len2 = fmax(len2, v3_dot(d, d));
      memcpy(c[3 * t + k].x, tri[t][k], sizeof c[0].x);
      c[3 * t + k].at = 3 * t + (size_t)k;
    }
    double ab[3], ac[3], cr[3];
    v3_sub(ab, tri[t][1], tri[t][0]);
    v3_sub(ac, tri[t][2], tri[t][0]);
    v3_cross(cr, ab, ac);
    if (!(v3_dot(cr, cr) > 1e-24 * len2 * len2)) {
      free(c);
      return dem_fail(DEM_ERR_CONFIG,
                      "mesh '%s': triangle %zu is degenerate (its area is "
                      "zero or nearly so)",
                      name, t + 1);
    }
  }
  /* Weld: equal positions become one vertex, numbered in sorted order. */
  qsort(c, 3 * n, sizeof *c, by_position);
  m->rest = malloc(3 * n * sizeof *m->rest);
  if (!m->rest) {
    free(c);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", name);
  }
  size_t nv = 0;
  for (size_t k = 0; k < 3 * n; k++) {
    if (k == 0 || memcmp(c[k].x, c[k - 1].x, sizeof c[k].x) != 0)
      memcpy(m->rest[nv++], c[k].x, sizeof c[k].x);
    m->tri[c[k].at / 3][c[k].at % 3] = (int)(nv - 1);
  }
  free(c);
  m->n_vert = nv;
  m->v = malloc(nv * sizeof *m->v);
  if (!m->v)
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", name);
  memcpy(m->v, m->rest, nv * sizeof *m->v);
  for (size_t t = 0; t < n; t++)
    unit_normal(m->normal[t], m->v[m->tri[t][0]], m->v[m->tri[t][1]],
                m->v[m->tri[t][2]]);
  return find_patches(m, &(struct identity){NULL, NULL, NULL});
}

/* A vertex by its place in the period: cell c[k] of the period along a
 * periodic axis, its coordinate along the others. */
struct place {
  double c[3];
  int v;
};

static int by_place(const void *a, const void *b) {
  const struct place *p = a, *q = b;
  for (int k = 0; k < 3; k++)
    if (p->c[k] != q->c[k])
      return p->c[k] < q->c[k] ? -1 : 1;
  return (p->v > q->v) - (p->v < q->v);
}

/* The first of the n sorted places at c, or n. */
static size_t first_at(const struct place *p, size_t n, const double c[3]) {
  size_t a = 0, b = n;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    int below = 0;
    for (int k = 0; k < 3; k++)
      if (p[mid].c[k] != c[k]) {
        below = p[mid].c[k] < c[k];
        break;
      }
    if (below)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

static int find_vertex(int *parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* Cells per period: vertices within one cell of each other along a
 * periodic axis are found in the cells around each one. */
#define PERIOD_CELLS (1.0 / DEM_MESH_PERIODIC_JOIN)

/* Joins vertex v with the vertices that lie whole periods (not none) away
 * from it, within the tolerance: they are in its cell or the cells next
 * to it along the periodic axes. */
static void join_images(const struct dem_mesh *m, const double period[3],
                        const struct place *p, size_t n, const struct place *at,
                        int *parent) {
  int axes[3], n_axes = 0, combos = 1;
  for (int k = 0; k < 3; k++)
    if (period[k] > 0)
      axes[n_axes++] = k, combos *= 3;
  for (int o = 0; o < combos; o++) {
    double c[3] = {at->c[0], at->c[1], at->c[2]};
    for (int a = 0, r = o; a < n_axes; a++, r /= 3) {
      c[axes[a]] += r % 3 - 1;
      c[axes[a]] -= PERIOD_CELLS * floor(c[axes[a]] / PERIOD_CELLS);
    }
    for (size_t q = first_at(p, n, c); q < n; q++) {
      if (p[q].c[0] != c[0] || p[q].c[1] != c[1] || p[q].c[2] != c[2])
        break;
      const double *x = m->rest[at->v], *y = m->rest[p[q].v];
      int near = 1, moved = 0;
      for (int a = 0; a < n_axes; a++) {
        int k = axes[a];
        double turns = (y[k] - x[k]) / period[k], whole = nearbyint(turns);
        near &=
            fabs(turns - whole) <= DEM_MESH_PERIODIC_JOIN && fabs(whole) < 1e6;
        moved |= whole != 0;
      }
      if (near && moved) {
        int r = find_vertex(parent, at->v), s = find_vertex(parent, p[q].v);
        if (r != s)
          parent[r > s ? r : s] = r < s ? r : s;
      }
    }
  }
}

dem_status dem_mesh_join_periodic(struct dem_mesh *m, const double lo[3],
                                  const double period[3]) {
  const size_t nv = m->n_vert;
  struct place *p = malloc((nv ? nv : 1) * sizeof *p);
  int *parent = malloc((nv ? nv : 1) * sizeof *parent);
  int(*img)[3] = malloc((nv ? nv : 1) * sizeof *img);
  if (!p || !parent || !img) {
    free(p), free(parent), free(img);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", m->name);
  }
  for (size_t v = 0; v < nv; v++) {
    parent[v] = (int)v;
    p[v].v = (int)v;
    for (int k = 0; k < 3; k++) {
      double x = m->rest[v][k];
      if (period[k] > 0) {
        double u = (x - lo[k]) / period[k];
        u = floor((u - floor(u)) * PERIOD_CELLS);
        x = u < PERIOD_CELLS ? u : 0;
      }
      p[v].c[k] = x;
    }
  }
  struct place *sorted = malloc((nv ? nv : 1) * sizeof *sorted);
  if (!sorted) {
    free(p), free(parent), free(img);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", m->name);
  }
  memcpy(sorted, p, nv * sizeof *p);
  qsort(sorted, nv, sizeof *sorted, by_place);
  for (size_t v = 0; v < nv; v++)
    join_images(m, period, sorted, nv, &p[v], parent);
  free(sorted), free(p);
  /* Each vertex as the lowest of its class moved by whole periods. */
  m->joined = 0;
  for (size_t v = 0; v < nv; v++) {
    int r = find_vertex(parent, (int)v);
    parent[v] = r;
    for (int k = 0; k < 3; k++) {
      img[v][k] =
          period[k] > 0
              ? (int)nearbyint((m->rest[v][k] - m->rest[r][k]) / period[k])
              : 0;
      m->joined |= (unsigned)(img[v][k] != 0) << k;
    }
  }
  dem_status st =
      m->joined
          ? find_patches(
                m, &(struct identity){parent, (const int(*)[3])img, period})
          : DEM_OK;
  free(parent), free(img);
  return st;
}

/* The rotation of the motion after time tau, as a unit quaternion. */
static void turned(const struct dem_motion *mo, double tau, double q[4]) {
  double w = sqrt(v3_dot(mo->angular_velocity, mo->angular_velocity));
  if (w == 0) {
    q[0] = 1, q[1] = q[2] = q[3] = 0;
    return;
  }
  q_from_axis_angle(q, mo->angular_velocity, w * tau);
}

void dem_mesh_place(struct dem_mesh *m, double t) {
  const struct dem_motion *mo = &m->motion;
  double tau = t - mo->start;
  if (!mo->moving || tau <= 0) {
    memcpy(m->v, m->rest, m->n_vert * sizeof *m->v);
  } else {
    double q[4], shift[3];
    turned(mo, tau, q);
    v3_scale(shift, mo->velocity, tau);
    for (size_t k = 0; k < m->n_vert; k++) {
      double r[3];
      v3_sub(r, m->rest[k], mo->center);
      q_rotate(r, q, r);
      v3_add(m->v[k], mo->center, r);
      v3_add(m->v[k], m->v[k], shift);
    }
  }
  for (size_t t3 = 0; t3 < m->n_tri; t3++)
    unit_normal(m->normal[t3], m->v[m->tri[t3][0]], m->v[m->tri[t3][1]],
                m->v[m->tri[t3][2]]);
}

void dem_mesh_velocity(const struct dem_mesh *m, double t, const double p[3],
                       double out[3]) {
  const struct dem_motion *mo = &m->motion;
  double tau = t - mo->start;
  if (!mo->moving || tau < 0) {
    out[0] = out[1] = out[2] = 0;
    return;
  }
  double c[3], r[3], wxr[3];
  v3_copy(c, mo->center);
  v3_axpy(c, tau, mo->velocity);
  v3_sub(r, p, c);
  v3_cross(wxr, mo->angular_velocity, r);
  v3_add(out, mo->velocity, wxr);
}

void dem_mesh_release(struct dem_mesh *m) {
  free(m->name);
  free(m->tri);
  free(m->patch);
  free(m->rest);
  free(m->v);
  free(m->normal);
  free(m->edge_owner);
  free(m->vertex_owner);
  free(m->edge_shared);
  free(m->vertex_shared);
  memset(m, 0, sizeof *m);
}
