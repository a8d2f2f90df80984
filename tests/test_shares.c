/* The shares a loop's threads take items from (core/shares.h): every item
 * taken once, whatever the team, each thread's own items first and in
 * order, a late thread's items taken by the others from the back. */
#include <check.h>
#include <omp.h>
#include <stdlib.h>

#include "core/shares.h"

/* Items 0..n-1 through a team of `team` threads with shares planned for
 * `planned`: how many times each was taken (into count). */
static void take_all(size_t n, int planned, int team, int *count) {
  struct dem_shares s;
  dem_shares_init(&s, n, planned);
  for (size_t k = 0; k < n; k++)
    count[k] = 0;
#pragma omp parallel num_threads(team)
  {
    const int me = omp_get_thread_num();
    for (long k; (k = dem_shares_next(&s, me)) >= 0;)
      __atomic_add_fetch(&count[k], 1, __ATOMIC_RELAXED);
  }
}

/* Teams the size of the plan, smaller (the missing threads' shares are
 * taken by the others) and larger (the extra threads only take), and
 * more planned threads than shares. */
START_TEST(every_item_is_taken_once_by_any_team) {
  static const size_t sizes[] = {0, 1, 7, 64, 1000};
  static const int plans[][2] = {{1, 1},   {2, 2},  {3, 3}, {5, 5},
                                 {17, 17}, {4, 2},  {2, 5}, {1, 3},
                                 {8, 1},   {70, 3}, {3, 70}};
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
    for (size_t b = 0; b < sizeof plans / sizeof *plans; b++) {
      const size_t n = sizes[a];
      int *count = malloc((n ? n : 1) * sizeof *count);
      take_all(n, plans[b][0], plans[b][1], count);
      for (size_t k = 0; k < n; k++)
        ck_assert_msg(count[k] == 1,
                      "item %zu of %zu taken %d times (planned %d, team %d)", k,
                      n, count[k], plans[b][0], plans[b][1]);
      free(count);
    }
}
END_TEST

/* Thread 0 of three starts only once every item is taken (a condition,
 * not a pause): it takes none; threads 1 and 2 take their own shares
 * from the front, in order, and thread 0's (and each other's) from the
 * back, each victim's items in descending order. */
START_TEST(a_late_thread_s_items_are_taken_from_the_back) {
  enum { N = 999, TEAM = 3 };
  static long took[TEAM][N];
  size_t n_took[TEAM] = {0};
  long taken = 0;
  int team = 0;
  struct dem_shares s;
  dem_shares_init(&s, N, TEAM);
#pragma omp parallel num_threads(TEAM)
  {
    const int me = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    if (me == 0 && team > 1)
      while (__atomic_load_n(&taken, __ATOMIC_ACQUIRE) < N)
        ;
    for (long k; (k = dem_shares_next(&s, me)) >= 0;) {
      took[me][n_took[me]++] = k;
      __atomic_add_fetch(&taken, 1, __ATOMIC_RELEASE);
    }
  }
  ck_assert_int_eq(team, TEAM);
  ck_assert_uint_eq(n_took[0], 0);
  ck_assert_uint_eq(n_took[1] + n_took[2], N);
  for (int t = 1; t < TEAM; t++) {
    const long own0 = N * t / TEAM, own1 = N * (t + 1) / TEAM;
    long expect = own0, last_of[TEAM] = {N, N, N};
    for (size_t m = 0; m < n_took[t]; m++) {
      const long k = took[t][m];
      const int victim = (int)(k * TEAM / N); /* the share k is in */
      if (victim == t) { /* own: the next of the share, none skipped */
        ck_assert_int_eq(k, expect);
        expect++;
        continue;
      }
      ck_assert_msg(k < last_of[victim],
                    "thread %d took %ld of share %d after %ld", t, k, victim,
                    last_of[victim]);
      last_of[victim] = k;
    }
    ck_assert_int_le(expect, own1);
  }
}
END_TEST

static Suite *shares_suite(void) {
  Suite *s = suite_create("shares");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, every_item_is_taken_once_by_any_team);
  tcase_add_test(tc, a_late_thread_s_items_are_taken_from_the_back);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(shares_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
