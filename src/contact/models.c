/* The table of contact models and putting one to work. Adding a model: a
 * file and a line here. */
#include <stdlib.h>
#include <string.h>

#include "contact/model.h"
#include "sim/contacts.h"

extern const struct dem_contact_model dem_contact_hertz,
    dem_contact_hertz_mindlin;

const struct dem_contact_model *const dem_contact_models[] = {
    &dem_contact_hertz, &dem_contact_hertz_mindlin, NULL};

const struct dem_contact_model *dem_contact_model_find(const char *name) {
  for (size_t i = 0; dem_contact_models[i]; i++)
    if (strcmp(dem_contact_models[i]->name, name) == 0)
      return dem_contact_models[i];
  return NULL;
}

dem_status dem_contact_law_init(struct dem_sim *sim,
                                const struct dem_contact_model *model,
                                const struct dem_pair_props *props) {
  struct dem_contact_law *law = &sim->law;
  const size_t n = sim->n_materials, size = model->params_size;
  free(law->params);
  law->model = model;
  law->n_materials = n;
  law->params_size = size;
  free(law->props);
  law->params = calloc(n > 0 ? n * n : 1, size ? size : 1);
  law->props = calloc(n > 0 ? n * n : 1, sizeof *law->props);
  if (!law->params || !law->props)
    return dem_fail(DEM_ERR_NOMEM, "out of memory for contact parameters");
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; b < n; b++) {
      struct dem_pair_props *p = &law->props[a * n + b];
      *p = props ? props[a * n + b] : (struct dem_pair_props){1.0, 0.0, 0.0, 0};
      dem_status st = model->mix(&sim->materials[a], &sim->materials[b], p,
                                 (char *)law->params + (a * n + b) * size);
      if (st)
        return st;
    }
  dem_status st = model->prepare ? model->prepare(law) : DEM_OK;
  if (st)
    return st;
  return dem_contacts_init(sim, model->state_width,
                           (model->flags & DEM_MODEL_TORQUE) != 0,
                           (model->flags & DEM_MODEL_DISSIPATIVE) != 0,
                           (model->flags & DEM_MODEL_VELOCITY) != 0);
}
