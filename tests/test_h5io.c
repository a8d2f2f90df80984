/* Check suite for the HDF5 writer/reader, the XDMF sidecar and `dem energy`. */
#include <check.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "cli/commands.h"
#include "dem/status.h"
#include "io/h5_util.h"
#include "io/h5io.h"

/* ------------------------------------------------------------------ */
/* Scratch directory per test                                           */

static char tmpdir[256];

static void remove_tree(const char *path) {
  struct stat sb;
  DIR *d;
  struct dirent *e;
  if (lstat(path, &sb) != 0)
    return;
  if (!S_ISDIR(sb.st_mode)) {
    unlink(path);
    return;
  }
  chmod(path, 0700);
  d = opendir(path);
  while (d && (e = readdir(d)) != NULL) {
    char child[1024];
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    remove_tree(child);
  }
  if (d)
    closedir(d);
  rmdir(path);
}

static void setup(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/dem_h5io_XXXXXX",
           base && base[0] ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
  dem_error_clear();
}

static void teardown(void) { remove_tree(tmpdir); }

static void tmp_path(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", tmpdir, name);
}

/* Number of entries of tmpdir whose name starts with prefix. */
static int count_entries(const char *prefix) {
  DIR *d = opendir(tmpdir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)) != NULL)
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
        strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      n++;
  if (d)
    closedir(d);
  return n;
}

static const struct dem_xdmf_attribute xdmf_attrs[] = {
    {"radius", "spheres/radius", DEM_H5_F64, 1, 0},
    {"body", "spheres/body", DEM_H5_I32, 1, 0}};
static const struct dem_h5_run_info run_info = {
    .config_text = "simulation: {time_step: 0.001}\n",
    .scheme = "spiral_leapfrog",
    .version = "0.1.0-test",
    .time_step = 0.001,
    .xdmf = xdmf_attrs,
    .n_xdmf = 2};

/* ------------------------------------------------------------------ */
/* Snapshot contents from a seed                                        */

/* The datasets of a test snapshot: per body or per sphere, width (0: the
 * buffer's aux width), integer or not, and whether it is restart state. */
static const struct col_spec {
  const char *path;
  int spheres, is_int, state;
  size_t width;
} specs[] = {{"bodies/position", 0, 0, 0, 3},
             {"bodies/velocity", 0, 0, 0, 3},
             {"bodies/orientation", 0, 0, 0, 4},
             {"bodies/angular_velocity", 0, 0, 0, 3},
             {"bodies/mass", 0, 0, 0, 1},
             {"bodies/inertia", 0, 0, 0, 3},
             {"spheres/position", 1, 0, 0, 3},
             {"spheres/radius", 1, 0, 0, 1},
             {"spheres/body", 1, 1, 0, 1},
             /* after the spheres: a group's columns need not be adjacent */
             {"bodies/shape", 0, 1, 0, 1},
             {"state/velocity", 0, 0, 1, 3},
             {"state/angular_velocity", 0, 0, 1, 3},
             {"state/rot_aux", 0, 0, 1, 0}};
enum { N_SPECS = sizeof specs / sizeof specs[0] };

struct snapbuf {
  size_t nb, ns, aux;
  void *data[N_SPECS];
  struct dem_h5_column cols[N_SPECS];
};

static double value(long k, int field, size_t i) {
  return (double)k * 1000.0 + field + sin((double)i + 0.37 * field);
}

static size_t spec_rows(const struct snapbuf *b, const struct col_spec *c) {
  return c->spheres ? b->ns : b->nb;
}

static size_t spec_width(const struct snapbuf *b, const struct col_spec *c) {
  return c->width ? c->width : b->aux;
}

static void snapbuf_init(struct snapbuf *b, size_t nb, size_t per_body,
                         size_t aux, long k) {
  b->nb = nb;
  b->ns = nb * per_body;
  b->aux = aux;
  for (int c = 0; c < N_SPECS; c++) {
    size_t n = spec_rows(b, &specs[c]) * spec_width(b, &specs[c]);
    if (specs[c].is_int) {
      int *a = malloc((n + 1) * sizeof *a);
      for (size_t i = 0; i < n; i++) /* shapes 0..2, bodies of spheres */
        a[i] =
            specs[c].spheres ? (int)(i / per_body) : (int)((i + (size_t)k) % 3);
      b->data[c] = a;
    } else {
      double *a = malloc((n + 1) * sizeof *a);
      for (size_t i = 0; i < n; i++)
        a[i] = value(k, c, i);
      b->data[c] = a;
    }
  }
}

static void snapbuf_free(struct snapbuf *b) {
  for (int c = 0; c < N_SPECS; c++)
    free(b->data[c]);
}

static struct dem_snapshot snapbuf_view(struct snapbuf *b, long k,
                                        int with_state) {
  struct dem_snapshot s = {0};
  s.step = 100 * k;
  s.time = 0.1 * (double)k;
  s.n_spheres = b->ns;
  s.columns = b->cols;
  for (int c = 0; c < N_SPECS; c++) {
    size_t width = spec_width(b, &specs[c]);
    if (specs[c].state && !with_state)
      continue;
    b->cols[s.n_columns++] = (struct dem_h5_column){
        .path = specs[c].path,
        .type = specs[c].is_int ? DEM_H5_I32 : DEM_H5_F64,
        .rows = spec_rows(b, &specs[c]),
        .cols = width == 1 ? 0 : width,
        .data = b->data[c],
        .unit = specs[c].is_int ? "1" : "m",
        .description = specs[c].path};
  }
  return s;
}

