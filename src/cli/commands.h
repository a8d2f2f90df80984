/* The dem subcommands: each takes its arguments, returns the exit code. */
#ifndef DEM_CLI_COMMANDS_H
#define DEM_CLI_COMMANDS_H

#include <getopt.h>
#include <stdio.h>

/* `dem energy OUT.h5 [MORE.h5 ...] [--csv]`: energy drift report. */
int dem_cmd_energy(int argc, char **argv);

/* `dem run` / `dem check` (argv[0] is "run" or "check"). */
int dem_cmd_run(int argc, char **argv);

/* `dem operators`: every operator and rotation integrator with its doc. */
int dem_cmd_operators(int argc, char **argv);

/* `dem schemes [NAME]`: the named schemes, or one scheme's YAML. */
int dem_cmd_schemes(int argc, char **argv);

/* `dem study rotation [--out DIR] [--long]` (argv[0] is "study"). */
int dem_cmd_study(int argc, char **argv);

/* ---- Option parsing shared by the subcommands (cmd_options.c) ---- */

/* One option of a subcommand; a table of them ends with {0}. */
struct dem_cli_option {
  const char *name;  /* the long form, --name */
  int letter;        /* the short form -l, or 0 */
  const char *value; /* the name of its value ("FILE"), NULL for a flag */
  const char *help;  /* for --help; may hold several lines */
  int id;            /* what dem_cli_parser_next returns for it (>= 0) */
};

/* The most entries a table may have (the parser's getopt_long tables are
 * fixed arrays; entries past this are left out). */
enum { DEM_CLI_MAX_OPTIONS = 16 };

/* What dem_cli_parser_next returns besides an option's id. */
enum {
  DEM_CLI_END = -1,     /* no argument left */
  DEM_CLI_OPERAND = -2, /* *value is an argument that is not an option */
  DEM_CLI_BAD = -3      /* a message is printed: exit with a usage error */
};

struct dem_cli_parser {
  const char *command; /* "dem run": the start of every message */
  const struct dem_cli_option *options;
  int argc;
  char **argv;
  struct option longopts[DEM_CLI_MAX_OPTIONS + 1];
  char shortopts[2 + 2 * DEM_CLI_MAX_OPTIONS + 1];
  int operands_only; /* "--" seen: the rest are operands */
};

/* Starts reading argv[1..argc-1] (argv[0] is the subcommand's name) with
 * getopt_long. Every long option takes --name VALUE and --name=VALUE. */
void dem_cli_parser_init(struct dem_cli_parser *p, const char *command,
                         const struct dem_cli_option *options, int argc,
                         char **argv);

/* The next option's id (its value, if it takes one, in *value), or an
 * operand in the order given, or the end; DEM_CLI_BAD after printing one
 * line that names the unknown option or the missing value. */
int dem_cli_parser_next(struct dem_cli_parser *p, const char **value);

/* Prints "COMMAND: MESSAGE; see COMMAND --help" on stderr and returns
 * DEM_CLI_BAD. */
int dem_cli_usage_error(const struct dem_cli_parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The "options:" part of a --help text, from the table. */
void dem_cli_options_print(FILE *f, const struct dem_cli_option *options);

#endif
