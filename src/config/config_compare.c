/* Comparing two configuration trees: what a restart uses to tell whether
 * a config describes the run stored in a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* Scalars are the same when their text is, or when both are numbers of
 * the same value ("1.0e9" and "1e9"). */
static int same_scalar(const char *a, const char *b) {
  char *ea, *eb;
  if (!a || !b)
    return a == b;
  if (strcmp(a, b) == 0)
    return 1;
  double x = strtod(a, &ea), y = strtod(b, &eb);
  return ea != a && eb != b && !*ea && !*eb && x == y;
}

static int skipped(const char *path, const char *const *skip) {
  for (; skip && *skip; skip++)
    if (strcmp(path, *skip) == 0)
      return 1;
  return 0;
}

struct diff {
  const char *const *skip;
  char *where;
  size_t size;
  const struct dem_node **at_a, **at_b;
};

static int found(struct diff *d, const char *path, const struct dem_node *a,
                 const struct dem_node *b) {
  snprintf(d->where, d->size, "%s", path);
  *d->at_a = a;
  *d->at_b = b;
  return 1;
}

/* Appends a key or an index to path into buf. */
static void extend(char *buf, size_t size, const char *path, const char *key,
                   size_t index) {
  if (key)
    snprintf(buf, size, "%s%s%s", path, path[0] ? "." : "", key);
  else
    snprintf(buf, size, "%s[%zu]", path, index);
}

static int differ(struct diff *d, const char *path, const struct dem_node *a,
                  const struct dem_node *b) {
  char sub[1024];
  if (skipped(path, d->skip))
    return 0;
  /* A mapping on one side only compares as against an empty one, so
   * that keys allowed to change may appear in a section the other lacks
   * ("contact: {sort_bodies: on}"). */
  const struct dem_node *one = a ? a : b;
  if ((!a || !b) && one && dem_node_kind(one) == DEM_NODE_MAPPING) {
    for (size_t i = 0; i < dem_node_size(one); i++) {
      extend(sub, sizeof sub, path, dem_node_key_at(one, i), 0);
      if (!skipped(sub, d->skip))
        return a ? found(d, sub, dem_node_at(a, i), NULL)
                 : found(d, sub, NULL, dem_node_at(b, i));
    }
    return 0;
  }
  if (!a || !b || dem_node_kind(a) != dem_node_kind(b))
    return found(d, path, a, b);
  switch (dem_node_kind(a)) {
  case DEM_NODE_SCALAR:
    return same_scalar(dem_node_scalar(a), dem_node_scalar(b))
               ? 0
               : found(d, path, a, b);
  case DEM_NODE_SEQUENCE:
    for (size_t i = 0; i < dem_node_size(a) || i < dem_node_size(b); i++) {
      extend(sub, sizeof sub, path, NULL, i);
      if (differ(d, sub, dem_node_at(a, i), dem_node_at(b, i)))
        return 1;
    }
    return 0;
  case DEM_NODE_MAPPING:
    for (size_t i = 0; i < dem_node_size(a); i++) {
      const char *key = dem_node_key_at(a, i);
      extend(sub, sizeof sub, path, key, 0);
      if (differ(d, sub, dem_node_at(a, i), dem_node_get(b, key)))
        return 1;
    }
    for (size_t i = 0; i < dem_node_size(b); i++) {
      const char *key = dem_node_key_at(b, i);
      extend(sub, sizeof sub, path, key, 0);
      if (!dem_node_get(a, key) && !skipped(sub, d->skip))
        return found(d, sub, NULL, dem_node_at(b, i));
    }
    return 0;
  }
  return 0;
}

int dem_node_differ(const struct dem_node *a, const struct dem_node *b,
                    const char *const *skip, char *where, size_t size,
                    const struct dem_node **at_a,
                    const struct dem_node **at_b) {
  struct diff d = {skip, where, size, at_a, at_b};
  *at_a = *at_b = NULL;
  if (size)
    where[0] = '\0';
  return differ(&d, "", a, b);
}
