/* XDMF sidecar writer: a temporal collection of sphere clouds for ParaView. */
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

static void put_frame(FILE *f, const char *h5_name,
                      const struct dem_xdmf_frame *fr,
                      const struct dem_xdmf_attribute *attrs, size_t n_attrs) {
  char dims1[32], dims3[40];
  snprintf(dims1, sizeof dims1, "%zu", fr->n_spheres);
  snprintf(dims3, sizeof dims3, "%zu 3", fr->n_spheres);
  fprintf(f, "      <Grid Name=\"%06zu\" GridType=\"Uniform\">\n", fr->index);
  fprintf(f, "        <Time Value=\"%.17g\"/>\n", fr->time);
  fprintf(f,
          "        <Topology TopologyType=\"Polyvertex\" "
          "NumberOfElements=\"%zu\" NodesPerElement=\"1\"",
          fr->n_spheres);
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
  for (size_t k = 0; k < n_attrs; k++) {
    const struct dem_xdmf_attribute *a = &attrs[k];
    fputs("        <Attribute Name=\"", f);
    put_escaped(f, a->name);
    fputs("\" AttributeType=\"Scalar\" Center=\"Node\">\n", f);
    put_item(f, h5_name, fr->index, dims1,
             a->type == DEM_H5_F64 ? "Float" : "Int",
             a->type == DEM_H5_I32 ? 4 : 8, a->path);
    fputs("        </Attribute>\n", f);
  }
  fputs("      </Grid>\n", f);
}

dem_status dem_xdmf_append(struct dem_xdmf_text *t, const char *h5_name,
                           const struct dem_xdmf_frame *frame,
                           const struct dem_xdmf_attribute *attrs,
                           size_t n_attrs) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
  put_frame(f, h5_name, frame, attrs, n_attrs);
  if (fclose(f) != 0 || !text) {
    free(text);
    return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
  }
  if (t->len + len + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 4096;
    char *p;
    while (cap < t->len + len + 1)
      cap *= 2;
    p = realloc(t->buf, cap);
    if (!p) {
      free(text);
      return dem_fail(DEM_ERR_NOMEM, "XDMF sidecar: out of memory");
    }
    t->buf = p;
    t->cap = cap;
  }
  memcpy(t->buf + t->len, text, len + 1);
  t->len += len;
  free(text);
  return DEM_OK;
}

void dem_xdmf_text_free(struct dem_xdmf_text *t) {
  free(t->buf);
  t->buf = NULL;
  t->len = t->cap = 0;
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
  if (t->len)
    fwrite(t->buf, 1, t->len, f);
  fputs("    </Grid>\n  </Domain>\n</Xdmf>\n", f);
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
