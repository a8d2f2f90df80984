/* The `hertz_mindlin` loops for any x86-64 (or other) processor. */
#define DEM_HM_LOOP(name) dem_hm_##name
#include "contact/hertz_mindlin_lanes.h"
