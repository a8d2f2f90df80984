/* XDMF sidecar writer: temporal collections of the sphere clouds, the
 * body centres and the mesh walls for ParaView. */
#include "io/xdmf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/temp_file.h"

char *dem_xdmf_path(const char *h5_path) {
  size_t len = strlen(h5_path);
  char *out = malloc(len + 5);
  if (!out)
    return NULL;
  memcpy(out, h5_path, len + 1);
  if (len > 3 && strcmp(h5_path + len - 3, ".h5") == 0)
    len -= 3;
  memcpy(out + len, ".xmf", 5);
  return out;
}

/* Text content / attribute value with the XML special characters escaped. */
static void put_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", f);
      break;
    case '<':
      fputs("&lt;", f);
      break;
    case '>':
      fputs("&gt;", f);
      break;
    case '"':
      fputs("&quot;", f);
      break;
    default:
      fputc(*s, f);
    }
  }
}

/* A DataItem reading h5_name:/snapshots/NNNNNN/DATASET, or
 * h5_name:/DATASET when index is NO_SNAPSHOT. */
#define NO_SNAPSHOT ((size_t)-1)
static void put_item(FILE *f, const char *h5_name, size_t index,
                     const char *dims, const char *number_type, int precision,
                     const char *dataset) {
  fprintf(f,
          "          <DataItem Dimensions=\"%s\" NumberType=\"%s\" "
          "Precision=\"%d\" Format=\"HDF\">",
          dims, number_type, precision);
  put_escaped(f, h5_name);
  if (index == NO_SNAPSHOT)
    fprintf(f, ":/%s</DataItem>\n", dataset);
  else
    fprintf(f, ":/snapshots/%06zu/%s</DataItem>\n", index, dataset);
}

/* The attributes of one grid (spheres or bodies) of frame `index`. */
static void put_attributes(FILE *f, const char *h5_name, size_t index, size_t n,
                           const struct dem_xdmf_attribute *attrs,
                           size_t n_attrs, int bodies) {
  char dims1[32], dims3[40];
  snprintf(dims1, sizeof dims1, "%zu", n);
  snprintf(dims3, sizeof dims3, "%zu 3", n);
  for (size_t k = 0; k < n_attrs; k++) {
    const struct dem_xdmf_attribute *a = &attrs[k];
    int vector = a->width == 3;
    if (!a->bodies != !bodies)
      continue;
    fputs("        <Attribute Name=\"", f);
    put_escaped(f, a->name);
    fprintf(f, "\" AttributeType=\"%s\" Center=\"Node\">\n",
            vector ? "Vector" : "Scalar");
    put_item(f, h5_name, index, vector ? dims3 : dims1,
             a->type == DEM_H5_F64 ? "Float" : "Int",
             a->type == DEM_H5_I32 ? 4 : 8, a->path);
    fputs("        </Attribute>\n", f);
  }
}

/* The start of frame fr's uniform grid of n points, with its time and
 * topology element. */
static void put_grid_start(FILE *f, const struct dem_xdmf_frame *fr, size_t n) {
  fprintf(f,
          "      <Grid Name=\"%06zu\" GridType=\"Uniform\">\n"
          "        <Time Value=\"%.17g\"/>\n"
          "        <Topology TopologyType=\"Polyvertex\" "
          "NumberOfElements=\"%zu\" NodesPerElement=\"1\"",
          fr->index, fr->time, n);
}

/* The spheres of a frame: one polyvertex per sphere. */
static void put_spheres(FILE *f, const char *h5_name,
                        const struct dem_xdmf_frame *fr,
                        const struct dem_xdmf_attribute *attrs,
                        size_t n_attrs) {
  char dims1[32], dims3[40];
  snprintf(dims1, sizeof dims1, "%zu", fr->n_spheres);
  snprintf(dims3, sizeof dims3, "%zu 3", fr->n_spheres);
  put_grid_start(f, fr, fr->n_spheres);
  if (fr->n_spheres == 0) {
    fputs("/>\n", f);
  } else {
    char vertex[64];
    snprintf(vertex, sizeof vertex, "xdmf/polyvertex_%zu", fr->n_spheres);
    fputs(">\n", f);
    put_item(f, h5_name, NO_SNAPSHOT, dims1, "Int", 4, vertex);
    fputs("        </Topology>\n", f);
  }
  fputs("        <Geometry GeometryType=\"XYZ\">\n", f);
  put_item(f, h5_name, fr->index, dims3, "Float", 8, "spheres/position");
  fputs("        </Geometry>\n", f);
  put_attributes(f, h5_name, fr->index, fr->n_spheres, attrs, n_attrs, 0);
  fputs("      </Grid>\n", f);
}

