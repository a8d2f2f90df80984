/* HDF5 reader: energy series, snapshots and run header of a dem output file. */
#include "io/h5io.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "io/h5_util.h"

/* Opens path read-only and checks that dem wrote it. */
static dem_status open_dem_file(const char *path, hid_t *out) {
  struct stat sb;
  hid_t fapl, file;
  int has_version;
  *out = -1;
  dem_h5u_quiet();
  if (!path)
    return dem_fail(DEM_ERR_INTERNAL, "no file name");
  if (stat(path, &sb) != 0)
    return dem_fail(DEM_ERR_IO, "%s: %s", path, strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return dem_fail(DEM_ERR_IO, "%s: is a directory", path);
  fapl = dem_h5u_read_fapl();
  if (fapl < 0)
    return dem_h5u_fail(path, "cannot set up file access");
  file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  if (file < 0)
    return dem_h5u_fail(path, "cannot open as HDF5");
  has_version = H5Aexists(file, "dem_version");
  if (has_version <= 0) {
    H5Fclose(file);
    return dem_fail(DEM_ERR_IO,
                    "%s: not a dem output file (no dem_version attribute)",
                    path);
  }
  *out = file;
  return DEM_OK;
}

/* ------------------------------------------------------------------ */
/* Energy series                                                        */

enum { ENERGY_COLUMNS = 7 };

static const char *const energy_names[ENERGY_COLUMNS] = {
    "step",    "time", "kinetic_translational", "kinetic_rotational", "elastic",
    "gravity", "total"};

static void **energy_column(struct dem_energy_series *s, int c) {
  switch (c) {
  case 0:
    return (void **)&s->step;
  case 1:
    return (void **)&s->time;
  case 2:
    return (void **)&s->kinetic_translational;
  case 3:
    return (void **)&s->kinetic_rotational;
  case 4:
    return (void **)&s->elastic;
  case 5:
    return (void **)&s->gravity;
  default:
    return (void **)&s->total;
  }
}

void dem_energy_series_free(struct dem_energy_series *s) {
  if (!s)
    return;
  for (int c = 0; c < ENERGY_COLUMNS; c++)
    free(*energy_column(s, c));
  memset(s, 0, sizeof *s);
}

dem_status dem_h5_read_energy(const char *path, struct dem_energy_series *out) {
  hid_t file, g, ds[ENERGY_COLUMNS];
  hsize_t n = 0;
  dem_status st;

  memset(out, 0, sizeof *out);
  st = open_dem_file(path, &file);
  if (st != DEM_OK)
    return st;
  g = H5Gopen2(file, "energy", H5P_DEFAULT);
  if (g < 0) {
    H5Fclose(file);
    return dem_fail(DEM_ERR_IO, "%s: not a dem output file (no /energy)", path);
  }
  for (int c = 0; c < ENERGY_COLUMNS; c++)
    ds[c] = -1;
  /* The shortest column: a run killed between two columns' extensions
   * cannot make rows up. */
  for (int c = 0; c < ENERGY_COLUMNS; c++) {
    hsize_t dims = 0;
    hid_t sp;
    int ok;
    ds[c] = H5Dopen2(g, energy_names[c], H5P_DEFAULT);
    sp = ds[c] >= 0 ? H5Dget_space(ds[c]) : -1;
    ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
         H5Sget_simple_extent_dims(sp, &dims, NULL) == 1;
    if (sp >= 0)
      H5Sclose(sp);
    if (!ok) {
      st = dem_fail(DEM_ERR_IO, "%s: /energy/%s missing or not 1-D", path,
                    energy_names[c]);
      goto done;
    }
    if (c == 0 || dims < n)
      n = dims;
  }
  {
    void *cols[ENERGY_COLUMNS];
    if (dem_h5u_energy_read(ds, n, cols, &n) < 0) {
      st = dem_h5u_fail(path, "cannot read /energy");
      goto done;
    }
    for (int c = 0; c < ENERGY_COLUMNS; c++)
      *energy_column(out, c) = cols[c];
  }
  out->n = (size_t)n;
done:
  for (int c = 0; c < ENERGY_COLUMNS; c++)
    if (ds[c] >= 0)
      H5Dclose(ds[c]);
  H5Gclose(g);
  H5Fclose(file);
  if (st != DEM_OK)
    dem_energy_series_free(out);
  return st;
}

void dem_energy_summarize(const struct dem_energy_series *s,
                          struct dem_energy_summary *out) {
  double e0, scale, max_dev = 0.0, sum_dev = 0.0;
  memset(out, 0, sizeof *out);
  if (!s || s->n == 0)
    return;
  e0 = s->total[0];
  scale = fabs(e0);
  out->n = s->n;
  out->e0 = e0;
  out->e_end = s->total[s->n - 1];
  out->t_end = s->time[s->n - 1];
  if (scale == 0.0) {
    out->max_rel_dev = out->mean_rel_dev = out->final_drift = NAN;
    return;
  }
  for (size_t i = 0; i < s->n; i++) {
    double dev = fabs(s->total[i] - e0) / scale;
    if (dev > max_dev || isnan(dev))
      max_dev = dev;
    sum_dev += dev;
  }
  out->max_rel_dev = max_dev;
  out->mean_rel_dev = sum_dev / (double)s->n;
  out->final_drift = (out->e_end - e0) / scale;
}

/* ------------------------------------------------------------------ */
/* Snapshots                                                            */

/* The highest NNNNNN under /snapshots (-1 when there is none). */
static herr_t last_index(hid_t snaps, long *last) {
  H5G_info_t info;
  *last = -1;
  if (H5Gget_info(snaps, &info) < 0)
    return -1;
  for (hsize_t i = 0; i < info.nlinks; i++) {
    char name[64];
    char *end;
    long v;
    ssize_t len = H5Lget_name_by_idx(snaps, ".", H5_INDEX_NAME, H5_ITER_INC, i,
                                     name, sizeof name, H5P_DEFAULT);
    if (len < 0)
      return -1;
    if (len == 0 || (size_t)len >= sizeof name || name[0] < '0' ||
        name[0] > '9')
      continue;
    errno = 0;
    v = strtol(name, &end, 10);
    if (*end == '\0' && errno == 0 && v > *last)
      *last = v;
  }
  return 0;
}

void dem_snapshot_data_free(struct dem_snapshot_data *d) {
  if (!d)
    return;
  free(d->position);
  free(d->velocity);
  free(d->orientation);
  free(d->angular_velocity);
  free(d->mass);
  free(d->inertia);
  free(d->shape);
  free(d->sphere_position);
  free(d->sphere_radius);
  free(d->sphere_body);
  free(d->state_velocity);
  free(d->state_angular_velocity);
  free(d->state_rot_aux);
  free(d->state_sphere_member);
  free(d->state_sphere_x_build);
  free(d->state_body_x_build);
  memset(d, 0, sizeof *d);
}


/* Where a dataset is read from and what shape it must have. */
struct read_ctx {
  const char *path; /* file, for messages */
  const char *snap; /* NNNNNN */
  hid_t group;      /* the snapshot group */
};

#define ANY_SIZE ((size_t)-1)

/* Reads dataset `name` (e.g. "bodies/mass") into a new array. *rows is the
 * expected row count or ANY_SIZE (then set); *cols is 0 for a 1-D dataset,
 * the expected width, or ANY_SIZE for any width (then set). */
static dem_status read_field(const struct read_ctx *c, const char *name,
                             hid_t mem_type, size_t elem, size_t *rows,
                             size_t *cols, void **out) {
  hsize_t dims[2] = {0, 0};
  int want_rank = *cols == 0 ? 1 : 2, rank = -1;
  hid_t ds = H5Dopen2(c->group, name, H5P_DEFAULT), sp = -1;
  size_t count;
  dem_status st = DEM_OK;
  *out = NULL;
  if (ds < 0)
    return dem_fail(DEM_ERR_IO, "%s: snapshot %s: missing %s", c->path, c->snap,
                    name);
  sp = H5Dget_space(ds);
  if (sp >= 0)
    rank = H5Sget_simple_extent_ndims(sp);
  if (rank == want_rank)
    H5Sget_simple_extent_dims(sp, dims, NULL);
  if (sp >= 0)
    H5Sclose(sp);
  if (rank != want_rank || (*rows != ANY_SIZE && dims[0] != (hsize_t)*rows) ||
      (want_rank == 2 && *cols != ANY_SIZE && dims[1] != (hsize_t)*cols)) {
    st = dem_fail(DEM_ERR_IO, "%s: snapshot %s: %s has an unexpected shape",
                  c->path, c->snap, name);
    goto done;
  }
  *rows = (size_t)dims[0];
  if (want_rank == 2)
    *cols = (size_t)dims[1];
  count = *rows * (want_rank == 2 ? *cols : 1);
  if (count == 0)
    goto done;
  *out = malloc(count * elem);
  if (!*out) {
    st = dem_fail(DEM_ERR_NOMEM, "%s: out of memory", c->path);
    goto done;
  }
  if (H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0) {
    char what[160];
    snprintf(what, sizeof what, "snapshot %s: cannot read %s", c->snap, name);
    st = dem_h5u_fail(c->path, what);
    free(*out);
    *out = NULL;
  }
done:
  H5Dclose(ds);
  return st;
}

static dem_status read_attr(const struct read_ctx *c, const char *name,
                            hid_t mem_type, void *value) {
  hid_t a = H5Aopen(c->group, name, H5P_DEFAULT);
  herr_t rc = -1;
  if (a >= 0) {
    rc = H5Aread(a, mem_type, value);
    H5Aclose(a);
  }
  if (rc < 0)
    return dem_fail(DEM_ERR_IO, "%s: snapshot %s: missing attribute %s",
                    c->path, c->snap, name);
  return DEM_OK;
}

static dem_status read_snapshot_group(const struct read_ctx *c,
                                      struct dem_snapshot_data *d) {
  size_t nb = ANY_SIZE, ns = ANY_SIZE, three = 3, four = 4, vec = 0;
  hid_t D = H5T_NATIVE_DOUBLE, INT = H5T_NATIVE_INT;
  size_t sd = sizeof(double), si = sizeof(int);
  dem_status st;
  htri_t has;
#define READ(name, type, size, rows, cols, field)                              \
  do {                                                                         \
    void *p_;                                                                  \
    st = read_field(c, name, type, size, rows, cols, &p_);                     \
    if (st != DEM_OK)                                                          \
      return st;                                                               \
    d->field = p_;                                                             \
  } while (0)
  st = read_attr(c, "time", D, &d->time);
  if (st == DEM_OK)
    st = read_attr(c, "step", H5T_NATIVE_LONG, &d->step);
  if (st != DEM_OK)
    return st;
  READ("bodies/position", D, sd, &nb, &three, position);
  READ("bodies/velocity", D, sd, &nb, &three, velocity);
  READ("bodies/orientation", D, sd, &nb, &four, orientation);
  READ("bodies/angular_velocity", D, sd, &nb, &three, angular_velocity);
  READ("bodies/mass", D, sd, &nb, &vec, mass);
  READ("bodies/inertia", D, sd, &nb, &three, inertia);
  READ("bodies/shape", INT, si, &nb, &vec, shape);
  READ("spheres/position", D, sd, &ns, &three, sphere_position);
  READ("spheres/radius", D, sd, &ns, &vec, sphere_radius);
  READ("spheres/body", INT, si, &ns, &vec, sphere_body);
  d->n_bodies = nb;
  d->n_spheres = ns;
  has = H5Lexists(c->group, "state", H5P_DEFAULT);
  if (has <= 0)
    return DEM_OK;
  d->has_state = 1;
  if (H5Lexists(c->group, "state/velocity", H5P_DEFAULT) > 0)
    READ("state/velocity", D, sd, &nb, &three, state_velocity);
  if (H5Lexists(c->group, "state/angular_velocity", H5P_DEFAULT) > 0)
    READ("state/angular_velocity", D, sd, &nb, &three, state_angular_velocity);
  if (H5Lexists(c->group, "state/rot_aux", H5P_DEFAULT) > 0) {
    size_t width = ANY_SIZE;
    READ("state/rot_aux", D, sd, &nb, &width, state_rot_aux);
    d->aux_width = width;
  }
  if (H5Lexists(c->group, "state/sphere_member", H5P_DEFAULT) > 0)
    READ("state/sphere_member", INT, si, &ns, &vec, state_sphere_member);
  if (H5Lexists(c->group, "state/sphere_x_build", H5P_DEFAULT) > 0)
    READ("state/sphere_x_build", D, sd, &ns, &three, state_sphere_x_build);
  if (H5Lexists(c->group, "state/body_x_build", H5P_DEFAULT) > 0)
    READ("state/body_x_build", D, sd, &nb, &three, state_body_x_build);
#undef READ
  return DEM_OK;
}

dem_status dem_h5_read_snapshot(const char *path, long index,
                                struct dem_snapshot_data *out) {
  hid_t file, snaps;
  char name[32];
  struct read_ctx c;
  dem_status st;

  memset(out, 0, sizeof *out);
  st = open_dem_file(path, &file);
  if (st != DEM_OK)
    return st;
  snaps = H5Gopen2(file, "snapshots", H5P_DEFAULT);
  if (snaps < 0) {
    H5Fclose(file);
    return dem_fail(DEM_ERR_IO, "%s: no snapshots", path);
  }
  if (index < 0) {
    if (last_index(snaps, &index) < 0) {
      st = dem_h5u_fail(path, "cannot list /snapshots");
      goto done;
    }
    if (index < 0) {
      st = dem_fail(DEM_ERR_IO, "%s: no snapshots", path);
      goto done;
    }
  }
  snprintf(name, sizeof name, "%06ld", index);
  c.path = path;
  c.snap = name;
  c.group = -1;
  if (H5Lexists(snaps, name, H5P_DEFAULT) > 0)
    c.group = H5Gopen2(snaps, name, H5P_DEFAULT);
  if (c.group < 0) {
    st = dem_fail(DEM_ERR_IO, "%s: no snapshot %s", path, name);
    goto done;
  }
  out->index = index;
  st = read_snapshot_group(&c, out);
  H5Gclose(c.group);
done:
  H5Gclose(snaps);
  H5Fclose(file);
  if (st != DEM_OK)
    dem_snapshot_data_free(out);
  return st;
}

dem_status dem_h5_read_last_snapshot(const char *path,
                                     struct dem_snapshot_data *out) {
  return dem_h5_read_snapshot(path, -1, out);
}

dem_status dem_h5_snapshot_count(const char *path, size_t *n) {
  hid_t file, snaps;
  long last = -1;
  dem_status st;
  *n = 0;
  st = open_dem_file(path, &file);
  if (st != DEM_OK)
    return st;
  snaps = H5Gopen2(file, "snapshots", H5P_DEFAULT);
  if (snaps >= 0) {
    if (last_index(snaps, &last) < 0)
      st = dem_h5u_fail(path, "cannot list /snapshots");
    H5Gclose(snaps);
  }
  H5Fclose(file);
  *n = (size_t)(last + 1);
  return st;
}

/* ------------------------------------------------------------------ */
/* Run header                                                           */

/* Reads a scalar string dataset or attribute (variable or fixed length)
 * into a malloc'ed string. */
static herr_t read_string(hid_t obj, int is_attr, char **out) {
  hid_t ftype = is_attr ? H5Aget_type(obj) : H5Dget_type(obj), mtype = -1;
  herr_t rc = -1;
  *out = NULL;
  if (ftype < 0)
    return -1;
  if (H5Tget_class(ftype) != H5T_STRING)
    goto done;
  mtype = H5Tcopy(H5T_C_S1);
  if (mtype < 0 || H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0)
    goto done;
  if (H5Tis_variable_str(ftype) > 0) {
    char *s = NULL;
    if (H5Tset_size(mtype, H5T_VARIABLE) < 0)
      goto done;
    rc = is_attr ? H5Aread(obj, mtype, &s)
                 : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s);
    if (rc >= 0) {
      *out = strdup(s ? s : "");
      if (!*out)
        rc = -1;
    }
    if (s)
      H5free_memory(s);
  } else {
    size_t size = H5Tget_size(ftype);
    char *s = calloc(size + 1, 1);
    if (!s || H5Tset_size(mtype, size + 1) < 0 ||
        H5Tset_strpad(mtype, H5T_STR_NULLTERM) < 0) {
      free(s);
      goto done;
    }
    rc = is_attr ? H5Aread(obj, mtype, s)
                 : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, s);
    if (rc < 0)
      free(s);
    else
      *out = s;
  }
