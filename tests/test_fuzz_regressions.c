/* Replays the fuzz target on saved crash inputs and the bad-input configs. */
#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_config.c"

/* Feeds every regular file of dir to the fuzz target; returns how many. */
static int replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d)
    return 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    if (!f)
      continue;
    static uint8_t buf[1 << 20];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    n++;
  }
  closedir(d);
  return n;
}

START_TEST(fuzz_regressions_replay) {
  /* Crash inputs saved by tools/fuzz.sh (possibly none yet). */
  replay_dir(DEM_SOURCE_DIR "/tests/fuzz/regressions");
}
END_TEST

START_TEST(bad_inputs_replay) {
  ck_assert_int_ge(replay_dir(DEM_SOURCE_DIR "/tests/bad_inputs"), 30);
}
END_TEST

START_TEST(examples_replay) {
  ck_assert_int_ge(replay_dir(DEM_SOURCE_DIR "/examples"), 1);
  ck_assert_int_ge(replay_dir(DEM_SOURCE_DIR "/configs/schemes"), 10);
}
END_TEST

int main(void) {
  Suite *s = suite_create("fuzz_regressions");
  TCase *tc = tcase_create("replay");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, fuzz_regressions_replay);
  tcase_add_test(tc, bad_inputs_replay);
  tcase_add_test(tc, examples_replay);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
