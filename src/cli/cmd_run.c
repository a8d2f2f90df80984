/* `dem run` and `dem check`: parse options and call dem_run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "dem/dem.h"

static void run_usage(FILE *f) {
  fprintf(f,
          "usage: dem run CONFIG.yaml [-o OUT.h5] [--set path.to.key=value "
          "...]\n"
          "               [--threads N] [--force] [--quiet]\n"
          "       dem run CONFIG.yaml --restart OUT.h5 [--set ...] "
          "[--threads N]\n"
          "       dem check CONFIG.yaml [--set path.to.key=value ...] "
          "[--restart OUT.h5]\n"
          "\n"
          "  -o, --output FILE   HDF5 output (default: output.file, else "
          "CONFIG's name .h5)\n"
          "  --restart FILE      continue the run in FILE from its last "
          "snapshot and\n"
          "                      append to it (same config, a later "
          "end_time)\n"
          "  --set PATH=VALUE    replace one value of the config (repeatable; "
          "VALUE is YAML)\n"
          "  --threads N         OpenMP threads (results are bitwise the same "
          "for any N)\n"
          "  --force             overwrite an existing output file\n"
          "  --quiet             no progress line\n");
}

int dem_cmd_run(int argc, char **argv) {
  struct dem_run_options opt = {0};
  const char **sets = calloc((size_t)argc, sizeof *sets);
  int code = 2;
  if (!sets)
    return 1;
  opt.check_only = strcmp(argv[0], "check") == 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_value = i + 1 < argc;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      run_usage(stdout);
      code = 0;
      goto done;
    } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) &&
               has_value) {
      opt.output = argv[++i];
    } else if (strcmp(a, "--restart") == 0 && has_value) {
      opt.restart = argv[++i];
    } else if (strcmp(a, "--set") == 0 && has_value) {
      sets[opt.n_sets++] = argv[++i];
    } else if (strncmp(a, "--set=", 6) == 0) {
      sets[opt.n_sets++] = a + 6;
    } else if (strcmp(a, "--threads") == 0 && has_value) {
      char *end;
      long n = strtol(argv[++i], &end, 10);
      if (*end || n < 1 || n > 4096) {
        fprintf(stderr,
                "dem: --threads: expected a positive integer, found "
                "'%s'\n",
                argv[i]);
        goto done;
      }
      opt.threads = (int)n;
    } else if (strcmp(a, "--force") == 0) {
      opt.force = 1;
    } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
      opt.quiet = 1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "dem %s: unknown or incomplete option '%s'\n", argv[0],
              a);
      run_usage(stderr);
      goto done;
    } else if (!opt.config_path) {
      opt.config_path = a;
    } else {
      fprintf(stderr, "dem %s: one config file expected, found '%s' too\n",
              argv[0], a);
      goto done;
    }
  }
  if (!opt.config_path) {
    fprintf(stderr, "dem %s: missing CONFIG.yaml\n", argv[0]);
    run_usage(stderr);
    goto done;
  }
  opt.sets = sets;
  dem_error_clear();
  dem_status st = dem_run(&opt);
  if (st) {
    const char *msg = dem_last_error();
    fprintf(stderr, "%s\n", msg[0] ? msg : dem_status_message(st));
  } else if (opt.check_only) {
    fprintf(stderr, "%s: ok\n", opt.config_path);
  }
  code = dem_status_exit_code(st);
done:
  free(sets);
  return code;
}