/* The string attribute `name` of ds is `want`. */
static int string_attr_is(hid_t ds, const char *name, const char *want) {
  hid_t a = H5Aopen(ds, name, H5P_DEFAULT), t = H5Aget_type(a);
  char *got = NULL;
  int ok = a >= 0 && t >= 0 && H5Tis_variable_str(t) > 0 &&
           H5Aread(a, t, &got) >= 0 && got && strcmp(got, want) == 0;
  if (!ok)
    fprintf(stderr, "%s: %s\n", name, got ? got : "(none)");
  H5free_memory(got);
  if (t >= 0)
    H5Tclose(t);
  if (a >= 0)
    H5Aclose(a);
  return ok;
}

/* The number of the columns of s (snapshot `name` of path) whose dataset
 * lacks its own unit and description, or has another's. */
static int docs_differ(const char *path, const char *name,
                       const struct dem_snapshot *s) {
  hid_t h5 = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  int bad = h5 < 0;
  for (size_t c = 0; c < s->n_columns && h5 >= 0; c++) {
    char where[256];
    snprintf(where, sizeof where, "snapshots/%s/%s", name, s->columns[c].path);
    hid_t ds = H5Dopen2(h5, where, H5P_DEFAULT);
    if (ds < 0 || !string_attr_is(ds, "unit", s->columns[c].unit) ||
        !string_attr_is(ds, "description", s->columns[c].description)) {
      fprintf(stderr, "%s: missing or wrong unit or description\n", where);
      bad++;
    }
    if (ds >= 0)
      H5Dclose(ds);
  }
  if (h5 >= 0)
    H5Fclose(h5);
  return bad;
}

/* 0 when snapshot `index` of path holds exactly (bitwise) snapshot k of
 * b. */
static int snapshot_differs(const char *path, long index,
                            const struct snapbuf *b, long k, int with_state) {
  struct dem_h5_snapshot *snap;
  struct dem_h5_snapshot_info info;
  int bad = 0;
  if (dem_h5_snapshot_open(path, index, &snap, &info) != DEM_OK) {
    fprintf(stderr, "snapshot %ld: %s\n", index, dem_last_error());
    return 1;
  }
  if (info.step != 100 * k || info.time != 0.1 * (double)k)
    bad = 2;
  for (int c = 0; c < N_SPECS && !bad; c++) {
    size_t width = spec_width(b, &specs[c]), rows = spec_rows(b, &specs[c]);
    size_t cols = width == 1 ? 0 : width;
    void *data = NULL;
    if (specs[c].state && !with_state) {
      bad = dem_h5_snapshot_has(snap, specs[c].path) ? 3 : 0;
      continue;
    }
    if (dem_h5_snapshot_read(snap, specs[c].path,
                             specs[c].is_int ? DEM_H5_I32 : DEM_H5_F64, &rows,
                             &cols, &data) != DEM_OK ||
        memcmp(data, b->data[c],
               rows * width * (specs[c].is_int ? sizeof(int) : sizeof(double))))
      bad = 4;
    free(data);
  }
  dem_h5_snapshot_close(snap);
  return bad;
}

static struct dem_energy_row energy_row(long step, double total) {
  struct dem_energy_row r = {.step = step,
                             .time = 0.5 * (double)step,
                             .kinetic_translational = total * 0.25,
                             .kinetic_rotational = total * 0.5,
                             .elastic = total * 0.125,
                             .gravity = total * 0.125,
                             .total = total,
                             .dissipated_damping = total * 0.01,
                             .dissipated_friction = total * 0.02,
                             .dissipated_rolling = total * 0.04,
                             .dissipated = total * 0.07};
  return r;
}

/* ------------------------------------------------------------------ */
/* Energy series and summary                                            */

START_TEST(test_energy_summary) {
  char path[512];
  struct dem_h5_writer *w;
  struct dem_energy_row rows[4] = {energy_row(0, 10.0), energy_row(1, 10.1),
                                   energy_row(2, 9.8), energy_row(3, 10.05)};
  struct dem_energy_series s;
  struct dem_energy_summary sum;
  double e[4] = {10.0, 10.1, 9.8, 10.05}, mean = 0.0;
  char *config, *scheme, *version;
  double dt;

  tmp_path(path, sizeof path, "energy.h5");
  ck_assert_int_eq(dem_h5_create(path, 0, &run_info, &w), DEM_OK);
  ck_assert_int_eq(dem_h5_energy_append(w, rows, 2), DEM_OK);
  ck_assert_int_eq(dem_h5_energy_append(w, rows + 2, 2), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);

  ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_OK);
  ck_assert_uint_eq(s.n, 4);
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(s.step[i], rows[i].step);
    ck_assert(s.time[i] == rows[i].time);
    ck_assert(s.kinetic_translational[i] == rows[i].kinetic_translational);
    ck_assert(s.kinetic_rotational[i] == rows[i].kinetic_rotational);
    ck_assert(s.elastic[i] == rows[i].elastic);
    ck_assert(s.gravity[i] == rows[i].gravity);
    ck_assert(s.total[i] == rows[i].total);
  }
  dem_energy_summarize(&s, &sum);
  for (int i = 0; i < 4; i++)
    mean += fabs(e[i] - e[0]) / fabs(e[0]);
  mean /= 4.0;
  ck_assert_uint_eq(sum.n, 4);
  ck_assert(sum.e0 == 10.0);
  ck_assert(sum.e_end == 10.05);
  ck_assert(sum.t_end == 1.5);
  ck_assert(sum.max_rel_dev == fabs(9.8 - 10.0) / 10.0);
  ck_assert(sum.mean_rel_dev == mean);
  ck_assert(sum.final_drift == (10.05 - 10.0) / 10.0);
  ck_assert_double_eq_tol(sum.max_rel_dev, 0.02, 1e-14);
  ck_assert_double_eq_tol(sum.mean_rel_dev, 0.00875, 1e-14);
  ck_assert_double_eq_tol(sum.final_drift, 0.005, 1e-14);
  dem_energy_series_free(&s);
  ck_assert_ptr_null(s.total);

  ck_assert_int_eq(dem_h5_read_run_info(path, &config, &scheme, &version, &dt),
                   DEM_OK);
  ck_assert_str_eq(config, run_info.config_text);
  ck_assert_str_eq(scheme, "spiral_leapfrog");
  ck_assert_str_eq(version, "0.1.0-test");
  ck_assert(dt == 0.001);
  free(config);
  free(scheme);
  free(version);
}
END_TEST

