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

/* An edge (lower vertex, higher vertex) and the triangle it came from. */
struct edge {
  int lo, hi;
  size_t tri;
};

static int by_vertices(const void *a, const void *b) {
  const struct edge *p = a, *q = b;
  if (p->lo != q->lo)
    return p->lo < q->lo ? -1 : 1;
  if (p->hi != q->hi)
    return p->hi < q->hi ? -1 : 1;
  return (p->tri > q->tri) - (p->tri < q->tri);
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

/* Patches: triangles that share an edge and are coplanar, joined. */
static dem_status find_patches(struct dem_mesh *m) {
  size_t n = m->n_tri;
  struct edge *e = malloc(3 * n * sizeof *e);
  size_t *parent = malloc(n * sizeof *parent);
  if (!e || !parent) {
    free(e), free(parent);
    return dem_fail(DEM_ERR_NOMEM, "out of memory for mesh '%s'", m->name);
  }
  for (size_t t = 0; t < n; t++) {
    parent[t] = t;
    for (int k = 0; k < 3; k++) {
      int a = m->tri[t][k], b = m->tri[t][(k + 1) % 3];
      e[3 * t + k] = (struct edge){a < b ? a : b, a < b ? b : a, t};
    }
  }
  qsort(e, 3 * n, sizeof *e, by_vertices);
  for (size_t k = 1; k < 3 * n; k++) {
    if (e[k].lo != e[k - 1].lo || e[k].hi != e[k - 1].hi)
      continue;
    const double *p = m->normal[e[k].tri], *q = m->normal[e[k - 1].tri];
    double c[3];
    v3_cross(c, p, q);
    if (v3_dot(c, c) < 1e-18) { /* parallel: one plane (they share an edge) */
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
      int v = m->tri[t][k];
      if (m->patch[t] < lowest[v])
        lowest[v] = m->patch[t];
      if (m->patch[t] > highest[v])
        highest[v] = m->patch[t];
    }
  for (size_t a = 0; a < 3 * n;) {
    size_t b = a;
    int low = m->patch[e[a].tri], high = low;
    while (b < 3 * n && e[b].lo == e[a].lo && e[b].hi == e[a].hi) {
      if (m->patch[e[b].tri] < low)
        low = m->patch[e[b].tri];
      if (m->patch[e[b].tri] > high)
        high = m->patch[e[b].tri];
      b++;
    }
    for (size_t k = a; k < b; k++) {
      size_t t = e[k].tri;
      for (int j = 0; j < 3; j++) {
        int v0 = m->tri[t][j], v1 = m->tri[t][(j + 1) % 3];
        if ((v0 < v1 ? v0 : v1) == e[k].lo && (v0 < v1 ? v1 : v0) == e[k].hi) {
          m->edge_owner[t][j] = low;
          m->edge_shared[t][j] = low != high;
        }
      }
    }
    a = b;
  }
  for (size_t t = 0; t < n; t++)
    for (int k = 0; k < 3; k++) {
      int v = m->tri[t][k];
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
  return find_patches(m);
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
