/* `dem operators` and `dem schemes`: the reference, printed from the tables. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "config/config.h"
#include "contact/model.h"
#include "dem/status.h"
#include "integrators/rotation.h"
#include "operators/pipeline.h"
#include "operators/schemes_data.h"

enum { HELP };

static const struct dem_cli_option help_only[] = {
    {"help", 'h', NULL, "this text", HELP}, {0}};

static void operators_usage(FILE *f) {
  fputs("usage: dem operators\n"
        "\n"
        "Every operator a scheme may list, with its parameters, and every "
        "rotation\n"
        "integrator of push_rotation (docs/schemes.md explains how to "
        "write a scheme).\n"
        "\n",
        f);
  dem_cli_options_print(f, help_only);
}

static void schemes_usage(FILE *f) {
  fputs("usage: dem schemes [NAME]\n"
        "\n"
        "Without NAME: every named scheme (scheme: NAME in a config) with "
        "its first\n"
        "line of documentation. With NAME: that scheme's YAML, the "
        "operators it runs\n"
        "each step, to read or to copy into a config and edit.\n"
        "\n",
        f);
  dem_cli_options_print(f, help_only);
}

/* Reads the arguments of operators (no operand) or schemes (at most one);
 * returns -1 to go on, else the exit code. */
static int parse(int argc, char **argv, const char *command, int max_operands,
                 void (*usage)(FILE *), const char **operand) {
  struct dem_cli_parser p;
  const char *v;
  int c, n = 0;
  dem_cli_parser_init(&p, command, help_only, argc, argv);
  while ((c = dem_cli_parser_next(&p, &v)) != DEM_CLI_END) {
    if (c == HELP) {
      usage(stdout);
      return 0;
    }
    if (c == DEM_CLI_OPERAND && n < max_operands) {
      *operand = v;
      n++;
      continue;
    }
    if (c == DEM_CLI_OPERAND)
      dem_cli_usage_error(&p, "unexpected argument '%s'", v);
    return dem_status_exit_code(DEM_ERR_USAGE);
  }
  return -1;
}

int dem_cmd_operators(int argc, char **argv) {
  const char *none = NULL;
  int code = parse(argc, argv, "dem operators", 0, operators_usage, &none);
  if (code >= 0)
    return code;
  for (size_t i = 0; dem_operator_types[i]; i++) {
    const struct dem_operator_type *t = dem_operator_types[i];
    printf("%s\n  %s\n", t->name, t->doc);
    if (t->params && t->params[0]) {
      printf("  parameters:");
      for (size_t k = 0; t->params[k]; k++)
        printf(" %s", t->params[k]);
      printf("\n");
    }
    printf("\n");
  }
  printf("rotation integrators (push_rotation: {integrator: NAME}):\n\n");
  for (size_t i = 0; dem_rotation_integrators[i]; i++) {
    const struct dem_rotation_integrator *r = dem_rotation_integrators[i];
    printf("%s%s\n  %s\n\n", r->name,
           r->after_force ? " (two stages)"
                          : (r->leapfrog ? " (leapfrog)" : ""),
           r->doc);
  }
  printf("contact models (contact: {model: NAME}):\n\n");
  for (size_t i = 0; dem_contact_models[i]; i++)
    printf("%s\n  %s\n\n", dem_contact_models[i]->name,
           dem_contact_models[i]->doc);
  return 0;
}

int dem_cmd_schemes(int argc, char **argv) {
  const char *only = NULL;
  int code = parse(argc, argv, "dem schemes", 1, schemes_usage, &only);
  if (code >= 0)
    return code;
  for (size_t i = 0; dem_embedded_schemes[i].name; i++) {
    const struct dem_embedded_scheme *e = &dem_embedded_schemes[i];
    if (only && strcmp(only, e->name) != 0)
      continue;
    if (only) {
      fputs(e->text, stdout);
      return 0;
    }
    struct dem_config *cfg = NULL;
    const char *doc = NULL;
    if (dem_config_load_string(e->path, e->text, &cfg) == DEM_OK)
      doc = dem_node_scalar(dem_node_get(cfg->root, "doc"));
    int len = doc ? (int)strcspn(doc, "\n") : 0;
    printf("%-24s %.*s\n", e->name, len, doc ? doc : "");
    dem_config_free(cfg);
  }
  if (only) {
    fprintf(stderr,
            "dem schemes: unknown scheme '%s' (dem schemes lists them)\n",
            only);
    return dem_status_exit_code(DEM_ERR_USAGE);
  }
  return 0;
}
