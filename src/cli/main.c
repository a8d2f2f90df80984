/* dem's command line: dispatches to the subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "dem/dem.h"

static void usage(FILE *f) {
  fprintf(f,
          "dem %s: a multi-sphere discrete element engine\n"
          "\n"
          "usage: dem run CONFIG.yaml [-o OUT.h5] [--set PATH=VALUE ...] "
          "[--threads N] [--force]\n"
          "       dem run CONFIG.yaml --restart OUT.h5\n"
          "       dem check CONFIG.yaml [--set PATH=VALUE ...]\n"
          "       dem energy OUT.h5 [MORE.h5 ...] [--csv]\n"
          "       dem study rotation [--out DIR] [--long]\n"
          "       dem operators | dem schemes [NAME]\n"
          "       dem --help | --version\n"
          "\n"
          "`dem COMMAND --help` (or `dem help COMMAND`) shows a command's "
          "options.\n"
          "Docs: README.md and docs/.\n",
          DEM_VERSION_STRING);
}

/* The subcommands; each reads its own arguments, argv[0] being its name. */
static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
} commands[] = {
    {"run", dem_cmd_run},         {"check", dem_cmd_run},
    {"energy", dem_cmd_energy},   {"operators", dem_cmd_operators},
    {"schemes", dem_cmd_schemes}, {"study", dem_cmd_study},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static int (*find_command(const char *name))(int, char **) {
  for (int i = 0; i < N_COMMANDS; i++)
    if (strcmp(commands[i].name, name) == 0)
      return commands[i].run;
  return NULL;
}

/* A waiting thread spins a short while, then sleeps, unless the user
 * chose a policy. libgomp's default spins up to 300,000 times at each of
 * a step's barriers; on a machine whose cores are shared with other jobs a
 * spinning thread holds its core while its partner waits for a time slice,
 * and two threads ran 10-30x slower than one. Passive waiting cures that
 * but makes small systems (3,200 spheres, 46 us a step) 6x slower, every
 * barrier becoming a sleep. A short spin serves both (measured in
 * docs/performance.md). LLVM's libomp (the runtime CMake links where it is
 * installed) reads its setting at its first call, so dem sets it here;
 * libgomp reads its own when it loads, before main, so dem sets that and
 * runs itself again once. */
static void prefer_short_spin(char **argv) {
#ifdef DEM_OPENMP_LLVM
  (void)argv;
  if (!getenv("OMP_WAIT_POLICY") && !getenv("KMP_BLOCKTIME"))
    setenv("KMP_BLOCKTIME", "1", 1); /* ms */
#else
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
    return;
  if (setenv("GOMP_SPINCOUNT", "20000", 1) == 0)
    execv("/proc/self/exe", argv); /* returns only on failure: go on */
#endif
}

int main(int argc, char **argv) {
  prefer_short_spin(argv);
  if (argc < 2) {
    usage(stderr);
    return dem_status_exit_code(DEM_ERR_USAGE);
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
      (strcmp(cmd, "help") == 0 && argc == 2)) {
    usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("dem %s\n", DEM_VERSION_STRING);
    return 0;
  }
  if (strcmp(cmd, "help") == 0) { /* dem help COMMAND: COMMAND --help */
    int (*run)(int, char **) = argc == 3 ? find_command(argv[2]) : NULL;
    char *help_argv[] = {argv[2], "--help", NULL};
    if (run)
      return run(2, help_argv);
    if (argc == 3)
      fprintf(stderr,
              "dem help: unknown command '%s' (dem --help lists them)\n",
              argv[2]);
    else
      fprintf(stderr, "dem help: expected one command name\n");
    return dem_status_exit_code(DEM_ERR_USAGE);
  }
  int (*run)(int, char **) = find_command(cmd);
  if (run)
    return run(argc - 1, argv + 1);
  fprintf(stderr, "dem: unknown command '%s' (dem --help lists them)\n", cmd);
  return dem_status_exit_code(DEM_ERR_USAGE);
}
