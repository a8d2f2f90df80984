/* `dem operators` and `dem schemes`: the reference, printed from the tables. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "config/config.h"
#include "contact/model.h"
#include "integrators/rotation.h"
#include "operators/pipeline.h"
#include "operators/schemes_data.h"

int dem_cmd_operators(int argc, char **argv) {
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
  const char *only = argc > 1 ? argv[1] : NULL;
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
    fprintf(stderr, "dem schemes: unknown scheme '%s'\n", only);
    return 2;
  }
  return 0;
}
