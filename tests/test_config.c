/* Tests of the YAML config module: tree, getters, messages, --set, emit. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"

/* Columns are easier to check against a listing:
 *          1111111111222222222233333333334444444444555555555566666666667
 * 1234567890123456789012345678901234567890123456789012345678901234567890 */
static const char BOX[] =
    "simulation:\n"          /* 1 */
    "  time_step: 38.0e-6\n" /* 2 */
    "  end_time: 20\n"       /* 3 */
    "  seed: 7\n"            /* 4 */
    "  verbose: yes\n"       /* 5 */
    "  name: abc\n"          /* 6 */
    "shapes:\n"              /* 7 */
    "  rod:\n"               /* 8 */
    "    material: glass\n"  /* 9 */
    "    radus: 0.035\n"     /* 10 */
    "    spheres: [{center: [-0.07, 0, 0], radius: 0.035}, {center: [0, 0, "
    "0], radius: 0.035}]\n"                      /* 11 */
    "particles:\n"                               /* 12 */
    "  - random_fill: {shape: rod, count: 30}\n" /* 13 */
    "contact: {model: herz, skin: -0.005, center: [1, x, 3], pair: [1, 2]}\n"
    /* 14 */;

static struct dem_config *load(const char *text) {
  struct dem_config *cfg = NULL;
  dem_error_clear();
  dem_status st = dem_config_load_string("box.yaml", text, &cfg);
  ck_assert_msg(st == DEM_OK, "load failed: %s", dem_last_error());
  ck_assert_ptr_nonnull(cfg);
  return cfg;
}

/* The call failed with `want` and exactly this message. */
static void expect_msg(dem_status st, dem_status want, const char *msg) {
  ck_assert_int_eq(st, want);
  ck_assert_str_eq(dem_last_error(), msg);
  dem_error_clear();
}

/* The call failed with `want` and a message containing `part`. */
static void expect_part(dem_status st, dem_status want, const char *part) {
  ck_assert_int_eq(st, want);
  ck_assert_msg(strstr(dem_last_error(), part) != NULL,
                "message '%s' lacks '%s'", dem_last_error(), part);
  dem_error_clear();
}

static void expect_load_error(const char *text, const char *msg) {
  struct dem_config *cfg = (struct dem_config *)1;
  dem_error_clear();
  expect_msg(dem_config_load_string("bad.yaml", text, &cfg), DEM_ERR_CONFIG,
             msg);
  ck_assert_ptr_null(cfg);
}

static void assert_pos(const struct dem_node *n, int line, int col) {
  ck_assert_ptr_nonnull(n);
  ck_assert_int_eq(dem_node_line(n), line);
  ck_assert_int_eq(dem_node_col(n), col);
}

/* ---- the tree ---- */

START_TEST(test_tree_nested) {
  struct dem_config *cfg = load(BOX);
  const struct dem_node *root = cfg->root;
  ck_assert_str_eq(cfg->path, "box.yaml");
  ck_assert_int_eq(dem_node_kind(root), DEM_NODE_MAPPING);
  ck_assert_uint_eq(dem_node_size(root), 4);
  ck_assert_str_eq(dem_node_key_at(root, 0), "simulation");
  ck_assert_str_eq(dem_node_key_at(root, 1), "shapes");
  ck_assert_str_eq(dem_node_key_at(root, 2), "particles");
  ck_assert_str_eq(dem_node_key_at(root, 3), "contact");
  assert_pos(dem_node_key_node_at(root, 3), 14, 1);

  const struct dem_node *sim = dem_node_get(root, "simulation");
  ck_assert_ptr_eq(sim, dem_node_at(root, 0));
  assert_pos(sim, 2, 3);
  const struct dem_node *dt = dem_node_get(sim, "time_step");
  ck_assert_int_eq(dem_node_kind(dt), DEM_NODE_SCALAR);
  ck_assert_str_eq(dem_node_scalar(dt), "38.0e-6"); /* raw text */
  ck_assert_str_eq(dem_node_file(dt), "box.yaml");
  assert_pos(dt, 2, 14);
  assert_pos(dem_node_key_node_at(sim, 0), 2, 3);

  const struct dem_node *rod =
      dem_node_get(dem_node_get(root, "shapes"), "rod");
  assert_pos(rod, 9, 5);
  const struct dem_node *spheres = dem_node_get(rod, "spheres");
  ck_assert_int_eq(dem_node_kind(spheres), DEM_NODE_SEQUENCE);
  ck_assert_uint_eq(dem_node_size(spheres), 2);
  assert_pos(spheres, 11, 14);
  const struct dem_node *s0 = dem_node_at(spheres, 0);
  ck_assert_int_eq(dem_node_kind(s0), DEM_NODE_MAPPING);
  assert_pos(s0, 11, 15);
  const struct dem_node *center = dem_node_get(s0, "center");
  assert_pos(center, 11, 24);
  ck_assert_str_eq(dem_node_scalar(dem_node_at(center, 0)), "-0.07");
  assert_pos(dem_node_at(center, 0), 11, 25);

  const struct dem_node *parts = dem_node_get(root, "particles");
  ck_assert_int_eq(dem_node_kind(parts), DEM_NODE_SEQUENCE);
  assert_pos(parts, 13, 3);
  const struct dem_node *fill =
      dem_node_get(dem_node_at(parts, 0), "random_fill");
  assert_pos(dem_node_at(parts, 0), 13, 5);
  assert_pos(fill, 13, 18);
  assert_pos(dem_node_get(fill, "count"), 13, 38);
  ck_assert_str_eq(dem_node_scalar(dem_node_get(fill, "count")), "30");
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_tree_null_safe) {
  struct dem_config *cfg = load("a: [1, 2]\nb: x\n");
  const struct dem_node *a = dem_node_get(cfg->root, "a");
  ck_assert_ptr_null(dem_node_get(NULL, "a"));
  ck_assert_ptr_null(dem_node_get(cfg->root, NULL));
  ck_assert_ptr_null(dem_node_get(cfg->root, "zz"));
  ck_assert_ptr_null(dem_node_get(a, "0")); /* not a mapping */
  ck_assert_ptr_null(dem_node_at(NULL, 0));
  ck_assert_ptr_null(dem_node_at(a, 2));
  ck_assert_ptr_nonnull(dem_node_at(a, 1));
  ck_assert_ptr_null(dem_node_at(dem_node_get(cfg->root, "b"), 0));
  ck_assert_ptr_null(dem_node_key_at(a, 0));
  ck_assert_ptr_null(dem_node_key_at(NULL, 0));
  ck_assert_ptr_null(dem_node_key_at(cfg->root, 2));
  ck_assert_ptr_null(dem_node_key_node_at(NULL, 0));
  ck_assert_ptr_null(dem_node_scalar(NULL));
  ck_assert_ptr_null(dem_node_scalar(a));
  ck_assert_uint_eq(dem_node_size(NULL), 0);
  ck_assert_uint_eq(dem_node_size(dem_node_get(cfg->root, "b")), 0);
  ck_assert_int_eq(dem_node_line(NULL), 0);
  ck_assert_int_eq(dem_node_col(NULL), 0);
  ck_assert_str_eq(dem_node_file(NULL), "");
  ck_assert_ptr_null(dem_node_emit(NULL));
  ck_assert_ptr_null(dem_config_emit(NULL));
  dem_config_free(NULL);
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_tree_scalar_styles) {
  struct dem_config *cfg = load("a: 'q x'\nb: \"d\\ty\"\nc:\nd: |\n  l1\n  "
                                "l2\ne: >\n  f1\n  f2\nf: ~\n");
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "a")), "q x");
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "b")), "d\ty");
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "c")), "");
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "d")), "l1\nl2\n");
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "e")), "f1 f2\n");
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "f")), "~");
  dem_config_free(cfg);
}
END_TEST