/* The bodies of a frame: one polyvertex per body centre. The
 * connectivity 0..N-1 is the start of the spheres' (every body has a
 * sphere, so N <= M), selected by a hyperslab: no dataset of its own. */
static void put_bodies(FILE *f, const char *h5_name,
                       const struct dem_xdmf_frame *fr,
                       const struct dem_xdmf_attribute *attrs, size_t n_attrs) {
  char dims3[40];
  snprintf(dims3, sizeof dims3, "%zu 3", fr->n_bodies);
  put_grid_start(f, fr, fr->n_bodies);
  if (fr->n_bodies > fr->n_spheres) {
    fputs("/>\n", f); /* cannot happen: points without cells */
  } else {
    char vertex[64], dims[32];
    snprintf(vertex, sizeof vertex, "xdmf/polyvertex_%zu", fr->n_spheres);
    snprintf(dims, sizeof dims, "%zu", fr->n_spheres);
    fprintf(f,
            ">\n"
            "          <DataItem ItemType=\"HyperSlab\" Dimensions=\"%zu\" "
            "Type=\"HyperSlab\">\n"
            "            <DataItem Dimensions=\"3 1\" Format=\"XML\">0 1 "
            "%zu</DataItem>\n  ",
            fr->n_bodies, fr->n_bodies);
    put_item(f, h5_name, NO_SNAPSHOT, dims, "Int", 4, vertex);
    fputs("          </DataItem>\n        </Topology>\n", f);
  }
  fputs("        <Geometry GeometryType=\"XYZ\">\n", f);
  put_item(f, h5_name, fr->index, dims3, "Float", 8, "bodies/position");
  fputs("        </Geometry>\n", f);
  put_attributes(f, h5_name, fr->index, fr->n_bodies, attrs, n_attrs, 1);
  fputs("      </Grid>\n", f);
}

/* Mesh k of a frame: its triangles over its vertices then. */
static void put_mesh(FILE *f, const char *h5_name,
                     const struct dem_xdmf_frame *fr,
                     const struct dem_xdmf_mesh *m) {
  char dims[40], path[64 + 256];
  fprintf(f,
          "      <Grid Name=\"%06zu\" GridType=\"Uniform\">\n"
          "        <Time Value=\"%.17g\"/>\n"
          "        <Topology TopologyType=\"Triangle\" "
          "NumberOfElements=\"%zu\">\n",
          fr->index, fr->time, m->n_tri);
  snprintf(dims, sizeof dims, "%zu 3", m->n_tri);
  snprintf(path, sizeof path, "meshes/%s/triangles", m->name);
  put_item(f, h5_name, NO_SNAPSHOT, dims, "Int", 8, path);
  fputs("        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n", f);
  snprintf(dims, sizeof dims, "%zu 3", m->n_vert);
  if (m->moving) {
    snprintf(path, sizeof path, "meshes/%s", m->name);
    put_item(f, h5_name, fr->index, dims, "Float", 8, path);
  } else {
    snprintf(path, sizeof path, "meshes/%s/vertices", m->name);
    put_item(f, h5_name, NO_SNAPSHOT, dims, "Float", 8, path);
  }
  fputs("        </Geometry>\n      </Grid>\n", f);
}

/* Appends the text of f's stream (text, len) to b; frees text. */
static dem_status append_text(struct dem_xdmf_buf *b, char *text, size_t len) {
  if (b->len + len + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    char *p;
    while (cap < b->len + len + 1)
      cap *= 2;
    p = realloc(b->buf, cap);
    if (!p) {
      free(text);
      return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
    }
    b->buf = p;
    b->cap = cap;
  }
  memcpy(b->buf + b->len, text, len + 1);
  b->len += len;
  free(text);
  return DEM_OK;
}

static dem_status append_mesh(struct dem_xdmf_mesh *m, const char *h5_name,
                              const struct dem_xdmf_frame *frame) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
  put_mesh(f, h5_name, frame, m);
  if (fclose(f) != 0 || !text) {
    free(text);
    return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
  }
  return append_text(&m->grids, text, len);
}

dem_status dem_xdmf_set_meshes(struct dem_xdmf_text *t,
                               const struct dem_h5_mesh *meshes, size_t n) {
  t->meshes = n ? calloc(n, sizeof *t->meshes) : NULL;
  if (n && !t->meshes)
    return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
  t->n_meshes = n;
  for (size_t k = 0; k < n; k++) {
    struct dem_xdmf_mesh *m = &t->meshes[k];
    if (!(m->name = strdup(meshes[k].name)))
      return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
    m->n_vert = meshes[k].n_vert;
    m->n_tri = meshes[k].n_tri;
    m->moving = meshes[k].moving;
  }
  return DEM_OK;
}

