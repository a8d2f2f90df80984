/* STL reader: binary (80-byte header, count, 50 bytes a triangle) or ASCII
 * (solid / facet / outer loop / vertex x y z). */
#include "geometry/stl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A little-endian float or uint32 from 4 bytes. */
static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static float le_float(const unsigned char *p) {
  uint32_t u = le32(p);
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static dem_status grow(double (**tri)[3][3], size_t *cap, size_t need,
                       const char *name) {
  if (need <= *cap)
    return DEM_OK;
  size_t cap2 = *cap ? 2 * *cap : 256;
  while (cap2 < need)
    cap2 *= 2;
  void *p = realloc(*tri, cap2 * sizeof **tri);
  if (!p)
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory for %zu triangles", name,
                    need);
  *tri = p;
  *cap = cap2;
  return DEM_OK;
}

static dem_status read_binary(FILE *f, const char *name, uint32_t count,
                              double (**tri)[3][3], size_t *n) {
  size_t cap = 0;
  dem_status st = grow(tri, &cap, count ? count : 1, name);
  for (uint32_t k = 0; !st && k < count; k++) {
    unsigned char rec[50];
    if (fread(rec, 1, sizeof rec, f) != sizeof rec)
      return dem_fail(DEM_ERR_CONFIG,
                      "%s: binary STL truncated at triangle %u of %u", name,
                      k + 1, count);
    for (int v = 0; v < 3; v++)
      for (int c = 0; c < 3; c++) {
        double x = le_float(rec + 12 + 12 * v + 4 * c);
        if (!isfinite(x))
          return dem_fail(DEM_ERR_CONFIG,
                          "%s: triangle %u has a coordinate that is not a "
                          "finite number",
                          name, k + 1);
        (*tri)[k][v][c] = x;
      }
  }
  *n = count;
  return st;
}

/* The next word of the ASCII file (lowercase kept as is), or 0 at EOF. */
static int word(FILE *f, char *buf, size_t size, long *line) {
  int ch;
  while ((ch = fgetc(f)) != EOF &&
         (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'))
    if (ch == '\n')
      (*line)++;
  if (ch == EOF)
    return 0;
  size_t k = 0;
  do {
    if (k + 1 < size)
      buf[k++] = (char)ch;
  } while ((ch = fgetc(f)) != EOF &&
           !(ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'));
  if (ch == '\n')
    (*line)++;
  buf[k] = '\0';
  return 1;
}

static dem_status read_ascii(FILE *f, const char *name, size_t max_triangles,
                             double (**tri)[3][3], size_t *n) {
  char w[256];
  long line = 1;
  size_t cap = 0, count = 0;
  int in_loop = 0, vertices = 0;
  dem_status st = DEM_OK;
  rewind(f);
  while (!st && word(f, w, sizeof w, &line)) {
    if (strcmp(w, "vertex") == 0) {
      if (!in_loop || vertices == 3)
        return dem_fail(DEM_ERR_CONFIG,
                        "%s:%ld: 'vertex' outside an 'outer loop' of three",
                        name, line);
      for (int c = 0; c < 3; c++) {
        char *end;
        if (!word(f, w, sizeof w, &line))
          return dem_fail(DEM_ERR_CONFIG, "%s:%ld: truncated vertex", name,
                          line);
        double x = strtod(w, &end);
        if (*end || end == w || !isfinite(x))
          return dem_fail(DEM_ERR_CONFIG,
                          "%s:%ld: vertex coordinate '%s' is not a finite "
                          "number",
                          name, line, w);
        (*tri)[count][vertices][c] = x;
      }
      vertices++;
    } else if (strcmp(w, "outer") == 0) {
      if (count >= max_triangles)
        return dem_fail(DEM_ERR_CONFIG,
                        "%s: more than %zu triangles (the limit)", name,
                        max_triangles);
      if ((st = grow(tri, &cap, count + 1, name)))
        return st;
      in_loop = 1;
      vertices = 0;
    } else if (strcmp(w, "endloop") == 0) {
      if (!in_loop || vertices != 3)
        return dem_fail(DEM_ERR_CONFIG,
                        "%s:%ld: a facet's loop has %d vertices, not 3", name,
                        line, vertices);
      in_loop = 0;
      count++;
    }
    /* solid, facet, normal, loop, endfacet, endsolid and the normal's
     * numbers carry nothing dem uses. */
  }
  if (in_loop)
    return dem_fail(DEM_ERR_CONFIG, "%s: ASCII STL ends inside a facet", name);
  *n = count;
  return st;
}

dem_status dem_stl_read(FILE *f, const char *name, size_t max_triangles,
                        double (**tri)[3][3], size_t *n) {
  unsigned char head[84];
  *tri = NULL;
  *n = 0;
  size_t got = fread(head, 1, sizeof head, f);
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0)
    size = ftell(f);
  dem_status st;
  if (got == sizeof head && size >= 84 &&
      (uint64_t)size == 84 + 50 * (uint64_t)le32(head + 80)) {
    uint32_t count = le32(head + 80);
    if (count > max_triangles)
      return dem_fail(DEM_ERR_CONFIG,
                      "%s: %u triangles, more than the limit "
                      "of %zu",
                      name, count, max_triangles);
    fseek(f, 84, SEEK_SET);
    st = read_binary(f, name, count, tri, n);
  } else if (got >= 5 && memcmp(head, "solid", 5) == 0) {
    st = read_ascii(f, name, max_triangles, tri, n);
  } else {
    return dem_fail(DEM_ERR_CONFIG,
                    "%s: not an STL file (neither binary, 84 + 50 n bytes, "
                    "nor ASCII beginning with 'solid')",
                    name);
  }
  if (!st && *n == 0)
    st = dem_fail(DEM_ERR_CONFIG, "%s: holds no triangles", name);
  if (st) {
    free(*tri);
    *tri = NULL;
    *n = 0;
  }
  return st;
}