/* ---- load failures ---- */

START_TEST(test_load_malformed) {
  expect_load_error("a: 1\nb: [1, 2\nc: 3\n",
                    "bad.yaml:3:2: did not find expected ',' or ']' (while "
                    "parsing a flow sequence at line 2, column 4)");
  expect_load_error("a: 1\n b: 2\n",
                    "bad.yaml:2:3: mapping values are not allowed in this "
                    "context");
  expect_load_error("a:\n  b: 1\n c: 2\n",
                    "bad.yaml:3:2: did not find expected key (while parsing "
                    "a block mapping at line 1, column 1)");
  expect_load_error("a: \"x\xff\"\n",
                    "bad.yaml:1:6: invalid leading UTF-8 octet (byte 0xFF)");
}
END_TEST

START_TEST(test_load_duplicate_key) {
  expect_load_error("a: 1\nb:\n  x: 1\n  y: 2\n  x: 3\n",
                    "bad.yaml:5:3: duplicate key 'x' (first at line 3, "
                    "column 3)");
  expect_load_error("a: 1\na: 1\n", "bad.yaml:2:1: duplicate key 'a' (first "
                                    "at line 1, column 1)");
  expect_load_error("p: {u: 1, u: 2}\n", "bad.yaml:1:11: duplicate key 'u' "
                                         "(first at line 1, column 5)");
}
END_TEST

START_TEST(test_load_rejects) {
  expect_load_error("a: &x 1\nb: *x\n", "bad.yaml:1:4: anchors (&x) are not "
                                        "supported; write the value out");
  expect_load_error("a: *x\n", "bad.yaml:1:4: aliases (*x) are not "
                               "supported; write the value out");
  expect_load_error("a: !!str 1\n", "bad.yaml:1:4: tags "
                                    "(tag:yaml.org,2002:str) are not "
                                    "supported");
  expect_load_error("- 1\n- 2\n", "bad.yaml:1:1: expected a mapping of "
                                  "sections at the top level, found a list");
  expect_load_error("just text\n", "bad.yaml:1:1: expected a mapping of "
                                   "sections at the top level, found 'just "
                                   "text'");
  expect_load_error("", "bad.yaml:1:1: expected a mapping of sections at the "
                        "top level, found nothing");
  expect_load_error("# only a comment\n",
                    "bad.yaml:1:1: expected a mapping of sections at the "
                    "top level, found nothing");
  expect_load_error("a: 1\n---\nb: 2\n", "bad.yaml:2:1: more than one YAML "
                                         "document; a config is one "
                                         "document");
  expect_load_error("? [a]\n: 1\n", "bad.yaml:1:3: mapping keys must be "
                                    "plain words, not lists, mappings or "
                                    "aliases");
}
END_TEST

START_TEST(test_load_deep_nesting) {
  char text[2000] = "a: ";
  for (int i = 0; i < 300; i++)
    strcat(text, "[");
  expect_load_error(text, "bad.yaml:1:260: nesting deeper than 256 levels");
}
END_TEST

START_TEST(test_load_missing_file) {
  struct dem_config *cfg = (struct dem_config *)1;
  dem_error_clear();
  expect_msg(dem_config_load("/nonexistent-dir/box.yaml", &cfg), DEM_ERR_CONFIG,
             "/nonexistent-dir/box.yaml: cannot open: No such file or "
             "directory");
  ck_assert_ptr_null(cfg);
  expect_msg(dem_config_load("/", &cfg), DEM_ERR_CONFIG,
             "/: cannot open: it is a directory");
}
END_TEST

/* Only regular files are read, and only up to the size limit: a device or a
 * FIFO would never end (or never start). */
START_TEST(test_load_special_files) {
  struct dem_config *cfg = (struct dem_config *)1;
  dem_error_clear();
  expect_msg(dem_config_load("/dev/zero", &cfg), DEM_ERR_CONFIG,
             "/dev/zero: cannot open: it is a character device, not a "
             "regular file");
  ck_assert_ptr_null(cfg);
  char dir[] = "/tmp/test_config_XXXXXX", path[64], want[128];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/fifo.yaml", dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  snprintf(want, sizeof want,
           "%s: cannot open: it is a FIFO, not a regular file", path);
  expect_msg(dem_config_load(path, &cfg), DEM_ERR_CONFIG, want);
  unlink(path);
  /* One byte more than the limit (a sparse file: nothing is written). */
  snprintf(path, sizeof path, "%s/huge.yaml", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ftruncate(fileno(f), DEM_CONFIG_MAX_BYTES + 1), 0);
  fclose(f);
  snprintf(want, sizeof want,
           "%s: cannot open: it is larger than the limit of 16 MiB (16.0 "
           "MiB)",
           path);
  expect_msg(dem_config_load(path, &cfg), DEM_ERR_CONFIG, want);
  unlink(path);
  rmdir(dir);
}
END_TEST

/* A mapping of many keys: every key found, the duplicate found at once, a
 * key added by --set found too. Key by key, the duplicate check alone made
 * this 200,000^2 / 2 string comparisons (more than a minute). */
START_TEST(test_many_keys) {
  const size_t n = 200000;
  char *text = malloc(n * 24 + 64);
  size_t len = 0;
  for (size_t i = 0; i < n; i++)
    len += (size_t)sprintf(text + len, "key_%zu: %zu\n", i, i);
  struct dem_config *cfg = load(text);
  ck_assert_uint_eq(dem_node_size(cfg->root), n);
  for (size_t i = 0; i < n; i += 997) {
    char key[32];
    snprintf(key, sizeof key, "key_%zu", i);
    ck_assert_uint_eq(dem_node_find(cfg->root, key), i);
    ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, key)), key + 4);
  }
  ck_assert_uint_eq(dem_node_find(cfg->root, "key_200000"), SIZE_MAX);
  ck_assert_ptr_null(dem_node_get(cfg->root, "key_"));
  ck_assert_str_eq(dem_node_closest_key(cfg->root, "key_199999x"),
                   "key_199999");
  ck_assert_int_eq(dem_config_set(cfg, "added=7"), DEM_OK);
  ck_assert_uint_eq(dem_node_find(cfg->root, "added"), n);
  ck_assert_int_eq(dem_config_set(cfg, "key_123456=8"), DEM_OK);
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "key_123456")), "8");
  ck_assert_uint_eq(dem_node_size(cfg->root), n + 1);
  dem_config_free(cfg);
  /* The same keys and the 150,000th again at the end. */
  len += (size_t)sprintf(text + len, "key_149999: again\n");
  char want[96];
  snprintf(want, sizeof want,
           "bad.yaml:%zu:1: duplicate key 'key_149999' (first at line "
           "150000, column 1)",
           n + 1);
  expect_load_error(text, want);
  free(text);
}
END_TEST

