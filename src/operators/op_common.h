/* Helpers shared by operator implementations (parameter reading). */
#ifndef DEM_OP_COMMON_H
#define DEM_OP_COMMON_H

#include "operators/pipeline.h"

/* Reads the optional dt_scale (default 1, any finite non-zero value). */
static inline dem_status dem_op_read_dt_scale(struct dem_op *op,
                                              const struct dem_node *params) {
  op->dt_scale = 1.0;
  if (!params)
    return DEM_OK;
  dem_status st =
      dem_cfg_double(params, "dt_scale", 0, 1.0, DEM_ANY, &op->dt_scale);
  if (!st && op->dt_scale == 0.0)
    return dem_cfg_error(dem_node_get(params, "dt_scale"),
                         "key 'dt_scale': must not be 0");
  return st;
}

#endif
