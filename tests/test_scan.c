/* The rebuild's sorting and scanning passes split between threads give
 * what one thread computes, against independent references: a stable
 * comparison sort and a running sum. */
#include <check.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "sim/grid.h"
#include "sim/scan.h"

/* Keys for the comparison sort: the key, then the index (stable). */
static const size_t *sort_keys;
static int by_key_then_index(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  if (sort_keys[i] != sort_keys[j])
    return sort_keys[i] < sort_keys[j] ? -1 : 1;
  return i < j ? -1 : (i > j);
}

/* n keys in [0, n_keys): uniform, or (skewed) most of them in the last
 * key and the rest in the first few, as the broad phase's left-out
 * bucket and a settled pile make them. */
static void make_keys(size_t *key, size_t n, size_t n_keys, int skewed,
                      uint64_t seed) {
  struct dem_rng r;
  dem_rng_seed(&r, seed);
  for (size_t i = 0; i < n; i++) {
    double u = dem_rng_uniform(&r);
    if (skewed)
      key[i] = u < 0.8   ? n_keys - 1
               : u < 0.9 ? (size_t)(10 * u) % 3
                         : (size_t)(u * (double)n_keys);
    else
      key[i] = (size_t)(u * (double)n_keys);
    key[i] %= n_keys;
  }
}

/* Sizes around the threshold of the parallel path, key counts below and
 * above the coarse bins, uniform and skewed; 1 to 17 threads (the sort
 * uses at most 16). */
START_TEST(counting_sort_is_the_stable_sort_on_any_thread_count) {
  static const size_t sizes[] = {1, 2049, 60000};
  static const size_t keys[] = {1, 257, 175616};
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
    for (size_t b = 0; b < sizeof keys / sizeof *keys; b++)
      for (int skewed = 0; skewed < 2; skewed++) {
        size_t n = sizes[a], n_keys = keys[b];
        size_t *key = malloc(n * sizeof *key);
        size_t *want = malloc(n * sizeof *want);
        size_t *order = malloc(n * sizeof *order);
        size_t *start = malloc((n_keys + 1) * sizeof *start);
        size_t *scratch = malloc(n * sizeof *scratch);
        make_keys(key, n, n_keys, skewed, 100 * a + 10 * b + (size_t)skewed);
        for (size_t i = 0; i < n; i++)
          want[i] = i;
        sort_keys = key;
        qsort(want, n, sizeof *want, by_key_then_index);
        static const int teams[] = {1, 2, 3, 5, 17}; /* 17: above the cap */
        for (size_t u = 0; u < sizeof teams / sizeof *teams; u++) {
          omp_set_num_threads(teams[u]);
          memset(order, 0xff, n * sizeof *order);
          memset(start, 0xff, (n_keys + 1) * sizeof *start);
          memset(scratch, 0xff, n * sizeof *scratch);
          dem_counting_sort(n, key, n_keys, start, order, scratch);
          ck_assert_mem_eq(order, want, n * sizeof *want);
          /* start[c]: the first place of key c, start[n_keys] = n */
          size_t at = 0;
          for (size_t c = 0; c <= n_keys; c++) {
            ck_assert_uint_eq(start[c], at);
            while (at < n && key[want[at]] == c)
              at++;
          }
          ck_assert_uint_eq(start[n_keys], n);
        }
        free(key), free(want), free(order), free(start), free(scratch);
      }
  omp_set_num_threads(1);
}
END_TEST

START_TEST(prefix_counts_are_the_running_sum_on_any_thread_count) {
  static const size_t sizes[] = {0, 8193, 100000};
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++) {
    size_t n = sizes[a];
    size_t *count = malloc((n + 1) * sizeof *count);
    size_t *start = malloc((n + 1) * sizeof *start);
    struct dem_rng r;
    dem_rng_seed(&r, 5 + a);
    for (size_t i = 0; i < n; i++)
      count[i] = dem_rng_next(&r) % 7;
    for (int threads = 1; threads <= 3; threads++) {
      omp_set_num_threads(threads);
      start[0] = 12345; /* set by the call */
      for (size_t i = 0; i < n; i++)
        start[i + 1] = count[i];
      size_t total = dem_prefix_counts(start, n), run = 0;
      for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(start[i], run);
        run += count[i];
      }
      ck_assert_uint_eq(start[n], run);
      ck_assert_uint_eq(total, run);
    }
    free(count), free(start);
  }
  omp_set_num_threads(1);
}
END_TEST

/* Counts only at some ascending items (adjacent ones, the first and the
 * last among them), every other entry garbage on entry: the running sum
 * over all n. */
START_TEST(prefix_counts_at_some_items_are_the_running_sum) {
  const size_t n = 1000;
  size_t *count = calloc(n, sizeof *count), *at = malloc(n * sizeof *at);
  size_t *start = malloc((n + 1) * sizeof *start);
  struct dem_rng r;
  dem_rng_seed(&r, 17);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || i == n - 1 || (i >= 500 && i < 504) ||
        dem_rng_next(&r) % 9 == 0) {
      at[m++] = i;
      count[i] = 1 + dem_rng_next(&r) % 5;
    }
  for (size_t i = 0; i <= n; i++)
    start[i] = 777777; /* written, never read */
  for (size_t a = 0; a < m; a++)
    start[at[a] + 1] = count[at[a]];
  size_t total = dem_prefix_counts_at(start, n, at, m), run = 0;
  for (size_t i = 0; i < n; i++) {
    ck_assert_uint_eq(start[i], run);
    run += count[i];
  }
  ck_assert_uint_eq(start[n], run);
  ck_assert_uint_eq(total, run);
  start[0] = 5; /* none at all: zeros */
  ck_assert_uint_eq(dem_prefix_counts_at(start, 3, at, 0), 0);
  ck_assert_uint_eq(start[0] + start[1] + start[2] + start[3], 0);
  free(count), free(at), free(start);
}
END_TEST

static Suite *scan_suite(void) {
  Suite *s = suite_create("scan");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, counting_sort_is_the_stable_sort_on_any_thread_count);
  tcase_add_test(tc, prefix_counts_are_the_running_sum_on_any_thread_count);
  tcase_add_test(tc, prefix_counts_at_some_items_are_the_running_sum);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(scan_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