/* Writes text to a fresh temporary file; returns its name (static). */
static const char *temp_file(const char *text) {
  static char name[64];
  snprintf(name, sizeof name, "/tmp/test_config_XXXXXX");
  int fd = mkstemp(name);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return name;
}

START_TEST(test_load_file) {
  /* Longer than one read buffer, to read in several pieces. */
  size_t n = 3000;
  char *text = malloc(n * 16 + 32);
  strcpy(text, "list:\n");
  for (size_t i = 0; i < n; i++)
    sprintf(text + strlen(text), "  - %zu\n", i);
  strcat(text, "end: {x: oops}\n");
  const char *name = temp_file(text);
  free(text);
  struct dem_config *cfg = NULL;
  dem_error_clear();
  ck_assert_int_eq(dem_config_load(name, &cfg), DEM_OK);
  ck_assert_str_eq(cfg->path, name);
  const struct dem_node *list = dem_node_get(cfg->root, "list");
  ck_assert_uint_eq(dem_node_size(list), n);
  ck_assert_str_eq(dem_node_scalar(dem_node_at(list, 2999)), "2999");
  const struct dem_node *end = dem_node_get(cfg->root, "end");
  ck_assert_str_eq(dem_node_file(end), name);
  double x;
  char want[200];
  snprintf(want, sizeof want,
           "%s:3002:10: key 'x': expected a number, found 'oops'", name);
  expect_msg(dem_cfg_double(end, "x", 1, 0, DEM_ANY, &x), DEM_ERR_CONFIG, want);
  dem_config_free(cfg);
  unlink(name);
}
END_TEST

/* ---- getters ---- */