done:
  if (mtype >= 0)
    H5Tclose(mtype);
  H5Tclose(ftype);
  return rc;
}

static herr_t read_string_attr(hid_t loc, const char *name, char **out) {
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  herr_t rc;
  if (a < 0)
    return -1;
  rc = read_string(a, 1, out);
  H5Aclose(a);
  return rc;
}

dem_status dem_h5_read_run_info(const char *path, char **config_text,
                                char **scheme, char **version,
                                double *time_step) {
  hid_t file, ds, a;
  dem_status st;
  const char *missing = NULL;
  if (config_text)
    *config_text = NULL;
  if (scheme)
    *scheme = NULL;
  if (version)
    *version = NULL;
  st = open_dem_file(path, &file);
  if (st != DEM_OK)
    return st;
  if (config_text) {
    ds = H5Dopen2(file, "config", H5P_DEFAULT);
    if (ds < 0 || read_string(ds, 0, config_text) < 0)
      missing = "/config";
    if (ds >= 0)
      H5Dclose(ds);
  }
  if (!missing && scheme && read_string_attr(file, "scheme", scheme) < 0)
    missing = "scheme attribute";
  if (!missing && version && read_string_attr(file, "dem_version", version) < 0)
    missing = "dem_version attribute";
  if (!missing && time_step) {
    herr_t rc = -1;
    a = H5Aopen(file, "time_step", H5P_DEFAULT);
    if (a >= 0) {
      rc = H5Aread(a, H5T_NATIVE_DOUBLE, time_step);
      H5Aclose(a);
    }
    if (rc < 0)
      missing = "time_step attribute";
  }
  H5Fclose(file);
  if (missing) {
    st = dem_fail(DEM_ERR_IO, "%s: cannot read the %s", path, missing);
    if (config_text) {
      free(*config_text);
      *config_text = NULL;
    }
    if (scheme) {
      free(*scheme);
      *scheme = NULL;
    }
    if (version) {
      free(*version);
      *version = NULL;
    }
  }
  return st;
}