START_TEST(test_energy_many_rows) {
  char path[512];
  struct dem_h5_writer *w;
  struct dem_energy_series s;
  struct dem_energy_summary sum;
  struct dem_energy_row rows[7];
  const long n = 3001; /* crosses chunk boundaries, ragged last block */

  tmp_path(path, sizeof path, "many.h5");
  ck_assert_int_eq(dem_h5_create(path, 0, &run_info, &w), DEM_OK);
  for (long i = 0; i < n; i += 7) {
    size_t m = (size_t)(n - i < 7 ? n - i : 7);
    for (size_t j = 0; j < m; j++)
      rows[j] = energy_row(i + (long)j, 1.0 + 1e-3 * sin((double)(i + j)));
    ck_assert_int_eq(dem_h5_energy_append(w, rows, m), DEM_OK);
  }
  ck_assert_int_eq(dem_h5_energy_append(w, rows, 0), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);
  ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_OK);
  ck_assert_uint_eq(s.n, (size_t)n);
  for (long i = 0; i < n; i++) {
    ck_assert_int_eq(s.step[i], i);
    ck_assert(s.total[i] == 1.0 + 1e-3 * sin((double)i));
  }
  dem_energy_summarize(&s, &sum);
  ck_assert(sum.t_end == 0.5 * (double)(n - 1));
  ck_assert(sum.max_rel_dev > 0.0 && sum.max_rel_dev <= 2e-3);
  dem_energy_series_free(&s);
}
END_TEST

/* Rows beyond what was written (a kill between a column's extension and
 * its data reaching the file) read as fill values and are dropped. */
START_TEST(test_energy_fill_rows_dropped) {
  static const char *const cols[] = {"step",
                                     "time",
                                     "kinetic_translational",
                                     "kinetic_rotational",
                                     "elastic",
                                     "gravity",
                                     "total"};
  char path[512];
  struct dem_h5_writer *w;
  struct dem_energy_row rows[3] = {energy_row(0, 1.0), energy_row(1, 1.0),
                                   energy_row(2, 1.0)};
  struct dem_energy_series s;
  hid_t f;

  tmp_path(path, sizeof path, "fill.h5");
  ck_assert_int_eq(dem_h5_create(path, 0, &run_info, &w), DEM_OK);
  ck_assert_int_eq(dem_h5_energy_append(w, rows, 3), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);
  f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  for (int c = 0; c < 7; c++) {
    char name[64];
    hsize_t size = c == 6 ? 3000 : 5; /* total crosses into chunk 2 */
    hid_t ds;
    snprintf(name, sizeof name, "energy/%s", cols[c]);
    ds = H5Dopen2(f, name, H5P_DEFAULT);
    ck_assert_int_ge(ds, 0);
    ck_assert_int_ge(H5Dset_extent(ds, &size), 0);
    H5Dclose(ds);
  }
  H5Fclose(f);
  ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_OK);
  ck_assert_uint_eq(s.n, 3);
  ck_assert(s.total[2] == 1.0 && s.step[2] == 2);
  dem_energy_series_free(&s);
}
END_TEST

