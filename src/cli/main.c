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
          "usage: dem run CONFIG.yaml [-o OUT.h5] [--set path.key=value ...] "
          "[--threads N] [--force]\n"
          "                [--restart OUT.h5]\n"
          "       dem check CONFIG.yaml [--set path.key=value ...]\n"
          "       dem energy OUT.h5 [MORE.h5 ...] [--csv]\n"
          "       dem study rotation [--out DIR] [--long]\n"
          "       dem operators | dem schemes [NAME]\n"
          "       dem --help | --version\n"
          "\n"
          "Run `dem COMMAND --help` for a command's options. Docs: README.md "
          "and docs/.\n",
          DEM_VERSION_STRING);
}

/* libgomp's default wait policy spins up to 300,000 times at each of a
 * step's barriers; on a machine whose cores are shared with other jobs a
 * spinning thread holds its core while its partner waits for a time slice,
 * and two threads ran 10-30x slower than one. Passive waiting cures that
 * but makes small systems (3,200 spheres, 46 us a step) 6x slower, every
 * barrier becoming a sleep. A short spin serves both (measured in
 * docs/performance.md). libgomp reads the setting when it loads, before
 * main, so dem sets it and runs itself again once, unless the user chose
 * a policy or a spin count. */
static void prefer_short_spin(char **argv) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
    return;
  if (setenv("GOMP_SPINCOUNT", "20000", 1) == 0)
    execv("/proc/self/exe", argv); /* returns only on failure: go on */
}

int main(int argc, char **argv) {
  prefer_short_spin(argv);
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
      strcmp(cmd, "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("dem %s\n", DEM_VERSION_STRING);
    return 0;
  }
  if (strcmp(cmd, "run") == 0 || strcmp(cmd, "check") == 0)
    return dem_cmd_run(argc - 1, argv + 1);
  if (strcmp(cmd, "operators") == 0)
    return dem_cmd_operators(argc - 1, argv + 1);
  if (strcmp(cmd, "schemes") == 0)
    return dem_cmd_schemes(argc - 1, argv + 1);
  if (strcmp(cmd, "energy") == 0)
    return dem_cmd_energy(argc - 1, argv + 1);
  if (strcmp(cmd, "study") == 0)
    return dem_cmd_study(argc - 2 < 0 ? 0 : argc - 2, argv + 2);
  fprintf(stderr, "dem: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
