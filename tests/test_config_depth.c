/* The nesting limit is the same for the loader and for --set: a tree --set
 * builds always emits YAML that loads back, and a deeper one is refused. */
/* The loader refuses a collection at depth > 256 (the root at 0); --set
 * adds one level per part of its path and the levels of its value. The
 * fuzzer found a path of 258 parts accepted by --set whose emitted config
 * (as the output file stores it) did not load back. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

enum { LIMIT = 256 };

static struct dem_config *load(const char *text) {
  struct dem_config *cfg = NULL;
  dem_error_clear();
  dem_status st = dem_config_load_string("t.yaml", text, &cfg);
  ck_assert_msg(st == DEM_OK, "load failed: %s", dem_last_error());
  return cfg;
}

/* "a.a.a...=VALUE" with `parts` parts and VALUE nested `levels` deep
 * ("[[...[1]...]]"; a plain 1 for 0 levels). Caller frees. */
static char *assignment(int parts, int levels) {
  char *a = malloc((size_t)(2 * parts + 2 * levels + 8));
  ck_assert_ptr_nonnull(a);
  char *p = a;
  for (int i = 0; i < parts; i++) {
    *p++ = i ? '.' : 'a';
    if (i)
      *p++ = 'a';
  }
  *p++ = '=';
  for (int i = 0; i < levels; i++)
    *p++ = '[';
  *p++ = '1';
  for (int i = 0; i < levels; i++)
    *p++ = ']';
  *p = '\0';
  return a;
}

/* Applies the assignment; when accepted, the emitted config must load back
 * and emit the same text; when refused, the message must say why and the
 * tree be as it was. Returns whether it was accepted. */
static int set_and_round_trip(int parts, int levels) {
  struct dem_config *cfg = load("simulation: {time_step: 1}\n");
  char *before = dem_config_emit(cfg), *a = assignment(parts, levels);
  dem_error_clear();
  dem_status st = dem_config_set(cfg, a);
  char *after = dem_config_emit(cfg);
  ck_assert_ptr_nonnull(before);
  ck_assert_ptr_nonnull(after);
  if (st == DEM_OK) {
    struct dem_config *again = NULL;
    dem_status st2 = dem_config_load_string("emitted.yaml", after, &again);
    ck_assert_msg(st2 == DEM_OK,
                  "%d parts, value of %d levels: accepted, but the emitted "
                  "config does not load back: %s",
                  parts, levels, dem_last_error());
    char *second = dem_config_emit(again);
    ck_assert_str_eq(second, after);
    free(second);
    dem_config_free(again);
  } else {
    ck_assert_int_eq(st, DEM_ERR_USAGE);
    ck_assert_msg(
        strstr(dem_last_error(), "--set 'a") &&
            strstr(dem_last_error(), "nesting deeper than 256 levels"),
        "message: %s", dem_last_error());
    ck_assert_str_eq(after, before);
  }
  free(a);
  free(before);
  free(after);
  dem_config_free(cfg);
  return st == DEM_OK;
}

START_TEST(set_depth_matches_loader) {
  /* the mapping holding the last part is at depth parts - 1, a value of
   * `levels` collections reaches parts - 1 + levels */
  ck_assert_int_eq(set_and_round_trip(LIMIT + 1, 0), 1);
  ck_assert_int_eq(set_and_round_trip(LIMIT + 2, 0), 0); /* the fuzzer's */
  ck_assert_int_eq(set_and_round_trip(5000, 0), 0);
  ck_assert_int_eq(set_and_round_trip(1, LIMIT), 1);
  ck_assert_int_eq(set_and_round_trip(1, LIMIT + 1), 0);
  ck_assert_int_eq(set_and_round_trip(2, LIMIT), 0);
  ck_assert_int_eq(set_and_round_trip(100, LIMIT - 99), 1);
  ck_assert_int_eq(set_and_round_trip(100, LIMIT - 98), 0);
}
END_TEST

/* Into an existing tree: the depth counts from the root whatever part of
 * the path already exists. */
START_TEST(set_depth_through_existing_nodes) {
  char *text = malloc(6 * LIMIT + 64), *p = text;
  ck_assert_ptr_nonnull(text);
  p += sprintf(p, "a: ");
  for (int i = 0; i < LIMIT - 1; i++) /* mappings at depths 1..255 */
    p += sprintf(p, "{a: ");
  p += sprintf(p, "1");
  for (int i = 0; i < LIMIT - 1; i++)
    p += sprintf(p, "}");
  struct dem_config *cfg = load(text);
  char *a = assignment(LIMIT, 1); /* a list at depth 256: the limit */
  ck_assert_int_eq(dem_config_set(cfg, a), DEM_OK);
  free(a);
  a = assignment(LIMIT, 2); /* one level more */
  dem_error_clear();
  ck_assert_int_eq(dem_config_set(cfg, a), DEM_ERR_USAGE);
  ck_assert_ptr_nonnull(strstr(dem_last_error(), "nesting deeper than"));
  free(a);
  char *out = dem_config_emit(cfg);
  struct dem_config *again = NULL;
  ck_assert_int_eq(dem_config_load_string("emitted.yaml", out, &again), DEM_OK);
  dem_config_free(again);
  free(out);
  dem_config_free(cfg);
  free(text);
}
END_TEST

int main(void) {
  Suite *s = suite_create("config_depth");
  TCase *tc = tcase_create("depth");
  tcase_add_test(tc, set_depth_matches_loader);
  tcase_add_test(tc, set_depth_through_existing_nodes);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed != 0;
}