START_TEST(test_summary_edge_cases) {
  struct dem_energy_series empty = {0};
  struct dem_energy_summary sum;
  long step[2] = {0, 1};
  double t[2] = {0.0, 1.0}, zero[2] = {0.0, 1.0};
  struct dem_energy_series z = {.n = 2,
                                .step = step,
                                .time = t,
                                .kinetic_translational = zero,
                                .kinetic_rotational = zero,
                                .elastic = zero,
                                .gravity = zero,
                                .total = zero};
  dem_energy_summarize(&empty, &sum);
  ck_assert_uint_eq(sum.n, 0);
  ck_assert(sum.e0 == 0.0 && sum.max_rel_dev == 0.0);
  dem_energy_summarize(&z, &sum);
  ck_assert(isnan(sum.max_rel_dev) && isnan(sum.final_drift));
  ck_assert(sum.e_end == 1.0 && sum.t_end == 1.0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Snapshots                                                            */

START_TEST(test_snapshot_roundtrip) {
  char path[512], xmf[512], text[8192];
  struct dem_h5_writer *w;
  struct snapbuf b0, b1;
  struct dem_snapshot s0, s1;
  struct dem_h5_snapshot *snap;
  struct dem_h5_snapshot_info info;
  size_t count;
  FILE *f;
  size_t len;

  tmp_path(path, sizeof path, "snap.h5");
  tmp_path(xmf, sizeof xmf, "snap.xmf");
  snapbuf_init(&b0, 5, 3, 2, 0);
  snapbuf_init(&b1, 5, 3, 2, 1);
  s0 = snapbuf_view(&b0, 0, 0);
  s1 = snapbuf_view(&b1, 1, 1);
  s1.n_bodies = b1.nb; /* the second frame also draws the bodies */
  ck_assert_int_eq(dem_h5_create(path, 0, &run_info, &w), DEM_OK);
  ck_assert_int_eq(dem_h5_snapshot_write(w, &s0), DEM_OK);
  ck_assert_int_eq(dem_h5_snapshot_write(w, &s1), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);

  ck_assert_int_eq(dem_h5_snapshot_count(path, &count), DEM_OK);
  ck_assert_uint_eq(count, 2);
  ck_assert_int_eq(snapshot_differs(path, -1, &b1, 1, 1), 0);
  ck_assert_int_eq(snapshot_differs(path, 0, &b0, 0, 0), 0);
  ck_assert_int_eq(dem_h5_snapshot_open(path, 7, &snap, &info), DEM_ERR_IO);
  ck_assert_ptr_nonnull(strstr(dem_last_error(), "no snapshot 000007"));
  /* Each dataset says what it holds: its own unit and description. */
  ck_assert_int_eq(docs_differ(path, "000000", &s0), 0);
  ck_assert_int_eq(docs_differ(path, "000001", &s1), 0);
  {
    hid_t h5 = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(h5, "snapshots/000001/bodies/mass", H5P_DEFAULT);
    ck_assert_int_gt(H5Aexists(ds, "unit"), 0);
    ck_assert_int_gt(H5Aexists(ds, "description"), 0);
    H5Dclose(ds);
    ds = H5Dopen2(h5, "energy/total", H5P_DEFAULT);
    ck_assert_int_gt(H5Aexists(ds, "unit"), 0);
    H5Dclose(ds);
    H5Fclose(h5);
  }

  /* The sidecar lists both snapshots by the file's basename. */
  f = fopen(xmf, "r");
  ck_assert_ptr_nonnull(f);
  len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = '\0';
  ck_assert_ptr_nonnull(
      strstr(text, ">snap.h5:/snapshots/000000/spheres/position<"));
  ck_assert_ptr_nonnull(
      strstr(text, ">snap.h5:/snapshots/000001/spheres/body<"));
  ck_assert_ptr_nonnull(strstr(text, "CollectionType=\"Temporal\""));
  ck_assert_ptr_nonnull(strstr(text, ">snap.h5:/xdmf/polyvertex_15<"));
  /* The bodies' collection: frame 1 only, its 5 centres the first 5
   * entries of the spheres' connectivity. */
  {
    const char *bodies = strstr(text, "<Grid Name=\"bodies\"");
    ck_assert_ptr_nonnull(bodies);
    ck_assert_ptr_null(strstr(bodies, "/snapshots/000000/"));
    ck_assert_ptr_nonnull(
        strstr(bodies, ">snap.h5:/snapshots/000001/bodies/position<"));
    ck_assert_ptr_nonnull(strstr(bodies, "ItemType=\"HyperSlab\" "
                                         "Dimensions=\"5\""));
    ck_assert_ptr_nonnull(strstr(bodies, ">0 1 5</DataItem>"));
  }
  {
    int vertex[15];
    hid_t h5 = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(h5, "xdmf/polyvertex_15", H5P_DEFAULT);
    ck_assert_int_ge(ds, 0);
    ck_assert_int_ge(
        H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, vertex), 0);
    for (int i = 0; i < 15; i++)
      ck_assert_int_eq(vertex[i], i);
    H5Dclose(ds);
    H5Fclose(h5);
  }
  ck_assert_ptr_null(strstr(text, tmpdir));
  ck_assert_int_eq(count_entries("."), 0); /* no temporary files left */
  snapbuf_free(&b0);
  snapbuf_free(&b1);
}
END_TEST

START_TEST(test_empty_snapshot) {
  char path[512];
  struct dem_h5_writer *w;
  struct dem_snapshot s = {0};
  struct dem_h5_snapshot *snap;
  struct dem_h5_snapshot_info info;
  tmp_path(path, sizeof path, "empty.h5");
  s.step = 3;
  s.time = 0.25;
  ck_assert_int_eq(dem_h5_create(path, 0, &run_info, &w), DEM_OK);
  ck_assert_int_eq(dem_h5_snapshot_write(w, &s), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);
  ck_assert_int_eq(dem_h5_snapshot_open(path, -1, &snap, &info), DEM_OK);
  ck_assert_int_eq(info.step, 3);
  ck_assert(info.time == 0.25);
  ck_assert(!dem_h5_snapshot_has(snap, "bodies/position"));
  dem_h5_snapshot_close(snap);
}
END_TEST

/* Row i of the computed test column: a value no other row has. */
static void computed_row(const void *ctx, size_t i, void *out) {
  const double *scale = ctx;
  double *o = out;
  for (int c = 0; c < 3; c++)
    o[c] = *scale * (double)i + 0.25 * c;
}

/* Columns far longer than the writer's slab (it gathers reordered and
 * computed rows a slab at a time): every row lands whole at its place,
 * the last partial slab too. */
START_TEST(test_snapshot_columns_in_slabs) {
  enum { N = 40001 }; /* 16 slabs of 3 doubles, 3 of ints, none even */
  char path[512];
  struct dem_h5_writer *w;
  struct dem_h5_snapshot *snap;
  struct dem_h5_snapshot_info info;
  static double x[N][3];
  static int body[N];
  static size_t order[N];
  const double scale = 1.5;
  for (size_t i = 0; i < N; i++) {
    for (int c = 0; c < 3; c++)
      x[i][c] = (double)i + 0.125 * c;
    body[i] = (int)(7 * i + 3);
    order[i] = (i * 7919) % N; /* a permutation: 7919 is prime, N not its
                                * multiple */
  }
  const struct dem_h5_column cols[] = {{.path = "spheres/position",
                                        .type = DEM_H5_F64,
                                        .rows = N,
                                        .cols = 3,
                                        .data = x,
                                        .order = order},
                                       {.path = "spheres/body",
                                        .type = DEM_H5_I32,
                                        .rows = N,
                                        .data = body,
                                        .order = order},
                                       {.path = "spheres/velocity",
                                        .type = DEM_H5_F64,
                                        .rows = N,
                                        .cols = 3,
                                        .row = computed_row,
                                        .ctx = &scale,
                                        .order = order},
                                       {.path = "spheres/radius",
                                        .type = DEM_H5_F64,
                                        .rows = N,
                                        .cols = 3,
                                        .row = computed_row,
                                        .ctx = &scale}};
  struct dem_snapshot s = {
      .step = 1, .time = 0.5, .n_spheres = N, .columns = cols, .n_columns = 4};
  tmp_path(path, sizeof path, "slabs.h5");
  ck_assert_int_eq(dem_h5_create(path, 0, &run_info, &w), DEM_OK);
  ck_assert_int_eq(dem_h5_snapshot_write(w, &s), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);
  ck_assert_int_eq(dem_h5_snapshot_open(path, -1, &snap, &info), DEM_OK);
  for (int c = 0; c < 4; c++) {
    size_t rows = N, width = cols[c].cols; /* the shape expected */
    void *data = NULL;
    ck_assert_int_eq(dem_h5_snapshot_read(snap, cols[c].path, cols[c].type,
                                          &rows, &width, &data),
                     DEM_OK);
    ck_assert_uint_eq(rows, N);
    ck_assert_uint_eq(width, cols[c].cols);
    for (size_t k = 0; k < N; k++) {
      size_t i = cols[c].order ? order[k] : k;
      if (cols[c].type == DEM_H5_I32) {
        ck_assert_int_eq(((int *)data)[k], body[i]);
        continue;
      }
      double want[3];
      if (cols[c].row)
        computed_row(&scale, i, want);
      else
        memcpy(want, x[i], sizeof want);
      ck_assert_mem_eq((double *)data + 3 * k, want, sizeof want);
    }
    free(data);
  }
  dem_h5_snapshot_close(snap);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Creating: overwrite protection and unwritable places                 */

START_TEST(test_refuse_overwrite) {
  char path[512], expected[600], xmf[512];
  struct dem_h5_writer *w;
  struct dem_energy_row row = energy_row(0, 1.0);
  struct dem_energy_series s;
  struct stat sb;

  tmp_path(path, sizeof path, "out.h5");
  tmp_path(xmf, sizeof xmf, "out.xmf");
  ck_assert_int_eq(dem_h5_create(path, 0, &run_info, &w), DEM_OK);
  ck_assert_int_eq(dem_h5_energy_append(w, &row, 1), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);

  ck_assert_int_eq(dem_h5_create(path, 0, &run_info, &w), DEM_ERR_IO);
  ck_assert_ptr_null(w);
  snprintf(expected, sizeof expected, "%s: exists (use --force to overwrite)",
           path);
  ck_assert_str_eq(dem_last_error(), expected);
  ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_OK); /* untouched */
  ck_assert_uint_eq(s.n, 1);
  dem_energy_series_free(&s);

  /* A stale sidecar goes away with the old file. */
  fclose(fopen(xmf, "w"));
  dem_error_clear();
  ck_assert_int_eq(dem_h5_create(path, 1, &run_info, &w), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);
  ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_OK);
  ck_assert_uint_eq(s.n, 0);
  dem_energy_series_free(&s);
  ck_assert_int_ne(stat(xmf, &sb), 0);
  ck_assert_int_eq(count_entries("."), 0);
}
END_TEST

