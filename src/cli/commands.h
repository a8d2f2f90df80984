/* The dem subcommands: each takes its arguments, returns the exit code. */
#ifndef DEM_CLI_COMMANDS_H
#define DEM_CLI_COMMANDS_H

/* `dem energy OUT.h5 [MORE.h5 ...] [--csv]`: energy drift report. */
int dem_cmd_energy(int argc, char **argv);

/* `dem run` / `dem check` (argv[0] is "run" or "check"). */
int dem_cmd_run(int argc, char **argv);

/* `dem operators`: every operator and rotation integrator with its doc. */
int dem_cmd_operators(int argc, char **argv);

/* `dem schemes [NAME]`: the named schemes, or one scheme's YAML. */
int dem_cmd_schemes(int argc, char **argv);

/* `dem study rotation [--out DIR] [--long]` (argv[0] is "rotation"). */
int dem_cmd_study(int argc, char **argv);

#endif
