/* Large arrays on transparent huge pages: dem_huge_calloc gives zeroed
 * memory, and where the kernel offers huge pages on request (Linux THP
 * "madvise" or "always"), the kernel's own account of the mapping
 * (/proc/self/smaps, AnonHugePages) shows them. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/huge.h"

/* The kernel's THP mode: 1 when a madvise'd range may get huge pages. */
static int thp_on_request(void) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char line[128] = "";
  if (!f)
    return 0;
  if (!fgets(line, sizeof line, f))
    line[0] = 0;
  fclose(f);
  return strstr(line, "[madvise]") || strstr(line, "[always]");
}

/* AnonHugePages (kB) of the mapping of /proc/self/smaps that holds p. */
static long huge_kb_at(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  char line[512];
  int in = 0;
  long kb = -1;
  if (!f)
    return -1;
  while (fgets(line, sizeof line, f)) {
    uintptr_t lo, hi;
    long v;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3) { /* a mapping */
      in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
      continue;
    }
    if (in && sscanf(line, "AnonHugePages: %ld kB", &v) == 1) {
      kb = v;
      break;
    }
  }
  fclose(f);
  return kb;
}

START_TEST(huge_calloc_is_zeroed_and_on_huge_pages) {
  const size_t n = (size_t)24 << 20; /* 24 MiB: several whole huge pages */
  unsigned char *p = dem_huge_calloc(n / 8, 8);
  ck_assert_ptr_nonnull(p);
  /* On a huge page boundary: every whole 2 MiB of it can be one. */
  ck_assert_uint_eq((uintptr_t)p % ((uintptr_t)2 << 20), 0);
  size_t nonzero = 0;
  for (size_t i = 0; i < n; i += 4096)
    nonzero += p[i] != 0 || p[i + 4095] != 0;
  ck_assert_uint_eq(nonzero, 0);
  memset(p, 1, n);
  if (thp_on_request()) {
    long kb = huge_kb_at(p + n / 2);
    /* At least half of it: the kernel may find no free huge page for
     * some (fragmented memory), never for none on a test machine. */
    ck_assert_msg(kb >= (long)(n / 2 / 1024),
                  "AnonHugePages %ld kB for a %zu kB array", kb, n / 1024);
  }
  free(p);
  /* Small ones are plain calloc; overflow is refused. */
  unsigned char *q = dem_huge_calloc(3, 5);
  ck_assert_ptr_nonnull(q);
  for (int i = 0; i < 15; i++)
    ck_assert_int_eq(q[i], 0);
  free(q);
  ck_assert_ptr_null(dem_huge_calloc(SIZE_MAX / 2, 4));
  dem_huge_advise(NULL, n); /* a hint: no effect, no failure */
}
END_TEST

static Suite *huge_suite(void) {
  Suite *s = suite_create("huge");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, huge_calloc_is_zeroed_and_on_huge_pages);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(huge_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
