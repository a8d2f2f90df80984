/* The subcommands' options: one table drives getopt_long, the messages and the
 * option list of each --help. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

/* getopt_long's value for the long form of table entry i: above every
 * character, so a short letter and an entry never mix up. */
enum { LONG_BASE = 256 };

void dem_cli_parser_init(struct dem_cli_parser *p, const char *command,
                         const struct dem_cli_option *options, int argc,
                         char **argv) {
  size_t n = 0, k = 0;
  memset(p, 0, sizeof *p);
  p->command = command;
  p->options = options;
  p->argc = argc;
  p->argv = argv;
  /* '-': operands come back in place (code 1), so CONFIG.yaml may stand
   * anywhere, even under POSIXLY_CORRECT; ':': a missing value is ':'. */
  p->shortopts[k++] = '-';
  p->shortopts[k++] = ':';
  for (; options[n].name && n < DEM_CLI_MAX_OPTIONS; n++) {
    const struct dem_cli_option *o = &options[n];
    p->longopts[n] =
        (struct option){o->name, o->value ? required_argument : no_argument,
                        NULL, LONG_BASE + (int)n};
    if (o->letter) {
      p->shortopts[k++] = (char)o->letter;
      if (o->value)
        p->shortopts[k++] = ':';
    }
  }
  p->longopts[n] = (struct option){0};
  p->shortopts[k] = '\0';
  optind = 0; /* glibc: start afresh, argv[0] is the command's name */
  opterr = 0; /* the messages are dem's own */
}

/* The table entry getopt_long's code c stands for, or -1. */
static int entry_of(const struct dem_cli_parser *p, int c) {
  if (c >= LONG_BASE)
    return c - LONG_BASE;
  for (int i = 0; p->options[i].name; i++)
    if (c && p->options[i].letter == c)
      return i;
  return -1;
}

/* "--name" and, when it has one, "-l" for the messages. */
static void spelling(const struct dem_cli_option *o, char *buf, size_t size) {
  if (o->letter)
    snprintf(buf, size, "-%c/--%s", o->letter, o->name);
  else
    snprintf(buf, size, "--%s", o->name);
}

int dem_cli_parser_next(struct dem_cli_parser *p, const char **value) {
  char name[64];
  int c, i;
  *value = NULL;
  if (p->operands_only) { /* after "--" */
    if (optind >= p->argc)
      return DEM_CLI_END;
    *value = p->argv[optind++];
    return DEM_CLI_OPERAND;
  }
  c = getopt_long(p->argc, p->argv, p->shortopts, p->longopts, NULL);
  if (c == -1) {
    p->operands_only = 1;
    return dem_cli_parser_next(p, value);
  }
  if (c == 1) {
    *value = optarg;
    return DEM_CLI_OPERAND;
  }
  if (c == ':') {
    i = entry_of(p, optopt);
    if (i < 0) /* cannot happen: getopt_long names an option it knows */
      return dem_cli_usage_error(p, "an option needs a value");
    spelling(&p->options[i], name, sizeof name);
    return dem_cli_usage_error(p, "%s needs a value (%s)", name,
                               p->options[i].value);
  }
  if (c == '?') {
    /* optopt: the unknown letter; or a long option given a value it does
     * not take; 0 for an unknown long option (argv[optind-1] holds it). */
    i = optopt >= LONG_BASE ? entry_of(p, optopt) : -1;
    if (i >= 0)
      return dem_cli_usage_error(p, "--%s takes no value", p->options[i].name);
    if (optopt)
      return dem_cli_usage_error(p, "unknown option '-%c'", optopt);
    return dem_cli_usage_error(p, "unknown option '%s'", p->argv[optind - 1]);
  }
  i = entry_of(p, c);
  if (i < 0)
    return dem_cli_usage_error(p, "unexpected option code %d", c);
  *value = optarg;
  return p->options[i].id;
}

int dem_cli_usage_error(const struct dem_cli_parser *p, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", p->command);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "; see %s --help\n", p->command);
  return DEM_CLI_BAD;
}

void dem_cli_options_print(FILE *f, const struct dem_cli_option *options) {
  char left[DEM_CLI_MAX_OPTIONS][64];
  int width = 0, n = 0;
  for (; options[n].name && n < DEM_CLI_MAX_OPTIONS; n++) {
    const struct dem_cli_option *o = &options[n];
    char letter[8] = "    ";
    if (o->letter)
      snprintf(letter, sizeof letter, "-%c, ", o->letter);
    int len = snprintf(left[n], sizeof left[n], "  %s--%s%s%s", letter, o->name,
                       o->value ? " " : "", o->value ? o->value : "");
    if (len > width)
      width = len;
  }
  fputs("options:\n", f);
  for (int i = 0; i < n; i++) {
    /* help may hold several lines: each one goes in the right column */
    const char *h = options[i].help;
    fprintf(f, "%-*s  ", width, left[i]);
    for (;;) {
      size_t len = strcspn(h, "\n");
      fprintf(f, "%.*s\n", (int)len, h);
      if (!h[len])
        break;
      h += len + 1;
      fprintf(f, "%-*s  ", width, "");
    }
  }
}
