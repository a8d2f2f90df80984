/* Replays the fuzz target on saved crash inputs and the bad-input configs. */
/* Each input runs in its own child process, so that a crash names the
 * input; it must end accepted or refused with a message (the fuzz target
 * aborts otherwise), and a directory that is missing or empty is a failure,
 * not a pass with nothing replayed. */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/fuzz_config.c"

struct replay {
  int accepted, refused;
};

/* Runs one file through fuzz_config_one in a child; its exit status is the
 * outcome. Fails the test, naming the file, on anything else. */
static void replay_file(const char *path, struct replay *r) {
  static uint8_t buf[1 << 20];
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  size_t len = fread(buf, 1, sizeof buf, f);
  ck_assert_msg(!ferror(f), "cannot read %s", path);
  fclose(f);
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_msg(pid >= 0, "fork failed");
  if (pid == 0)
    _exit((int)fuzz_config_one(buf, len));
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(!WIFSIGNALED(status), "%s: the fuzz target died of signal %d",
                path, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  ck_assert_msg(WIFEXITED(status) && (WEXITSTATUS(status) == FUZZ_ACCEPTED ||
                                      WEXITSTATUS(status) == FUZZ_REFUSED),
                "%s: the fuzz target ended with status %d", path, status);
  if (WEXITSTATUS(status) == FUZZ_ACCEPTED)
    r->accepted++;
  else
    r->refused++;
}

/* Replays every regular file of dir but README.md; fails if dir is missing.
 * Returns the counts. */
static struct replay replay_dir(const char *dir) {
  struct replay r = {0, 0};
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open the directory %s", dir);
  struct dirent *e;
  while ((e = readdir(d))) {
    char path[4096];
    struct stat sb;
    if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
      continue; /* e.g. tests/bad_inputs/shapes/ */
    replay_file(path, &r);
  }
  closedir(d);
  printf("%s: %d accepted, %d refused\n", dir, r.accepted, r.refused);
  return r;
}

START_TEST(fuzz_regressions_replay) {
  /* Inputs the fuzzer found (tools/fuzz.sh saves them here); each must now
   * be handled. */
  struct replay r = replay_dir(DEM_SOURCE_DIR "/tests/fuzz/regressions");
  ck_assert_msg(r.accepted + r.refused >= 1,
                "tests/fuzz/regressions holds no input");
}
END_TEST

START_TEST(bad_inputs_replay) {
  struct replay r = replay_dir(DEM_SOURCE_DIR "/tests/bad_inputs");
  ck_assert_int_ge(r.accepted + r.refused, 30);
  /* most are refused before a run; the rest fail only when run (output
   * directory, time step warnings, numerical blow-up) */
  ck_assert_int_ge(r.refused, 20);
}
END_TEST

START_TEST(examples_replay) {
  /* box_chess.yaml names shape files relative to itself, which the
   * replay (text only) cannot find: refused, with a message */
  struct replay r = replay_dir(DEM_SOURCE_DIR "/examples");
  ck_assert_int_ge(r.accepted, 1);
  r = replay_dir(DEM_SOURCE_DIR "/examples/validation");
  ck_assert_int_ge(r.accepted, 3);
  ck_assert_int_eq(r.refused, 0);
  /* a named scheme alone is not a config: refused, with a message */
  r = replay_dir(DEM_SOURCE_DIR "/configs/schemes");
  ck_assert_int_ge(r.accepted + r.refused, 10);
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