START_TEST(test_unwritable_directory) {
  char dir[300], path[400], missing[600];
  struct dem_h5_writer *w;
  pid_t pid;
  int status;

  tmp_path(dir, sizeof dir, "ro");
  ck_assert_int_eq(mkdir(dir, 0555), 0);
  ck_assert_int_eq(chmod(tmpdir, 0755), 0);
  snprintf(path, sizeof path, "%s/out.h5", dir);

  /* In a child that is not root (root writes anywhere). */
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    char expected[1024];
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
      _exit(10);
    if (dem_h5_create(path, 0, &run_info, &w) != DEM_ERR_IO || w)
      _exit(11);
    snprintf(expected, sizeof expected,
             "%s: cannot create file in directory '%s' (Permission denied)",
             path, dir);
    if (strcmp(dem_last_error(), expected) != 0) {
      fprintf(stderr, "got: %s\n", dem_last_error());
      _exit(12);
    }
    _exit(0);
  }
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 0);
  ck_assert_int_eq(access(path, F_OK), -1);

  snprintf(missing, sizeof missing, "%s/no/such/dir/out.h5", tmpdir);
  ck_assert_int_eq(dem_h5_create(missing, 0, &run_info, &w), DEM_ERR_IO);
  ck_assert_ptr_nonnull(strstr(dem_last_error(), missing));
  ck_assert_ptr_nonnull(strstr(dem_last_error(), "No such file or directory"));

  dem_error_clear();
  ck_assert_int_eq(dem_h5_create(tmpdir, 1, &run_info, &w), DEM_ERR_IO);
  ck_assert_ptr_nonnull(strstr(dem_last_error(), "is a directory"));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Reading what is not a dem file                                       */

