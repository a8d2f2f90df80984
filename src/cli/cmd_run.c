/* `dem run` and `dem check`: parse options and call dem_run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli/commands.h"
#include "dem/dem.h"

/* More threads than any node has cores: a larger number is a typo.
 * OMP_THREAD_LIMIT lowers it. */
#define MAX_THREADS 4096
#define TEXT(x) #x
#define NUMBER_TEXT(x) TEXT(x)

enum { OUTPUT, RESTART, SET, THREADS, FORCE, QUIET, HELP };

static const struct dem_cli_option run_options[] = {
    {"output", 'o', "FILE",
     "HDF5 output (default: output.file in the config,\n"
     "else CONFIG's name with .h5)",
     OUTPUT},
    {"restart", 0, "FILE",
     "continue the run in FILE from its last snapshot and\n"
     "append to it (same config, a later end_time)",
     RESTART},
    {"set", 0, "PATH=VALUE",
     "replace one value of the config (repeatable; VALUE\n"
     "is YAML): --set simulation.time_step=1e-5,\n"
     "--set scheme=omelyan",
     SET},
    {"threads", 0, "N",
     "OpenMP threads, 1 to " NUMBER_TEXT(
         MAX_THREADS) " (the results are bitwise\n"
                      "the same for any N)",
     THREADS},
    {"force", 0, NULL, "overwrite an existing output file", FORCE},
    {"quiet", 'q', NULL, "no progress line", QUIET},
    {"help", 'h', NULL, "this text", HELP},
    {0}};

static void run_usage(FILE *f) {
  fputs("usage: dem run CONFIG.yaml [-o OUT.h5] [--set PATH=VALUE ...] "
        "[--threads N]\n"
        "               [--force] [--quiet]\n"
        "       dem run CONFIG.yaml --restart OUT.h5 [--set ...] "
        "[--threads N]\n"
        "\n"
        "Checks CONFIG.yaml, runs it and writes the HDF5 file (and its .xmf "
        "sidecar).\n"
        "Every option takes its value as --name VALUE or --name=VALUE.\n"
        "\n",
        f);
  dem_cli_options_print(f, run_options);
}

static void check_usage(FILE *f) {
  fputs("usage: dem check CONFIG.yaml [-o OUT.h5] [--set PATH=VALUE ...] "
        "[--force]\n"
        "       dem check CONFIG.yaml --restart OUT.h5 [--set ...]\n"
        "\n"
        "Checks everything dem run would check before it starts (the "
        "config, the\n"
        "shapes, the initial state, the output path or the restart file) "
        "and writes\n"
        "nothing; prints 'CONFIG.yaml: ok' or the first problem. The "
        "options are\n"
        "those of dem run; --threads and --quiet do not change what is "
        "checked.\n"
        "\n",
        f);
  dem_cli_options_print(f, run_options);
}

/* The largest --threads value: MAX_THREADS, or OMP_THREAD_LIMIT if lower. */
static long max_threads(void) {
#ifdef _OPENMP
  if (omp_get_thread_limit() < MAX_THREADS)
    return omp_get_thread_limit();
#endif
  return MAX_THREADS;
}

/* Reads --threads N; DEM_CLI_BAD with a message naming the range. */
static int parse_threads(const struct dem_cli_parser *p, const char *text,
                         int *threads) {
  char *end;
  long max = max_threads();
  errno = 0;
  long n = strtol(text, &end, 10);
  if (end == text || *end || errno || n < 1 || n > max)
    return dem_cli_usage_error(
        p,
        "--threads: expected a positive integer, found '%s' (the allowed "
        "range is 1 to %ld%s)",
        text, max, max < MAX_THREADS ? ", set by OMP_THREAD_LIMIT" : "");
  *threads = (int)n;
  return 0;
}

int dem_cmd_run(int argc, char **argv) {
  struct dem_run_options opt = {0};
  struct dem_cli_parser p;
  const char *v;
  const char **sets = calloc((size_t)argc, sizeof *sets);
  int check = strcmp(argv[0], "check") == 0;
  int code = dem_status_exit_code(DEM_ERR_USAGE), c;
  if (!sets) {
    fprintf(stderr, "dem %s: out of memory\n", argv[0]);
    return dem_status_exit_code(DEM_ERR_NOMEM);
  }
  opt.check_only = check;
  dem_cli_parser_init(&p, check ? "dem check" : "dem run", run_options, argc,
                      argv);
  while ((c = dem_cli_parser_next(&p, &v)) != DEM_CLI_END) {
    switch (c) {
    case DEM_CLI_BAD:
      goto done;
    case HELP:
      (check ? check_usage : run_usage)(stdout);
      code = 0;
      goto done;
    case OUTPUT:
      opt.output = v;
      break;
    case RESTART:
      opt.restart = v;
      break;
    case SET:
      /* config_set reads PATH=VALUE; without '=' it would name the
       * whole text as a path, so say here what is missing. */
      if (!strchr(v, '=') || v[0] == '=') {
        dem_cli_usage_error(&p, "--set needs PATH=VALUE, found '%s'", v);
        goto done;
      }
      sets[opt.n_sets++] = v;
      break;
    case THREADS:
      if (parse_threads(&p, v, &opt.threads) == DEM_CLI_BAD)
        goto done;
      break;
    case FORCE:
      opt.force = 1;
      break;
    case QUIET:
      opt.quiet = 1;
      break;
    case DEM_CLI_OPERAND:
      if (opt.config_path) {
        dem_cli_usage_error(&p, "one config file expected, found '%s' too", v);
        goto done;
      }
      opt.config_path = v;
      break;
    }
  }
  if (!opt.config_path) {
    fprintf(stderr, "%s: missing CONFIG.yaml\n", p.command);
    (check ? check_usage : run_usage)(stderr);
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
