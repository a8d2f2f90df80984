/* The names of a const table (operators, integrators, contact models), for
 * messages and choices, however long the table grows. */
#ifndef DEM_NAMES_H
#define DEM_NAMES_H

#include <stdlib.h>

/* `table` is NULL-terminated, of pointers to structs whose first member is
 * their name. Returns a new NULL-terminated array of the names (the caller
 * frees the array, not the names), or NULL when out of memory. */
static inline const char **dem_table_names(const void *const *table) {
  size_t n = 0;
  while (table[n])
    n++;
  const char **names = malloc((n + 1) * sizeof *names);
  if (!names)
    return NULL;
  for (size_t i = 0; i < n; i++)
    names[i] = *(const char *const *)table[i];
  names[n] = NULL;
  return names;
}

#endif