START_TEST(test_read_errors) {
  char path[512], expected[600];
  struct dem_energy_series s;
  struct dem_h5_snapshot *snap;
  struct dem_h5_snapshot_info info;
  hid_t f;
  FILE *txt;

  tmp_path(path, sizeof path, "missing.h5");
  ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_ERR_IO);
  snprintf(expected, sizeof expected, "%s: No such file or directory", path);
  ck_assert_str_eq(dem_last_error(), expected);

  tmp_path(path, sizeof path, "text.h5");
  txt = fopen(path, "w");
  fputs("not hdf5\n", txt);
  fclose(txt);
  dem_error_clear();
  ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_ERR_IO);
  ck_assert_ptr_nonnull(strstr(dem_last_error(), "cannot open as HDF5"));
  ck_assert_ptr_null(strstr(dem_last_error(), "unknown HDF5 error"));
  ck_assert_int_eq(strncmp(dem_last_error(), path, strlen(path)), 0);

  tmp_path(path, sizeof path, "other.h5");
  f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  H5Fclose(f);
  dem_error_clear();
  ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_ERR_IO);
  snprintf(expected, sizeof expected,
           "%s: not a dem output file (no dem_version attribute)", path);
  ck_assert_str_eq(dem_last_error(), expected);
  dem_error_clear();
  ck_assert_int_eq(dem_h5_snapshot_open(path, -1, &snap, &info), DEM_ERR_IO);
}
END_TEST

/* ------------------------------------------------------------------ */
/* `dem energy`                                                         */

/* Runs dem_cmd_energy with stdout and stderr sent to files; returns its
 * result and leaves the outputs in out/err (NUL-terminated). */
static int run_energy(int argc, char **argv, char *out, char *err,
                      size_t size) {
  char opath[512], epath[512];
  int saved_out = dup(1), saved_err = dup(2), rc, fd;
  FILE *f;
  size_t n;
  tmp_path(opath, sizeof opath, "stdout.txt");
  tmp_path(epath, sizeof epath, "stderr.txt");
  fflush(stdout);
  fflush(stderr);
  fd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 1);
  close(fd);
  fd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 2);
  close(fd);
  rc = dem_cmd_energy(argc, argv);
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  f = fopen(opath, "r");
  n = fread(out, 1, size - 1, f);
  out[n] = '\0';
  fclose(f);
  f = fopen(epath, "r");
  n = fread(err, 1, size - 1, f);
  err[n] = '\0';
  fclose(f);
  return rc;
}

START_TEST(test_cmd_energy) {
  char a[512], b[512], missing[512], out[4096], err[4096];
  struct dem_h5_writer *w;
  struct dem_energy_row rows[4] = {energy_row(0, 10.0), energy_row(1, 10.1),
                                   energy_row(2, 9.8), energy_row(3, 10.05)};
  char csv[] = "--csv", help[] = "--help", name[] = "energy";

  tmp_path(a, sizeof a, "a.h5");
  tmp_path(b, sizeof b, "b_with_a_longer_name.h5");
  tmp_path(missing, sizeof missing, "missing.h5");
  ck_assert_int_eq(dem_h5_create(a, 0, &run_info, &w), DEM_OK);
  ck_assert_int_eq(dem_h5_energy_append(w, rows, 4), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);
  ck_assert_int_eq(dem_h5_create(b, 0, &run_info, &w), DEM_OK);
  ck_assert_int_eq(dem_h5_close(w), DEM_OK);
  {
    char *argv[] = {name, a, NULL};
    ck_assert_int_eq(run_energy(2, argv, out, err, sizeof out), 0);
    ck_assert_str_eq(err, "");
    ck_assert_ptr_nonnull(strstr(out, "max_dev_%"));
    ck_assert_ptr_nonnull(strstr(out, "0.875"));
    ck_assert_ptr_nonnull(strstr(out, "10.05"));
  }
  {
    char *argv[] = {name, a, csv, NULL};
    char expected[1024];
    ck_assert_int_eq(run_energy(3, argv, out, err, sizeof out), 0);
    snprintf(expected, sizeof expected,
             "file,rows,t_end,e0,e_end,max_rel_dev_percent,"
             "mean_rel_dev_percent,final_drift_percent,dissipated_end,"
             "max_balance_percent,final_balance_percent\n%s,4,1.5,10,10.05,",
             a);
    /* The balance adds the work dissipated since the first row: E + W
     * goes from 10 + 0.7 to 10.05 + 0.7035, +0.535 % of E0. */
    ck_assert_ptr_nonnull(strstr(out, ",0.7035"));
    ck_assert_ptr_nonnull(strstr(out, ",0.535"));
    ck_assert_int_eq(strncmp(out, expected, strlen(expected)), 0);
  }
  {
    char *argv[] = {name, a, b, missing, NULL};
    ck_assert_int_eq(run_energy(4, argv, out, err, sizeof out), 1);
    ck_assert_ptr_nonnull(
        strstr(err, "b_with_a_longer_name.h5: no energy rows"));
    ck_assert_ptr_nonnull(strstr(err, "missing.h5: No such file or directory"));
    ck_assert_ptr_nonnull(strstr(out, "a.h5"));
  }
  {
    char *argv[] = {name, help, NULL};
    ck_assert_int_eq(run_energy(2, argv, out, err, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "usage: dem energy"));
  }
  {
    char *argv[] = {name, NULL};
    ck_assert_int_ne(run_energy(1, argv, out, err, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(err, "usage: dem energy"));
  }
}
END_TEST

/* ------------------------------------------------------------------ */
/* A writer killed with SIGKILL leaves every completed snapshot readable */

/* DEM_H5_KILL_TRIALS=N sets the number of kills (default 25; 6000 passed
 * when the layout was settled), DEM_H5_KILL_KEEP=DIR keeps failing files. */
enum { KILL_BODIES = 400, KILL_PER_BODY = 3, KILL_AUX = 4, KILL_ROWS = 100 };

/* The rows of [0, n) of /energy's columns that plain HDF5 reads as fill
 * values (a chunk its index does not find), -1 when a read fails. */
static long plain_fill_rows(const char *path, size_t n) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  double *x = malloc((n ? n : 1) * sizeof *x), fill = dem_h5u_energy_fill();
  long found = file < 0 || !x ? -1 : 0;
  for (int c = 1; c < DEM_H5U_ENERGY_N && found >= 0; c++) {
    char name[64];
    snprintf(name, sizeof name, "energy/%s", dem_h5u_energy_columns[c].name);
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0 || dem_h5u_read_rows(ds, 0, n, 0, H5T_NATIVE_DOUBLE, x) < 0)
      found = -1;
    for (size_t i = 0; i < n && found >= 0; i++)
      found += memcmp(&x[i], &fill, sizeof fill) == 0;
    if (ds >= 0)
      H5Dclose(ds);
  }
  free(x);
  if (file >= 0)
    H5Fclose(file);
  return found;
}