START_TEST(test_double_ok) {
  struct dem_config *cfg =
      load("a: 1e-3\nb: 38.0e-6\nc: .5\nd: -2\ne: +3\nf: '1.25'\ng: 0\n"
           "h: 1e-400\n");
  const struct dem_node *r = cfg->root;
  double v = -99;
  ck_assert_int_eq(dem_cfg_double(r, "a", 1, 0, DEM_ANY, &v), DEM_OK);
  ck_assert_double_eq(v, 1e-3);
  ck_assert_int_eq(dem_cfg_double(r, "b", 1, 0, DEM_POSITIVE, &v), DEM_OK);
  ck_assert_double_eq(v, 38.0e-6);
  ck_assert_int_eq(dem_cfg_double(r, "c", 1, 0, DEM_ANY, &v), DEM_OK);
  ck_assert_double_eq(v, 0.5);
  ck_assert_int_eq(dem_cfg_double(r, "d", 1, 0, DEM_ANY, &v), DEM_OK);
  ck_assert_double_eq(v, -2.0);
  ck_assert_int_eq(dem_cfg_double(r, "e", 1, 0, DEM_ANY, &v), DEM_OK);
  ck_assert_double_eq(v, 3.0);
  ck_assert_int_eq(dem_cfg_double(r, "f", 1, 0, DEM_ANY, &v), DEM_OK);
  ck_assert_double_eq(v, 1.25);
  ck_assert_int_eq(dem_cfg_double(r, "g", 1, 0, DEM_NONNEGATIVE, &v), DEM_OK);
  ck_assert_double_eq(v, 0.0);
  ck_assert_int_eq(dem_cfg_double(r, "h", 1, 0, DEM_ANY, &v), DEM_OK);
  ck_assert(v >= 0.0 && v < 1e-300);
  /* Absent: the default, also for an absent section. */
  ck_assert_int_eq(dem_cfg_double(r, "zz", 0, 4.5, DEM_ANY, &v), DEM_OK);
  ck_assert_double_eq(v, 4.5);
  ck_assert_int_eq(dem_cfg_double(NULL, "zz", 0, 5.5, DEM_ANY, &v), DEM_OK);
  ck_assert_double_eq(v, 5.5);
  ck_assert_str_eq(dem_last_error(), "");
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_double_errors) {
  struct dem_config *cfg = load(BOX);
  const struct dem_node *sim = dem_node_get(cfg->root, "simulation");
  const struct dem_node *contact = dem_node_get(cfg->root, "contact");
  double v = 7.0;
  expect_msg(dem_cfg_double(sim, "name", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "box.yaml:6:9: key 'name': expected a number, found 'abc'");
  expect_msg(dem_cfg_double(contact, "skin", 1, 0, DEM_POSITIVE, &v),
             DEM_ERR_CONFIG,
             "box.yaml:14:30: key 'skin': must be > 0, found -0.005");
  expect_msg(dem_cfg_double(contact, "center", 1, 0, DEM_ANY, &v),
             DEM_ERR_CONFIG,
             "box.yaml:14:46: key 'center': expected a number, found a list");
  expect_msg(dem_cfg_double(cfg->root, "simulation", 1, 0, DEM_ANY, &v),
             DEM_ERR_CONFIG,
             "box.yaml:2:3: key 'simulation': expected a number, found a "
             "mapping");
  expect_msg(dem_cfg_double(sim, "gravity", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "box.yaml:2:3: missing required key 'gravity' in 'simulation'");
  expect_msg(dem_cfg_double(contact, "e", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "box.yaml:14:10: missing required key 'e' in 'contact'");
  expect_msg(dem_cfg_double(cfg->root, "output", 1, 0, DEM_ANY, &v),
             DEM_ERR_CONFIG, "box.yaml:1:1: missing required key 'output'");
  expect_msg(dem_cfg_double(NULL, "x", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "missing required key 'x'");
  expect_msg(
      dem_cfg_double(dem_node_get(contact, "center"), "x", 0, 0, DEM_ANY, &v),
      DEM_ERR_CONFIG,
      "box.yaml:14:46: expected a mapping holding key 'x', found a "
      "list");
  const struct dem_node *fill = dem_node_get(
      dem_node_at(dem_node_get(cfg->root, "particles"), 0), "random_fill");
  expect_msg(dem_cfg_double(fill, "speed", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "box.yaml:13:18: missing required key 'speed' in "
             "'particles.0.random_fill'");
  ck_assert_double_eq(v, 7.0); /* failures leave *out alone */
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_double_bad_forms) {
  struct dem_config *cfg =
      load("a: 1.0x\nb: ' 1'\nc: .inf\nd: -.Inf\ne: .nan\nf: inf\ng: nan\n"
           "h: 1e999\ni:\nj: 1 2\nk: ''\n");
  const struct dem_node *r = cfg->root;
  double v;
  expect_msg(dem_cfg_double(r, "a", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "box.yaml:1:4: key 'a': expected a number, found '1.0x'");
  expect_msg(dem_cfg_double(r, "b", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "box.yaml:2:4: key 'b': expected a number, found ' 1'");
  expect_msg(dem_cfg_double(r, "c", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "box.yaml:3:4: key 'c': expected a finite number, found '.inf'");
  expect_part(dem_cfg_double(r, "d", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
              "key 'd': expected a finite number, found '-.Inf'");
  expect_part(dem_cfg_double(r, "e", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
              "key 'e': expected a finite number, found '.nan'");
  expect_part(dem_cfg_double(r, "f", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
              "key 'f': expected a finite number, found 'inf'");
  expect_part(dem_cfg_double(r, "g", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
              "key 'g': expected a finite number, found 'nan'");
  expect_part(dem_cfg_double(r, "h", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
              "key 'h': expected a finite number, found '1e999'");
  expect_part(dem_cfg_double(r, "i", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
              "key 'i': expected a number, found an empty value");
  expect_part(dem_cfg_double(r, "j", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
              "key 'j': expected a number, found '1 2'");
  expect_part(dem_cfg_double(r, "k", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
              "key 'k': expected a number, found an empty value");
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_double_ranges) {
  struct dem_config *cfg = load("zero: 0\none: 1\nhalf: 0.5\nneg: -1\n"
                                "pi: 3.141592653589793\n");
  const struct dem_node *r = cfg->root;
  double v;
  struct dem_range unit_open = {0.0, 1.0, DEM_OPEN, DEM_OPEN};
  struct dem_range unit_closed = {0.0, 1.0, DEM_CLOSED, DEM_CLOSED};
  struct dem_range half_open = {0.0, 1.0, DEM_CLOSED, DEM_OPEN};
  struct dem_range below_pi = {-HUGE_VAL, 3.141592653589793, DEM_CLOSED,
                               DEM_OPEN};
  /* Closed ends admit the end, open ones do not. */
  ck_assert_int_eq(dem_cfg_double(r, "zero", 1, 0, unit_closed, &v), DEM_OK);
  ck_assert_double_eq(v, 0.0);
  ck_assert_int_eq(dem_cfg_double(r, "one", 1, 0, unit_closed, &v), DEM_OK);
  ck_assert_double_eq(v, 1.0);
  ck_assert_int_eq(dem_cfg_double(r, "half", 1, 0, unit_open, &v), DEM_OK);
  ck_assert_double_eq(v, 0.5);
  ck_assert_int_eq(dem_cfg_double(r, "zero", 1, 0, half_open, &v), DEM_OK);
  ck_assert_int_eq(dem_cfg_double(r, "zero", 1, 0, DEM_NONNEGATIVE, &v),
                   DEM_OK);
  expect_msg(dem_cfg_double(r, "zero", 1, 0, DEM_POSITIVE, &v), DEM_ERR_CONFIG,
             "box.yaml:1:7: key 'zero': must be > 0, found 0");
  expect_msg(dem_cfg_double(r, "zero", 1, 0, unit_open, &v), DEM_ERR_CONFIG,
             "box.yaml:1:7: key 'zero': must be > 0 and < 1, found 0");
  expect_msg(dem_cfg_double(r, "one", 1, 0, unit_open, &v), DEM_ERR_CONFIG,
             "box.yaml:2:6: key 'one': must be > 0 and < 1, found 1");
  expect_msg(dem_cfg_double(r, "one", 1, 0, half_open, &v), DEM_ERR_CONFIG,
             "box.yaml:2:6: key 'one': must be >= 0 and < 1, found 1");
  expect_msg(dem_cfg_double(r, "neg", 1, 0, DEM_NONNEGATIVE, &v),
             DEM_ERR_CONFIG, "box.yaml:4:6: key 'neg': must be >= 0, found -1");
  expect_msg(dem_cfg_double(r, "pi", 1, 0, below_pi, &v), DEM_ERR_CONFIG,
             "box.yaml:5:5: key 'pi': must be < 3.141592653589793, found "
             "3.141592653589793");
  /* A default is not range checked: it is the caller's own value. */
  ck_assert_int_eq(dem_cfg_double(r, "zz", 0, -1.0, DEM_POSITIVE, &v), DEM_OK);
  ck_assert_double_eq(v, -1.0);
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_long) {
  struct dem_config *cfg =
      load("a: 42\nb: -7\nc: +3\nd: 2.5\ne: 1e3\nf: 99999999999999999999\n"
           "g: [1]\nh: 0\ni: 0x10\nj: '12'\n");
  const struct dem_node *r = cfg->root;
  long v = -1;
  ck_assert_int_eq(dem_cfg_long(r, "a", 1, 0, LONG_MIN, LONG_MAX, &v), DEM_OK);
  ck_assert_int_eq(v, 42);
  ck_assert_int_eq(dem_cfg_long(r, "b", 1, 0, -10, 10, &v), DEM_OK);
  ck_assert_int_eq(v, -7);
  ck_assert_int_eq(dem_cfg_long(r, "c", 1, 0, 3, 3, &v), DEM_OK);
  ck_assert_int_eq(v, 3);
  ck_assert_int_eq(dem_cfg_long(r, "j", 1, 0, 0, 100, &v), DEM_OK);
  ck_assert_int_eq(v, 12);
  ck_assert_int_eq(dem_cfg_long(r, "zz", 0, 9, 0, 1, &v), DEM_OK);
  ck_assert_int_eq(v, 9);
  expect_msg(dem_cfg_long(r, "d", 1, 0, LONG_MIN, LONG_MAX, &v), DEM_ERR_CONFIG,
             "box.yaml:4:4: key 'd': expected an integer, found '2.5'");
  expect_part(dem_cfg_long(r, "e", 1, 0, LONG_MIN, LONG_MAX, &v),
              DEM_ERR_CONFIG, "key 'e': expected an integer, found '1e3'");
  expect_part(dem_cfg_long(r, "f", 1, 0, LONG_MIN, LONG_MAX, &v),
              DEM_ERR_CONFIG,
              "key 'f': integer out of range, found '99999999999999999999'");
  expect_part(dem_cfg_long(r, "g", 1, 0, LONG_MIN, LONG_MAX, &v),
              DEM_ERR_CONFIG, "key 'g': expected an integer, found a list");
  expect_part(dem_cfg_long(r, "i", 1, 0, LONG_MIN, LONG_MAX, &v),
              DEM_ERR_CONFIG, "key 'i': expected an integer, found '0x10'");
  expect_msg(dem_cfg_long(r, "h", 1, 0, 1, LONG_MAX, &v), DEM_ERR_CONFIG,
             "box.yaml:8:4: key 'h': must be >= 1, found 0");
  expect_msg(dem_cfg_long(r, "a", 1, 0, LONG_MIN, 10, &v), DEM_ERR_CONFIG,
             "box.yaml:1:4: key 'a': must be <= 10, found 42");
  expect_msg(dem_cfg_long(r, "a", 1, 0, 1, 10, &v), DEM_ERR_CONFIG,
             "box.yaml:1:4: key 'a': must be >= 1 and <= 10, found 42");
  expect_msg(dem_cfg_long(r, "zz", 1, 0, 1, 10, &v), DEM_ERR_CONFIG,
             "box.yaml:1:1: missing required key 'zz'");
  ck_assert_int_eq(v, 9);
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_bool) {
  struct dem_config *cfg = load("a: true\nb: false\nc: yes\nd: no\ne: on\n"
                                "f: off\ng: True\nh: maybe\ni: 1\n");
  const struct dem_node *r = cfg->root;
  const char *keys[] = {"a", "b", "c", "d", "e", "f", "g"};
  const int want[] = {1, 0, 1, 0, 1, 0, 1};
  for (int i = 0; i < 7; i++) {
    int v = -1;
    ck_assert_int_eq(dem_cfg_bool(r, keys[i], 1, 0, &v), DEM_OK);
    ck_assert_int_eq(v, want[i]);
  }
  int v = -1;
  ck_assert_int_eq(dem_cfg_bool(r, "zz", 0, 1, &v), DEM_OK);
  ck_assert_int_eq(v, 1);
  expect_msg(dem_cfg_bool(r, "h", 1, 0, &v), DEM_ERR_CONFIG,
             "box.yaml:8:4: key 'h': expected true or false, found 'maybe'");
  expect_part(dem_cfg_bool(r, "i", 1, 0, &v), DEM_ERR_CONFIG,
              "key 'i': expected true or false, found '1'");
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_string) {
  struct dem_config *cfg = load(BOX);
  const struct dem_node *sim = dem_node_get(cfg->root, "simulation");
  const struct dem_node *rod =
      dem_node_get(dem_node_get(cfg->root, "shapes"), "rod");
  const char *s = NULL;
  ck_assert_int_eq(dem_cfg_string(rod, "material", 1, NULL, &s), DEM_OK);
  ck_assert_str_eq(s, "glass");
  ck_assert_int_eq(dem_cfg_string(sim, "time_step", 1, NULL, &s), DEM_OK);
  ck_assert_str_eq(s, "38.0e-6");
  ck_assert_int_eq(dem_cfg_string(sim, "zz", 0, "dflt", &s), DEM_OK);
  ck_assert_str_eq(s, "dflt");
  ck_assert_int_eq(dem_cfg_string(sim, "zz", 0, NULL, &s), DEM_OK);
  ck_assert_ptr_null(s);
  expect_msg(dem_cfg_string(rod, "spheres", 1, NULL, &s), DEM_ERR_CONFIG,
             "box.yaml:11:14: key 'spheres': expected a string, found a "
             "list");
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_choice) {
  static const char *const models[] = {"hertz", "linear", NULL};
  struct dem_config *cfg = load("a: linear\nb: herz\nc: spring\nd: [x]\n");
  const struct dem_node *r = cfg->root;
  int v = -1;
  ck_assert_int_eq(dem_cfg_choice(r, "a", 1, 0, models, &v), DEM_OK);
  ck_assert_int_eq(v, 1);
  ck_assert_int_eq(dem_cfg_choice(r, "zz", 0, 0, models, &v), DEM_OK);
  ck_assert_int_eq(v, 0);
  expect_msg(dem_cfg_choice(r, "b", 1, 0, models, &v), DEM_ERR_CONFIG,
             "box.yaml:2:4: key 'b': expected one of 'hertz', 'linear', "
             "found 'herz' (did you mean 'hertz'?)");
  expect_msg(dem_cfg_choice(r, "c", 1, 0, models, &v), DEM_ERR_CONFIG,
             "box.yaml:3:4: key 'c': expected one of 'hertz', 'linear', "
             "found 'spring'");
  expect_msg(dem_cfg_choice(r, "d", 1, 0, models, &v), DEM_ERR_CONFIG,
             "box.yaml:4:4: key 'd': expected one of 'hertz', 'linear', "
             "found a list");
  ck_assert_int_eq(v, 0);
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_vec) {
  struct dem_config *cfg = load(BOX);
  const struct dem_node *contact = dem_node_get(cfg->root, "contact");
  const struct dem_node *s1 = dem_node_at(
      dem_node_get(dem_node_get(dem_node_get(cfg->root, "shapes"), "rod"),
                   "spheres"),
      0);
  double v[3] = {9, 9, 9};
  ck_assert_int_eq(dem_cfg_vec(s1, "center", 1, NULL, 3, DEM_ANY, v), DEM_OK);
  ck_assert_double_eq(v[0], -0.07);
  ck_assert_double_eq(v[1], 0.0);
  ck_assert_double_eq(v[2], 0.0);
  const double def[3] = {1, 2, 3};
  ck_assert_int_eq(dem_cfg_vec(s1, "zz", 0, def, 3, DEM_ANY, v), DEM_OK);
  ck_assert_double_eq(v[0], 1.0);
  ck_assert_double_eq(v[1], 2.0);
  ck_assert_double_eq(v[2], 3.0);
  ck_assert_int_eq(dem_cfg_vec(s1, "zz", 0, NULL, 3, DEM_ANY, v), DEM_OK);
  ck_assert_double_eq(v[2], 3.0); /* no default: left alone */
  expect_msg(dem_cfg_vec(contact, "pair", 1, NULL, 3, DEM_ANY, v),
             DEM_ERR_CONFIG,
             "box.yaml:14:63: key 'pair': expected a list of 3 numbers, "
             "found 2 items");
  expect_msg(dem_cfg_vec(contact, "center", 1, NULL, 3, DEM_ANY, v),
             DEM_ERR_CONFIG,
             "box.yaml:14:50: key 'center[1]': expected a number, found 'x'");
  expect_msg(dem_cfg_vec(contact, "skin", 1, NULL, 3, DEM_ANY, v),
             DEM_ERR_CONFIG,
             "box.yaml:14:30: key 'skin': expected a list of 3 numbers, "
             "found '-0.005'");
  expect_msg(dem_cfg_vec(cfg->root, "shapes", 1, NULL, 2, DEM_ANY, v),
             DEM_ERR_CONFIG,
             "box.yaml:8:3: key 'shapes': expected a list of 2 numbers, "
             "found a mapping");
  expect_msg(dem_cfg_vec(s1, "center", 1, NULL, 3, DEM_NONNEGATIVE, v),
             DEM_ERR_CONFIG,
             "box.yaml:11:25: key 'center[0]': must be >= 0, found -0.07");
  ck_assert_double_eq(v[0], 1.0); /* failures leave *out alone */
  struct dem_config *one = load("p: [5]\nq: [1, 2, x]\n");
  expect_msg(dem_cfg_vec(one->root, "p", 1, NULL, 3, DEM_ANY, v),
             DEM_ERR_CONFIG,
             "box.yaml:1:4: key 'p': expected a list of 3 numbers, found 1 "
             "item");
  expect_msg(dem_cfg_vec(one->root, "q", 1, NULL, 3, DEM_ANY, v),
             DEM_ERR_CONFIG,
             "box.yaml:2:11: key 'q[2]': expected a number, found 'x'");
  ck_assert_double_eq(v[0], 1.0);
  ck_assert_double_eq(v[1], 2.0);
  dem_config_free(one);
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_mapping_sequence) {
  struct dem_config *cfg = load(BOX);
  const struct dem_node *r = cfg->root;
  const struct dem_node *n = (const struct dem_node *)1;
  ck_assert_int_eq(dem_cfg_mapping(r, "simulation", 1, &n), DEM_OK);
  ck_assert_ptr_eq(n, dem_node_get(r, "simulation"));
  ck_assert_int_eq(dem_cfg_sequence(r, "particles", 1, &n), DEM_OK);
  ck_assert_ptr_eq(n, dem_node_get(r, "particles"));
  ck_assert_int_eq(dem_cfg_mapping(r, "output", 0, &n), DEM_OK);
  ck_assert_ptr_null(n);
  n = (const struct dem_node *)1;
  ck_assert_int_eq(dem_cfg_sequence(r, "walls", 0, &n), DEM_OK);
  ck_assert_ptr_null(n);
  const struct dem_node *rod = dem_node_get(dem_node_get(r, "shapes"), "rod");
  expect_msg(dem_cfg_sequence(r, "simulation", 1, &n), DEM_ERR_CONFIG,
             "box.yaml:2:3: key 'simulation': expected a list, found a "
             "mapping");
  expect_msg(dem_cfg_mapping(rod, "spheres", 1, &n), DEM_ERR_CONFIG,
             "box.yaml:11:14: key 'spheres': expected a mapping, found a "
             "list");
  expect_msg(dem_cfg_mapping(rod, "material", 1, &n), DEM_ERR_CONFIG,
             "box.yaml:9:15: key 'material': expected a mapping, found "
             "'glass'");
  expect_msg(dem_cfg_mapping(r, "output", 1, &n), DEM_ERR_CONFIG,
             "box.yaml:1:1: missing required key 'output'");
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_check_keys) {
  static const char *const rod_keys[] = {"material", "radius", "spheres", NULL};
  static const char *const sim_keys[] = {"time_step", "end_time", "seed",
                                         "verbose",   "name",     NULL};
  static const char *const few[] = {"alpha", "beta", NULL};
  struct dem_config *cfg = load(BOX);
  const struct dem_node *r = cfg->root;
  const struct dem_node *rod = dem_node_get(dem_node_get(r, "shapes"), "rod");
  ck_assert_int_eq(
      dem_cfg_check_keys(dem_node_get(r, "simulation"), sim_keys, "simulation"),
      DEM_OK);
  ck_assert_int_eq(dem_cfg_check_keys(NULL, sim_keys, "x"), DEM_OK);
  expect_msg(dem_cfg_check_keys(rod, rod_keys, "shapes.rod"), DEM_ERR_CONFIG,
             "box.yaml:10:5: unknown key 'radus' in 'shapes.rod' (did you "
             "mean 'radius'?)");
  expect_msg(dem_cfg_check_keys(rod, rod_keys, NULL), DEM_ERR_CONFIG,
             "box.yaml:10:5: unknown key 'radus' in 'shapes.rod' (did you "
             "mean 'radius'?)");
  expect_msg(dem_cfg_check_keys(rod, few, "shapes.rod"), DEM_ERR_CONFIG,
             "box.yaml:9:5: unknown key 'material' in 'shapes.rod' (known "
             "keys: 'alpha', 'beta')");
  expect_msg(dem_cfg_check_keys(r, few, ""), DEM_ERR_CONFIG,
             "box.yaml:1:1: unknown key 'simulation' (known keys: 'alpha', "
             "'beta')");
  expect_msg(dem_cfg_check_keys(dem_node_get(r, "particles"), few, "particles"),
             DEM_ERR_CONFIG,
             "box.yaml:13:3: expected a mapping for 'particles', found a "
             "list");
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_cfg_error) {
  struct dem_config *cfg = load(BOX);
  const struct dem_node *sim = dem_node_get(cfg->root, "simulation");
  dem_error_clear();
  expect_msg(dem_cfg_error(dem_node_get(sim, "seed"), "seed %d is unlucky", 7),
             DEM_ERR_CONFIG, "box.yaml:4:9: seed 7 is unlucky");
  expect_msg(dem_cfg_error(NULL, "no place"), DEM_ERR_CONFIG, "no place");
  /* The first failure wins until cleared. */
  dem_cfg_error(NULL, "first");
  dem_cfg_error(NULL, "second");
  ck_assert_str_eq(dem_last_error(), "first");
  dem_error_clear();
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_closest_word) {
  static const char *const keys[] = {"radius", "time_step", "material",
                                     "spheres", NULL};
  ck_assert_str_eq(dem_closest_word("radus", keys), "radius");
  ck_assert_str_eq(dem_closest_word("radius", keys), "radius");
  ck_assert_str_eq(dem_closest_word("tiem_step", keys), "time_step");
  ck_assert_str_eq(dem_closest_word("timestep", keys), "time_step");
  ck_assert_str_eq(dem_closest_word("Material", keys), "material");
  ck_assert_str_eq(dem_closest_word("sphere", keys), "spheres");
  ck_assert_ptr_null(dem_closest_word("xyz", keys));
  ck_assert_ptr_null(dem_closest_word("velocity", keys));
  ck_assert_ptr_null(dem_closest_word(NULL, keys));
  ck_assert_ptr_null(dem_closest_word("radius", NULL));
  /* Long words allow more edits: 18 letters allow 6. */
  static const char *const longer[] = {"angular_velocity", NULL};
  ck_assert_str_eq(dem_closest_word("angular_velocities", longer),
                   "angular_velocity");
  ck_assert_ptr_null(dem_closest_word("angle", longer));
}
END_TEST

static const char *numbered(const void *ctx, size_t i) {
  (void)ctx;
  static char buf[32];
  snprintf(buf, sizeof buf, "material_%zu", i);
  return buf;
}

START_TEST(test_closest_name) {
  /* Any number of names, none in a table: the 300th is found. */
  ck_assert_str_eq(dem_closest_name("material_299", 300, numbered, NULL),
                   "material_299");
  ck_assert_ptr_null(dem_closest_name("glass", 300, numbered, NULL));
  ck_assert_ptr_null(dem_closest_name("material_1", 0, numbered, NULL));
}
END_TEST

/* ---- --set ---- */

START_TEST(test_set_replace) {
  struct dem_config *cfg = load(BOX);
  const struct dem_node *sim = dem_node_get(cfg->root, "simulation");
  double v;
  ck_assert_int_eq(dem_config_set(cfg, "simulation.time_step=1e-3"), DEM_OK);
  ck_assert_int_eq(dem_cfg_double(sim, "time_step", 1, 0, DEM_POSITIVE, &v),
                   DEM_OK);
  ck_assert_double_eq(v, 1e-3);
  const struct dem_node *dt = dem_node_get(sim, "time_step");
  ck_assert_str_eq(dem_node_file(dt), "--set");
  assert_pos(dt, 1, 22);
  ck_assert_str_eq(dem_node_key_at(sim, 0), "time_step"); /* same place */
  assert_pos(dem_node_key_node_at(sim, 0), 2, 3);
  ck_assert_int_eq(dem_config_set(cfg, "simulation.seed=x"), DEM_OK);
  expect_msg(dem_cfg_double(sim, "seed", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "--set:1:17: key 'seed': expected a number, found 'x'");
  /* A whole section and a value that is a list. */
  ck_assert_int_eq(dem_config_set(cfg, "contact={model: hertz, skin: 0.01}"),
                   DEM_OK);
  const struct dem_node *contact = dem_node_get(cfg->root, "contact");
  ck_assert_uint_eq(dem_node_size(contact), 2);
  ck_assert_str_eq(dem_node_scalar(dem_node_get(contact, "model")), "hertz");
  assert_pos(dem_node_get(contact, "skin"), 1, 30);
  ck_assert_int_eq(dem_config_set(cfg, "contact.skin=[1,2,3]"), DEM_OK);
  double vec[3];
  ck_assert_int_eq(dem_cfg_vec(contact, "skin", 1, NULL, 3, DEM_ANY, vec),
                   DEM_OK);
  ck_assert_double_eq(vec[2], 3.0);
  ck_assert_int_eq(dem_config_set(cfg, "scheme=omelyan"), DEM_OK);
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "scheme")),
                   "omelyan");
  ck_assert_int_eq(dem_config_set(cfg, " scheme = 'a b' "), DEM_OK);
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "scheme")), "a b");
  ck_assert_int_eq(dem_config_set(cfg, "scheme="), DEM_OK);
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "scheme")), "");
  ck_assert_int_eq(dem_config_set(cfg, "simulation.name=a=b"), DEM_OK);
  ck_assert_str_eq(dem_node_scalar(dem_node_get(sim, "name")), "a=b");
  ck_assert_str_eq(dem_last_error(), "");
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_set_create) {
  struct dem_config *cfg = load(BOX);
  ck_assert_int_eq(dem_config_set(cfg, "output.energy.interval=0.5"), DEM_OK);
  const struct dem_node *out = dem_node_get(cfg->root, "output");
  ck_assert_int_eq(dem_node_kind(out), DEM_NODE_MAPPING);
  ck_assert_str_eq(dem_node_key_at(cfg->root, 4), "output");
  assert_pos(dem_node_key_node_at(cfg->root, 4), 1, 1);
  const struct dem_node *energy = dem_node_get(out, "energy");
  assert_pos(dem_node_key_node_at(out, 0), 1, 8);
  ck_assert_str_eq(dem_node_file(energy), "--set");
  double v;
  ck_assert_int_eq(dem_cfg_double(energy, "interval", 1, 0, DEM_ANY, &v),
                   DEM_OK);
  ck_assert_double_eq(v, 0.5);
  assert_pos(dem_node_get(energy, "interval"), 1, 24);
  /* A new key in an existing mapping goes last. */
  ck_assert_int_eq(dem_config_set(cfg, "simulation.gravity=[0, 0, -9.81]"),
                   DEM_OK);
  const struct dem_node *sim = dem_node_get(cfg->root, "simulation");
  ck_assert_uint_eq(dem_node_size(sim), 6);
  ck_assert_str_eq(dem_node_key_at(sim, 5), "gravity");
  double g[3];
  ck_assert_int_eq(dem_cfg_vec(sim, "gravity", 1, NULL, 3, DEM_ANY, g), DEM_OK);
  ck_assert_double_eq(g[2], -9.81);
  /* Paths name the new mappings in messages. */
  expect_msg(dem_cfg_double(energy, "zz", 1, 0, DEM_ANY, &v), DEM_ERR_CONFIG,
             "--set:1:15: missing required key 'zz' in 'output.energy'");
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_set_index) {
  struct dem_config *cfg = load(BOX);
  ck_assert_int_eq(dem_config_set(cfg, "particles.0.random_fill.count=5"),
                   DEM_OK);
  const struct dem_node *fill = dem_node_get(
      dem_node_at(dem_node_get(cfg->root, "particles"), 0), "random_fill");
  long n;
  ck_assert_int_eq(dem_cfg_long(fill, "count", 1, 0, 1, LONG_MAX, &n), DEM_OK);
  ck_assert_int_eq(n, 5);
  ck_assert_int_eq(
      dem_config_set(cfg, "shapes.rod.spheres.1={center: [1, 1, 1]}"), DEM_OK);
  const struct dem_node *spheres = dem_node_get(
      dem_node_get(dem_node_get(cfg->root, "shapes"), "rod"), "spheres");
  ck_assert_uint_eq(dem_node_size(spheres), 2);
  ck_assert_str_eq(dem_node_scalar(dem_node_at(
                       dem_node_get(dem_node_at(spheres, 1), "center"), 0)),
                   "1");
  ck_assert_int_eq(dem_config_set(cfg, "shapes.rod.spheres.0.center.2=7"),
                   DEM_OK);
  double c[3];
  ck_assert_int_eq(
      dem_cfg_vec(dem_node_at(spheres, 0), "center", 1, NULL, 3, DEM_ANY, c),
      DEM_OK);
  ck_assert_double_eq(c[0], -0.07);
  ck_assert_double_eq(c[2], 7.0);
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_set_errors) {
  struct dem_config *cfg = load(BOX);
  char *before = dem_config_emit(cfg);
  dem_error_clear();
  expect_msg(dem_config_set(cfg, "xyz"), DEM_ERR_USAGE,
             "--set 'xyz': expected path.to.key=value");
  expect_msg(dem_config_set(cfg, "=5"), DEM_ERR_USAGE,
             "--set '=5': expected path.to.key=value");
  expect_msg(dem_config_set(cfg, "  =5"), DEM_ERR_USAGE,
             "--set '  =5': expected path.to.key=value");
  expect_msg(dem_config_set(cfg, "a..b=1"), DEM_ERR_USAGE,
             "--set 'a..b=1': empty name in the path 'a..b'");
  expect_msg(dem_config_set(cfg, "a.=1"), DEM_ERR_USAGE,
             "--set 'a.=1': empty name in the path 'a.'");
  expect_msg(dem_config_set(cfg, "particles.1.random_fill.count=5"),
             DEM_ERR_USAGE,
             "--set 'particles.1.random_fill.count=5': item 1 is out of "
             "range; 'particles' has 1 item");
  expect_msg(dem_config_set(cfg, "shapes.rod.spheres.2=5"), DEM_ERR_USAGE,
             "--set 'shapes.rod.spheres.2=5': item 2 is out of range; "
             "'shapes.rod.spheres' has 2 items");
  expect_msg(dem_config_set(cfg, "particles.first.count=5"), DEM_ERR_USAGE,
             "--set 'particles.first.count=5': 'particles' is a list; "
             "expected an item number, found 'first'");
  expect_msg(dem_config_set(cfg, "particles.-1=5"), DEM_ERR_USAGE,
             "--set 'particles.-1=5': 'particles' is a list; expected an item "
             "number, found '-1'");
  expect_msg(dem_config_set(cfg, "simulation.time_step.x.y=1"), DEM_ERR_USAGE,
             "--set 'simulation.time_step.x.y=1': 'simulation.time_step' is "
             "a value, not a mapping or a list, so it has no 'x'");
  expect_msg(dem_config_set(cfg, "simulation.time_step=[1,"), DEM_ERR_USAGE,
             "--set 'simulation.time_step=[1,': the value is not valid "
             "YAML: it ends too soon (did not find expected node content)");
  expect_msg(dem_config_set(cfg, "simulation.time_step=[1, ]]"), DEM_ERR_USAGE,
             "--set 'simulation.time_step=[1, ]]': the value is not valid "
             "YAML: --set:1:27: did not find expected <document start>");
  expect_msg(dem_config_set(cfg, "simulation.time_step={a: 1\n  b: 2}"),
             DEM_ERR_USAGE,
             "--set 'simulation.time_step={a: 1\n  b: 2}': the value is not "
             "valid YAML: --set:2:4: did not find expected ',' or '}'");
  expect_part(dem_config_set(cfg, "a=&x 1"), DEM_ERR_USAGE,
              "anchors (&x) are not supported");
  expect_part(dem_config_set(cfg, "a={u: 1, u: 2}"), DEM_ERR_USAGE,
              "--set:1:10: duplicate key 'u'");
  /* Nothing changed on failure. */
  char *after = dem_config_emit(cfg);
  ck_assert_str_eq(after, before);
  free(before);
  free(after);
  dem_config_free(cfg);
}
END_TEST

/* ---- emit ---- */

static void assert_same_tree(const struct dem_node *a,
                             const struct dem_node *b) {
  ck_assert_int_eq(dem_node_kind(a), dem_node_kind(b));
  ck_assert_uint_eq(dem_node_size(a), dem_node_size(b));
  if (dem_node_kind(a) == DEM_NODE_SCALAR) {
    ck_assert_str_eq(dem_node_scalar(a), dem_node_scalar(b));
    return;
  }
  for (size_t i = 0; i < dem_node_size(a); i++) {
    if (dem_node_kind(a) == DEM_NODE_MAPPING)
      ck_assert_str_eq(dem_node_key_at(a, i), dem_node_key_at(b, i));
    assert_same_tree(dem_node_at(a, i), dem_node_at(b, i));
  }
}

static void assert_round_trip(const struct dem_config *cfg) {
  char *text = dem_config_emit(cfg);
  ck_assert_ptr_nonnull(text);
  struct dem_config *again = NULL;
  dem_error_clear();
  ck_assert_msg(dem_config_load_string("emitted", text, &again) == DEM_OK,
                "emitted text does not load: %s\n%s", dem_last_error(), text);
  assert_same_tree(cfg->root, again->root);
  char *twice = dem_config_emit(again);
  ck_assert_str_eq(twice, text);
  free(twice);
  free(text);
  dem_config_free(again);
}

START_TEST(test_emit_round_trip) {
  struct dem_config *cfg = load(BOX);
  assert_round_trip(cfg);
  char *text = dem_config_emit(cfg);
  /* Numbers stay plain (as written), short lists stay inline. */
  ck_assert_ptr_nonnull(strstr(text, "simulation:\n  time_step: 38.0e-6\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "contact: {model: herz, skin: -0.005, center: [1, x, 3], "
                   "pair: [1, 2]}\n"));
  free(text);
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_emit_tricky_scalars) {
  static const char TRICKY[] =
      "quoted_bool: 'yes'\n"
      "quoted_num: \"1.0\"\n"
      "colon: 'a: b'\n"
      "hash: '#x'\n"
      "space: ' lead'\n"
      "dash: '- x'\n"
      "brackets: '[x]'\n"
      "quotes: \"it's \\\"q\\\"\"\n"
      "empty: ''\n"
      "null_value:\n"
      "tab: \"a\\tb\"\n"
      "newline: \"l1\\nl2\"\n"
      "literal: |\n  l1\n  l2\n"
      "folded: >\n  f1\n  f2\n"
      "unicode: \"\xc3\xa9t\xc3\xa9\"\n"
      "'key: with colon': 1\n"
      "'': empty key\n"
      "nested: [[1, [2, {a: [3]}]], {}, []]\n"
      "block:\n  - - x\n    - y\n  - k: v\n    l: [1, 2]\n";
  struct dem_config *cfg = load(TRICKY);
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "quotes")),
                   "it's \"q\"");
  ck_assert_str_eq(dem_node_scalar(dem_node_get(cfg->root, "unicode")),
                   "\xc3\xa9t\xc3\xa9");
  assert_round_trip(cfg);
  /* A long value is not folded over several lines. */
  char text[2100] = "long: ";
  for (int i = 0; i < 200; i++)
    strcat(text, "word ");
  strcat(text, "end\n");
  struct dem_config *lng = load(text);
  assert_round_trip(lng);
  char *out = dem_config_emit(lng);
  ck_assert_ptr_eq(strchr(out, '\n'), out + strlen(out) - 1);
  free(out);
  dem_config_free(lng);
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_emit_after_set) {
  struct dem_config *cfg = load(BOX);
  ck_assert_int_eq(dem_config_set(cfg, "simulation.time_step=1e-3"), DEM_OK);
  ck_assert_int_eq(dem_config_set(cfg, "output.file=out put.h5"), DEM_OK);
  ck_assert_int_eq(dem_config_set(cfg, "scheme=[{push: {dt: 0.5}}, kick]"),
                   DEM_OK);
  ck_assert_int_eq(dem_config_set(cfg, "tag='on'"), DEM_OK);
  assert_round_trip(cfg);
  char *text = dem_config_emit(cfg);
  ck_assert_ptr_nonnull(strstr(text, "  time_step: 1e-3\n"));
  ck_assert_ptr_nonnull(strstr(text, "output:\n  file: out put.h5\n"));
  ck_assert_ptr_nonnull(strstr(text, "scheme: [{push: {dt: 0.5}}, kick]\n"));
  ck_assert_ptr_nonnull(strstr(text, "tag: 'on'\n"));
  free(text);
  dem_config_free(cfg);
}
END_TEST

START_TEST(test_emit_subtree) {
  struct dem_config *cfg = load(BOX);
  const struct dem_node *rod =
      dem_node_get(dem_node_get(cfg->root, "shapes"), "rod");
  char *text = dem_node_emit(rod);
  ck_assert_str_eq(text, "material: glass\nradus: 0.035\nspheres: [{center: "
                         "[-0.07, 0, 0], radius: 0.035}, {center: [0, 0, 0], "
                         "radius: 0.035}]\n");
  struct dem_config *again = load(text);
  assert_same_tree(rod, again->root);
  dem_config_free(again);
  free(text);
  text = dem_node_emit(dem_node_get(cfg->root, "particles"));
  ck_assert_str_eq(text, "- random_fill: {shape: rod, count: 30}\n");
  free(text);
  text = dem_node_emit(
      dem_node_get(dem_node_get(cfg->root, "simulation"), "name"));
  ck_assert_ptr_nonnull(strstr(text, "abc"));
  free(text);
  dem_config_free(cfg);
}
END_TEST

static Suite *config_suite(void) {
  Suite *s = suite_create("config");
  TCase *tree = tcase_create("tree");
  tcase_add_test(tree, test_tree_nested);
  tcase_add_test(tree, test_tree_null_safe);
  tcase_add_test(tree, test_tree_scalar_styles);
  tcase_add_test(tree, test_load_malformed);
  tcase_add_test(tree, test_load_duplicate_key);
  tcase_add_test(tree, test_load_rejects);
  tcase_add_test(tree, test_load_deep_nesting);
  tcase_add_test(tree, test_load_missing_file);
  tcase_add_test(tree, test_load_file);
  tcase_add_test(tree, test_load_special_files);
  suite_add_tcase(s, tree);
  /* A regression to key-by-key lookups would take minutes: the timeout is
   * what fails then. */
  TCase *scale = tcase_create("scale");
  tcase_set_timeout(scale, 30);
  tcase_add_test(scale, test_many_keys);
  suite_add_tcase(s, scale);
  TCase *get = tcase_create("getters");
  tcase_add_test(get, test_double_ok);
  tcase_add_test(get, test_double_errors);
  tcase_add_test(get, test_double_bad_forms);
  tcase_add_test(get, test_double_ranges);
  tcase_add_test(get, test_long);
  tcase_add_test(get, test_bool);
  tcase_add_test(get, test_string);
  tcase_add_test(get, test_choice);
  tcase_add_test(get, test_vec);
  tcase_add_test(get, test_mapping_sequence);
  tcase_add_test(get, test_check_keys);
  tcase_add_test(get, test_cfg_error);
  tcase_add_test(get, test_closest_word);
  tcase_add_test(get, test_closest_name);
  suite_add_tcase(s, get);
  TCase *set = tcase_create("set");
  tcase_add_test(set, test_set_replace);
  tcase_add_test(set, test_set_create);
  tcase_add_test(set, test_set_index);
  tcase_add_test(set, test_set_errors);
  suite_add_tcase(s, set);
  TCase *emit = tcase_create("emit");
  tcase_add_test(emit, test_emit_round_trip);
  tcase_add_test(emit, test_emit_tricky_scalars);
  tcase_add_test(emit, test_emit_after_set);
  tcase_add_test(emit, test_emit_subtree);
  suite_add_tcase(s, emit);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(config_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed != 0;
}
