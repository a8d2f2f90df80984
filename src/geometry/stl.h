/* Reading triangles from STL files, ASCII or binary. */
#ifndef DEM_STL_H
#define DEM_STL_H

#include <stddef.h>
#include <stdio.h>

#include "dem/status.h"

/* Reads every triangle of the STL file f (binary when its size is 84 + 50
 * n bytes for the n its header gives, ASCII when it begins with "solid"
 * otherwise) into *tri (n x 3 vertices x 3 coordinates; caller frees).
 * Fails with DEM_ERR_CONFIG and "NAME: ..." naming the triangle (1-based)
 * or line for: not STL, truncated, a coordinate that is not a finite
 * number, more than max_triangles, no triangle at all. The normals the
 * file stores are ignored (dem computes its own). */
dem_status dem_stl_read(FILE *f, const char *name, size_t max_triangles,
                        double (**tri)[3][3], size_t *n);

#endif