/* Appends energy rows [first, first + n) to w, row i's total i + shift. */
static dem_status kill_rows(struct dem_h5_writer *w, long first, int n,
                            double shift) {
  struct dem_energy_row rows[KILL_ROWS];
  for (int j = 0; j < n; j++) {
    rows[j] = energy_row(first + j, (double)(first + j) + shift);
    rows[j].wall_work = rows[j].inserted = shift; /* every column differs */
  }
  return dem_h5_energy_append(w, rows, (size_t)n);
}

/* The child: writes energy rows and snapshots, reporting each completed
 * snapshot index on fd, until killed or, with iterations >= 0, that many
 * of each; then it closes the file and exits (exit, not _exit: a preloaded
 * tests/kill_writes.c counts the writes at exit). */
static void kill_child(const char *path, int fd, long iterations) {
  struct dem_h5_writer *w;
  if (dem_h5_create(path, 1, &run_info, &w) != DEM_OK)
    _exit(3);
  for (long k = 0; iterations < 0 || k < iterations; k++) {
    struct snapbuf b;
    struct dem_snapshot s;
    dem_status st;
    snapbuf_init(&b, KILL_BODIES, KILL_PER_BODY, KILL_AUX, k);
    s = snapbuf_view(&b, k, 1);
    st = kill_rows(w, k * KILL_ROWS, KILL_ROWS, 0);
    if (st == DEM_OK)
      st = dem_h5_snapshot_write(w, &s);
    snapbuf_free(&b);
    if (st != DEM_OK)
      _exit(4);
    if (write(fd, &k, sizeof k) != (ssize_t)sizeof k)
      _exit(5);
  }
  exit(dem_h5_close(w) == DEM_OK ? 0 : 6);
}

/* Forks kill_child; its reports come on *fd. */
static pid_t start_child(const char *path, long iterations, int *fd) {
  int fds[2];
  pid_t pid;
  if (pipe(fds) != 0)
    return -1;
  pid = fork();
  if (pid == 0) {
    close(fds[0]);
    kill_child(path, fds[1], iterations);
  }
  close(fds[1]);
  if (pid < 0)
    close(fds[0]);
  *fd = fds[0];
  return pid;
}

/* 0 when the file left by a child that reported snapshots up to acked
 * holds what it must: every reported snapshot and energy append exact,
 * of the ones a kill cut short at most the next snapshot and a prefix of
 * whole rows of the next append. */
static int check_killed(const char *path, long acked) {
  struct dem_h5_snapshot *snap;
  struct dem_h5_snapshot_info info;
  struct dem_energy_series s;
  int bad = 0;

  dem_error_clear();
  if (dem_h5_snapshot_open(path, -1, &snap, &info) != DEM_OK) {
    fprintf(stderr, "kill trial: %s\n", dem_last_error());
    return 1;
  }
  dem_h5_snapshot_close(snap);
  if (info.index < acked || info.index > acked + 1)
    bad = 2;
  for (long i = 0; i <= info.index && !bad; i++) {
    struct snapbuf b;
    snapbuf_init(&b, KILL_BODIES, KILL_PER_BODY, KILL_AUX, i);
    if (snapshot_differs(path, i, &b, i, 1))
      bad = 4;
    snapbuf_free(&b);
  }
  if (bad)
    return bad;
  if (dem_h5_read_energy(path, &s) != DEM_OK) {
    fprintf(stderr, "kill trial: %s\n", dem_last_error());
    return 5;
  }
  if (s.n < (size_t)(acked + 1) * KILL_ROWS ||
      s.n > (size_t)(acked + 2) * KILL_ROWS)
    bad = 6;
  for (size_t i = 0; i < s.n && !bad; i++)
    if (s.step[i] != (long)i || s.total[i] != (double)i)
      bad = 7;
  dem_energy_series_free(&s);
  return bad;
}

/* One trial, killed after a random snapshot and delay; returns 0 when the
 * killed file holds what it must. */
static int kill_trial(const char *path, unsigned *seed) {
  long k = -1, acked = -1, target = (long)(rand_r(seed) % 12);
  unsigned delay_us = (unsigned)(rand_r(seed) % 4000);
  int fd;
  pid_t pid = start_child(path, -1, &fd);

  if (pid < 0)
    return 100;
  while (acked < target && read(fd, &k, sizeof k) == (ssize_t)sizeof k)
    acked = k;
  if (acked < target) {
    close(fd);
    waitpid(pid, NULL, 0);
    return 102; /* the child failed on its own */
  }
  nanosleep(&(struct timespec){0, 1000L * (long)delay_us}, NULL);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  while (read(fd, &k, sizeof k) == (ssize_t)sizeof k)
    acked = k;
  close(fd);
  return check_killed(path, acked);
}

/* A child of DEM_H5_TEAR_ITERATIONS appends and snapshots (default 11:
 * the 11th append adds each energy column's second chunk) that either
 * ends or is killed by tests/kill_writes.c at the write that
 * tests/cli_h5_tear.sh names (torn, if it says so, at a page boundary of
 * the file): the file holds what it must, and all of it if the child
 * ended. */
