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

enum { ENERGY_COLUMNS = DEM_H5U_ENERGY_N };

static void **energy_column(struct dem_energy_series *s, int c) {
  if (c == 0)
    return (void **)&s->step;
  return (void **)((char *)s + dem_h5u_energy_columns[c].series_offset);
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
    if (dem_h5u_energy_columns[c].since > 1 &&
        H5Lexists(g, dem_h5u_energy_columns[c].name, H5P_DEFAULT) <= 0)
      continue; /* added later than the file: zeros */
    ds[c] = H5Dopen2(g, dem_h5u_energy_columns[c].name, H5P_DEFAULT);
    sp = ds[c] >= 0 ? H5Dget_space(ds[c]) : -1;
    ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
         H5Sget_simple_extent_dims(sp, &dims, NULL) == 1;
    if (sp >= 0)
      H5Sclose(sp);
    if (!ok) {
      st = dem_fail(DEM_ERR_IO, "%s: /energy/%s missing or not 1-D", path,
                    dem_h5u_energy_columns[c].name);
      goto done;
    }
    if (c == 0 || dims < n)
      n = dims;
  }
  {
    void *cols[ENERGY_COLUMNS];
    if (dem_h5u_energy_read(ds, n, cols, &n, NULL) < 0) {
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
  /* A series made by hand may have no dissipated work: zero. */
  out->w_end = s->dissipated ? s->dissipated[s->n - 1] : 0.0;
  if (s->wall_work) /* what the walls put in is not dissipated */
    out->w_end -= s->wall_work[s->n - 1];
  if (s->inserted) { /* nor what inserted bodies brought */
    out->w_end -= s->inserted[s->n - 1];
    for (size_t i = 0; i < s->n; i++) /* a pour may start from nothing */
      if (fabs(s->inserted[i] - s->inserted[0]) > scale - fabs(e0))
        scale = fabs(e0) + fabs(s->inserted[i] - s->inserted[0]);
  }
  if (scale == 0.0) {
    out->max_rel_dev = out->mean_rel_dev = out->final_drift = NAN;
    out->max_balance = out->final_balance = NAN;
    return;
  }
  double max_balance = 0.0;
  /* E + W against its first value (W is 0 there in a run's own file). */
  const double b0 = e0 + (s->dissipated ? s->dissipated[0] : 0.0) -
                    (s->wall_work ? s->wall_work[0] : 0.0) -
                    (s->inserted ? s->inserted[0] : 0.0);
  for (size_t i = 0; i < s->n; i++) {
    double dev = fabs(s->total[i] - e0) / scale;
    double w = (s->dissipated ? s->dissipated[i] : 0.0) -
               (s->wall_work ? s->wall_work[i] : 0.0) -
               (s->inserted ? s->inserted[i] : 0.0);
    double bal = fabs(s->total[i] + w - b0) / scale;
    if (dev > max_dev || isnan(dev))
      max_dev = dev;
    if (bal > max_balance || isnan(bal))
      max_balance = bal;
    sum_dev += dev;
  }
  out->max_rel_dev = max_dev;
  out->mean_rel_dev = sum_dev / (double)s->n;
  out->final_drift = (out->e_end - e0) / scale;
  out->max_balance = max_balance;
  out->final_balance = (out->e_end + out->w_end - b0) / scale;
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

struct dem_h5_snapshot {
  char *path;    /* file, for messages */
  char snap[32]; /* NNNNNN */
  hid_t file, group;
};

void dem_h5_snapshot_close(struct dem_h5_snapshot *s) {
  if (!s)
    return;
  if (s->group >= 0)
    H5Gclose(s->group);
  if (s->file >= 0)
    H5Fclose(s->file);
  free(s->path);
  free(s);
}

static dem_status read_attr(const struct dem_h5_snapshot *s, const char *name,
                            hid_t mem_type, void *value) {
  hid_t a = H5Aopen(s->group, name, H5P_DEFAULT);
  herr_t rc = -1;
  if (a >= 0) {
    rc = H5Aread(a, mem_type, value);
    H5Aclose(a);
  }
  if (rc < 0)
    return dem_fail(DEM_ERR_IO, "%s: snapshot %s: missing attribute %s",
                    s->path, s->snap, name);
  return DEM_OK;
}

dem_status dem_h5_snapshot_open(const char *path, long index,
                                struct dem_h5_snapshot **out,
                                struct dem_h5_snapshot_info *info) {
  struct dem_h5_snapshot *s = calloc(1, sizeof *s);
  hid_t snaps = -1;
  dem_status st;
  *out = NULL;
  if (!s || !(s->path = strdup(path))) {
    free(s);
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", path);
  }
  s->file = s->group = -1;
  if ((st = open_dem_file(path, &s->file)))
    goto done;
  snaps = H5Gopen2(s->file, "snapshots", H5P_DEFAULT);
  if (snaps < 0) {
    st = dem_fail(DEM_ERR_IO, "%s: no snapshots", path);
    goto done;
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
  snprintf(s->snap, sizeof s->snap, "%06ld", index);
  if (H5Lexists(snaps, s->snap, H5P_DEFAULT) > 0)
    s->group = H5Gopen2(snaps, s->snap, H5P_DEFAULT);
  if (s->group < 0) {
    st = dem_fail(DEM_ERR_IO, "%s: no snapshot %s", path, s->snap);
    goto done;
  }
  info->index = index;
  if ((st = read_attr(s, "time", H5T_NATIVE_DOUBLE, &info->time)) ||
      (st = read_attr(s, "step", H5T_NATIVE_LONG, &info->step)))
    goto done;
done:
  if (snaps >= 0)
    H5Gclose(snaps);
  if (st)
    dem_h5_snapshot_close(s);
  else
    *out = s;
  return st;
}

int dem_h5_snapshot_has(const struct dem_h5_snapshot *s, const char *name) {
  const char *slash = strchr(name, '/');
  char group[64];
  if (slash && (size_t)(slash - name) < sizeof group) {
    snprintf(group, sizeof group, "%.*s", (int)(slash - name), name);
    if (H5Lexists(s->group, group, H5P_DEFAULT) <= 0)
      return 0;
  }
  return H5Lexists(s->group, name, H5P_DEFAULT) > 0;
}

dem_status dem_h5_snapshot_read(const struct dem_h5_snapshot *s,
                                const char *name, enum dem_h5_type type,
                                size_t *rows, size_t *cols, void **out) {
  hsize_t dims[2] = {0, 0};
  int want_rank = *cols == 0 ? 1 : 2, rank = -1;
  hid_t mem_type = type == DEM_H5_F64   ? H5T_NATIVE_DOUBLE
                   : type == DEM_H5_I32 ? H5T_NATIVE_INT
                                        : H5T_NATIVE_INT64;
  size_t elem = type == DEM_H5_F64   ? sizeof(double)
                : type == DEM_H5_I32 ? sizeof(int)
                                     : sizeof(int64_t);
  hid_t ds = -1, sp = -1;
  size_t count;
  dem_status st = DEM_OK;
  *out = NULL;
  if (!dem_h5_snapshot_has(s, name) ||
      (ds = H5Dopen2(s->group, name, H5P_DEFAULT)) < 0)
    return dem_fail(DEM_ERR_IO, "%s: snapshot %s: missing %s", s->path, s->snap,
                    name);
  sp = H5Dget_space(ds);
  if (sp >= 0)
    rank = H5Sget_simple_extent_ndims(sp);
  if (rank == want_rank)
    H5Sget_simple_extent_dims(sp, dims, NULL);
  if (sp >= 0)
    H5Sclose(sp);
  if (rank != want_rank || (*rows != DEM_H5_ANY && dims[0] != (hsize_t)*rows) ||
      (want_rank == 2 && *cols != DEM_H5_ANY && dims[1] != (hsize_t)*cols)) {
    st = dem_fail(DEM_ERR_IO, "%s: snapshot %s: %s has an unexpected shape",
                  s->path, s->snap, name);
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
    st = dem_fail(DEM_ERR_NOMEM, "%s: out of memory", s->path);
    goto done;
  }
  if (H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0) {
    char what[160];
    snprintf(what, sizeof what, "snapshot %s: cannot read %s", s->snap, name);
    st = dem_h5u_fail(s->path, what);
    free(*out);
    *out = NULL;
  }
done:
  H5Dclose(ds);
  return st;
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