/* Appends what put(f, ...) writes to b. */
static dem_status
append_grid(struct dem_xdmf_buf *b,
            void (*put)(FILE *, const char *, const struct dem_xdmf_frame *,
                        const struct dem_xdmf_attribute *, size_t),
            const char *h5_name, const struct dem_xdmf_frame *frame,
            const struct dem_xdmf_attribute *attrs, size_t n_attrs) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
  put(f, h5_name, frame, attrs, n_attrs);
  if (fclose(f) != 0 || !text) {
    free(text);
    return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
  }
  return append_text(b, text, len);
}

dem_status dem_xdmf_append(struct dem_xdmf_text *t, const char *h5_name,
                           const struct dem_xdmf_frame *frame,
                           const struct dem_xdmf_attribute *attrs,
                           size_t n_attrs) {
  dem_status st =
      append_grid(&t->spheres, put_spheres, h5_name, frame, attrs, n_attrs);
  if (!st && frame->n_bodies)
    st = append_grid(&t->bodies, put_bodies, h5_name, frame, attrs, n_attrs);
  for (size_t k = 0; k < t->n_meshes && !st; k++)
    if (!t->meshes[k].moving || !frame->mesh_here || frame->mesh_here[k])
      st = append_mesh(&t->meshes[k], h5_name, frame);
  return st;
}

void dem_xdmf_text_free(struct dem_xdmf_text *t) {
  free(t->spheres.buf);
  free(t->bodies.buf);
  for (size_t k = 0; k < t->n_meshes; k++) {
    free(t->meshes[k].name);
    free(t->meshes[k].grids.buf);
  }
  free(t->meshes);
  memset(t, 0, sizeof *t);
}

dem_status dem_xdmf_write(const char *xmf_path, const struct dem_xdmf_text *t) {
  /* A fresh hidden name beside the sidecar, created exclusively: a file or
   * symbolic link planted at a predictable name is never followed. */
  char *tmp;
  int fd = dem_temp_create(xmf_path, &tmp);
  FILE *f;
  int failed;
  if (fd < 0)
    return dem_fail(DEM_ERR_IO, "%s: cannot write (%s)", xmf_path,
                    strerror(errno));
  f = fdopen(fd, "w");
  if (!f) {
    dem_status st = dem_fail(DEM_ERR_IO, "%s: cannot write (%s)", xmf_path,
                             strerror(errno));
    close(fd);
    remove(tmp);
    free(tmp);
    return st;
  }
  fputs("<?xml version=\"1.0\" ?>\n"
        "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
        "<Xdmf Version=\"3.0\" "
        "xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
        "  <Domain>\n"
        "    <Grid Name=\"spheres\" GridType=\"Collection\" "
        "CollectionType=\"Temporal\">\n",
        f);
  if (t->spheres.len)
    fwrite(t->spheres.buf, 1, t->spheres.len, f);
  fputs("    </Grid>\n", f);
  /* A second top-level collection: ParaView's XDMF Reader makes blocks
   * "spheres" and "bodies" of them, Xdmf3ReaderT Block0 and Block1, the
   * same at every time. (Both grids in a spatial collection per frame
   * would give blocks renamed at each time, "spheres[10]", ...) */
  if (t->bodies.len) {
    fputs("    <Grid Name=\"bodies\" GridType=\"Collection\" "
          "CollectionType=\"Temporal\">\n",
          f);
    fwrite(t->bodies.buf, 1, t->bodies.len, f);
    fputs("    </Grid>\n", f);
  }
  /* Each mesh wall a collection of its own, after them: the blocks of the
   * particles keep their places. */
  for (size_t k = 0; k < t->n_meshes; k++) {
    if (!t->meshes[k].grids.len)
      continue;
    fputs("    <Grid Name=\"mesh_", f);
    put_escaped(f, t->meshes[k].name);
    fputs("\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", f);
    fwrite(t->meshes[k].grids.buf, 1, t->meshes[k].grids.len, f);
    fputs("    </Grid>\n", f);
  }
  fputs("  </Domain>\n</Xdmf>\n", f);
  failed = ferror(f);
  if (fclose(f) != 0)
    failed = 1;
  if (failed) {
    dem_status st = dem_fail(DEM_ERR_IO, "%s: cannot write (%s)", xmf_path,
                             strerror(errno));
    remove(tmp);
    free(tmp);
    return st;
  }
  if (rename(tmp, xmf_path) != 0) {
    dem_status st = dem_fail(DEM_ERR_IO, "%s: cannot write (%s)", xmf_path,
                             strerror(errno));
    remove(tmp);
    free(tmp);
    return st;
  }
  free(tmp);
  return DEM_OK;
}