START_TEST(test_torn_write_leaves_readable_file) {
  char path[512];
  const char *env = getenv("DEM_H5_TEAR_ITERATIONS");
  long iterations = env ? atol(env) : 11, k = -1, acked = -1;
  int fd, status = 0, r;
  pid_t pid;
  tmp_path(path, sizeof path, "torn.h5");
  pid = start_child(path, iterations, &fd);
  ck_assert_int_gt(pid, 0);
  while (read(fd, &k, sizeof k) == (ssize_t)sizeof k)
    acked = k;
  close(fd);
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  if (WIFSIGNALED(status))
    ck_assert_int_eq(WTERMSIG(status), SIGKILL);
  else
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
                      acked == iterations - 1,
                  "the child failed on its own");
  r = check_killed(path, acked);
  if (r && getenv("DEM_H5_KILL_KEEP")) {
    char kept[1024];
    snprintf(kept, sizeof kept, "%s/torn.h5", getenv("DEM_H5_KILL_KEEP"));
    rename(path, kept);
  }
  ck_assert_msg(r == 0, "the file left at snapshot %ld: code %d", acked, r);
  if (!WIFSIGNALED(status)) {
    struct dem_energy_series s;
    ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_OK);
    ck_assert_uint_eq(s.n, (size_t)iterations * KILL_ROWS);
    dem_energy_series_free(&s);
  }
  /* A restart from the last snapshot goes on: every energy row reads
   * back, with plain HDF5 too (truncating the series to the snapshot's
   * step removes the chunk whose insertion a kill tore, and the index
   * node is written whole again). Its writes are this process's, which
   * tests/kill_writes.c (preloaded by tests/cli_h5_tear.sh) neither kills nor
   * counts. */
  unsetenv("DEM_KILL_AT_WRITE");
  unsetenv("DEM_WRITES_COUNT");
  {
    struct dem_h5_snapshot *snap;
    struct dem_h5_snapshot_info info;
    struct dem_h5_writer *w = NULL;
    struct dem_energy_series s;
    long first;
    ck_assert_int_eq(dem_h5_snapshot_open(path, -1, &snap, &info), DEM_OK);
    dem_h5_snapshot_close(snap);
    ck_assert_int_eq(dem_h5_open_append(path, info.step, &run_info, &w),
                     DEM_OK);
    first = info.step + 1;
    /* rows unlike the killed run's, so that none reads back by chance */
    ck_assert_int_eq(kill_rows(w, first, KILL_ROWS, 0.5), DEM_OK);
    ck_assert_int_eq(kill_rows(w, first + KILL_ROWS, KILL_ROWS, 0.5), DEM_OK);
    ck_assert_int_eq(dem_h5_close(w), DEM_OK);
    ck_assert_int_eq(dem_h5_read_energy(path, &s), DEM_OK);
    ck_assert_uint_eq(s.n, (size_t)(first + 2 * KILL_ROWS));
    for (size_t i = 0; i < s.n; i++)
      ck_assert_msg(s.step[i] == (long)i &&
                        s.total[i] == (double)i + ((long)i < first ? 0 : 0.5) &&
                        s.wall_work[i] == ((long)i < first ? 0 : 0.5),
                    "energy row %zu after the restart", i);
    ck_assert_int_eq(plain_fill_rows(path, s.n), 0);
    dem_energy_series_free(&s);
  }
}
END_TEST

START_TEST(test_sigkill_leaves_readable_file) {
  char path[512];
  const char *env = getenv("DEM_H5_KILL_TRIALS");
  int trials = env ? atoi(env) : 25, failures = 0;
  unsigned seed = (unsigned)time(NULL);
  tmp_path(path, sizeof path, "killed.h5");
  for (int t = 0; t < trials; t++) {
    int r = kill_trial(path, &seed);
    if (r) {
      const char *keep = getenv("DEM_H5_KILL_KEEP"); /* a directory */
      fprintf(stderr, "kill trial %d failed (code %d)\n", t, r);
      failures++;
      if (keep) {
        char kept[1024];
        snprintf(kept, sizeof kept, "%s/killed_%d.h5", keep, t);
        rename(path, kept);
      }
    }
  }
  ck_assert_int_eq(failures, 0);
}
END_TEST

static Suite *h5io_suite(void) {
  Suite *s = suite_create("h5io");
  TCase *tc = tcase_create("core");
  TCase *kill_tc = tcase_create("sigkill");
  TCase *tear_tc = tcase_create("tear");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_energy_summary);
  tcase_add_test(tc, test_energy_many_rows);
  tcase_add_test(tc, test_energy_fill_rows_dropped);
  tcase_add_test(tc, test_summary_edge_cases);
  tcase_add_test(tc, test_snapshot_roundtrip);
  tcase_add_test(tc, test_empty_snapshot);
  tcase_add_test(tc, test_snapshot_columns_in_slabs);
  tcase_add_test(tc, test_refuse_overwrite);
  tcase_add_test(tc, test_unwritable_directory);
  tcase_add_test(tc, test_read_errors);
  tcase_add_test(tc, test_cmd_energy);
  suite_add_tcase(s, tc);
  tcase_add_checked_fixture(kill_tc, setup, teardown);
  tcase_add_test(kill_tc, test_sigkill_leaves_readable_file);
  tcase_set_timeout(kill_tc, 600);
  suite_add_tcase(s, kill_tc);
  tcase_add_checked_fixture(tear_tc, setup, teardown);
  tcase_add_test(tear_tc, test_torn_write_leaves_readable_file);
  suite_add_tcase(s, tear_tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(h5io_suite());
  int failed;
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
