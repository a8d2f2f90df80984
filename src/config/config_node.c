/* Config tree nodes: allocation, navigation accessors, paths and descriptions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

static char *copy_string(const char *s) {
  size_t len = strlen(s) + 1;
  char *c = malloc(len);
  if (c)
    memcpy(c, s, len);
  return c;
}

struct dem_node *dem_node_new(enum dem_node_kind kind, const char *file,
                              int line, int col) {
  struct dem_node *n = calloc(1, sizeof *n);
  if (!n)
    return NULL;
  n->kind = kind;
  n->style = DEM_STYLE_PLAIN;
  n->line = line;
  n->col = col;
  n->file = copy_string(file ? file : "");
  n->text = copy_string("");
  if (!n->file || !n->text) {
    dem_node_free(n);
    return NULL;
  }
  return n;
}

void dem_node_free(struct dem_node *n) {
  if (!n)
    return;
  for (size_t i = 0; i < n->n; i++) {
    if (n->keys)
      dem_node_free(n->keys[i]);
    dem_node_free(n->items[i]);
  }
  free(n->keys);
  free(n->items);
  free(n->index);
  free(n->text);
  free(n->file);
  free(n);
}

/* Mappings up to this many keys are searched key by key. */
enum { INDEX_MIN_KEYS = 16 };

/* FNV-1a of the first len bytes of s. */
static size_t hash_key(const char *s, size_t len) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
  return (size_t)(h ^ (h >> 32));
}

/* Puts key position i into the table (which has room). */
static void index_put(struct dem_node *map, size_t i) {
  const char *k = map->keys[i]->text;
  size_t mask = map->index_cap - 1;
  size_t slot = hash_key(k, strlen(k)) & mask;
  while (map->index[slot])
    slot = (slot + 1) & mask;
  map->index[slot] = i + 1;
}

/* Keeps the table at most half full: rebuilt at twice the size. */
static dem_status index_grow(struct dem_node *map) {
  size_t cap = map->index_cap ? 2 * map->index_cap : 4 * INDEX_MIN_KEYS;
  while (cap < 2 * map->n)
    cap *= 2;
  size_t *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return DEM_ERR_NOMEM;
  free(map->index);
  map->index = slots;
  map->index_cap = cap;
  for (size_t i = 0; i < map->n; i++)
    index_put(map, i);
  return DEM_OK;
}

dem_status dem_node_append(struct dem_node *parent, struct dem_node *key,
                           struct dem_node *value) {
  if (parent->n == parent->cap) {
    size_t cap = parent->cap ? 2 * parent->cap : 4;
    struct dem_node **items = realloc(parent->items, cap * sizeof *items);
    if (!items)
      return DEM_ERR_NOMEM;
    parent->items = items;
    if (parent->kind == DEM_NODE_MAPPING) {
      struct dem_node **keys = realloc(parent->keys, cap * sizeof *keys);
      if (!keys)
        return DEM_ERR_NOMEM;
      parent->keys = keys;
    }
    parent->cap = cap;
  }
  if (parent->kind == DEM_NODE_MAPPING) {
    parent->keys[parent->n] = key;
    /* The index is made once the mapping grows past a few keys. */
    if (parent->n + 1 > INDEX_MIN_KEYS &&
        2 * (parent->n + 1) > parent->index_cap) {
      parent->n++;
      dem_status st = index_grow(parent);
      parent->n--;
      if (st != DEM_OK)
        return st;
    } else if (parent->index_cap) {
      index_put(parent, parent->n);
    }
    key->parent = parent;
  }
  parent->items[parent->n++] = value;
  value->parent = parent;
  return DEM_OK;
}

size_t dem_node_find_n(const struct dem_node *map, const char *key,
                       size_t len) {
  if (!map || !key || map->kind != DEM_NODE_MAPPING)
    return SIZE_MAX;
  if (!map->index_cap) {
    for (size_t i = 0; i < map->n; i++)
      if (strlen(map->keys[i]->text) == len &&
          memcmp(map->keys[i]->text, key, len) == 0)
        return i;
    return SIZE_MAX;
  }
  size_t mask = map->index_cap - 1;
  for (size_t slot = hash_key(key, len) & mask; map->index[slot];
       slot = (slot + 1) & mask) {
    size_t i = map->index[slot] - 1;
    if (strlen(map->keys[i]->text) == len &&
        memcmp(map->keys[i]->text, key, len) == 0)
      return i;
  }
  return SIZE_MAX;
}

size_t dem_node_find(const struct dem_node *map, const char *key) {
  return key ? dem_node_find_n(map, key, strlen(key)) : SIZE_MAX;
}

static const char *key_name(const void *map, size_t i) {
  return dem_node_key_at(map, i);
}

const char *dem_node_closest_key(const struct dem_node *map, const char *word) {
  if (!map || map->kind != DEM_NODE_MAPPING)
    return NULL;
  return dem_closest_name(word, map->n, key_name, map);
}

/* Appends the path of n (a value, not a key) to buf at *used. */
static void path_append(const struct dem_node *n, char *buf, size_t size,
                        size_t *used) {
  const struct dem_node *p = n->parent;
  if (!p)
    return;
  path_append(p, buf, size, used);
  size_t i = 0;
  while (i < p->n && p->items[i] != n)
    i++;
  if (i == p->n)
    return; /* a key node: its parent's path is the best we have */
  const char *sep = p->parent ? "." : "";
  int w;
  if (p->kind == DEM_NODE_MAPPING)
    w = snprintf(buf + *used, size - *used, "%s%s", sep, p->keys[i]->text);
  else
    w = snprintf(buf + *used, size - *used, "%s%zu", sep, i);
  if (w > 0)
    *used = (size_t)w >= size - *used ? size - 1 : *used + (size_t)w;
}

void dem_node_path(const struct dem_node *n, char *buf, size_t size) {
  if (size == 0)
    return;
  buf[0] = '\0';
  size_t used = 0;
  if (n)
    path_append(n, buf, size, &used);
}

void dem_node_describe(const struct dem_node *n, char *buf, size_t size) {
  if (!n) {
    snprintf(buf, size, "nothing");
  } else if (n->kind == DEM_NODE_SEQUENCE) {
    snprintf(buf, size, "a list");
  } else if (n->kind == DEM_NODE_MAPPING) {
    snprintf(buf, size, "a mapping");
  } else if (n->text[0] == '\0') {
    snprintf(buf, size, "an empty value");
  } else if (strlen(n->text) > 60) {
    snprintf(buf, size, "'%.57s...'", n->text);
  } else {
    snprintf(buf, size, "'%s'", n->text);
  }
}

enum dem_node_kind dem_node_kind(const struct dem_node *n) {
  return n ? n->kind : DEM_NODE_SCALAR;
}

int dem_node_line(const struct dem_node *n) { return n ? n->line : 0; }

int dem_node_col(const struct dem_node *n) { return n ? n->col : 0; }

const char *dem_node_file(const struct dem_node *n) { return n ? n->file : ""; }

size_t dem_node_size(const struct dem_node *n) {
  return n && n->kind != DEM_NODE_SCALAR ? n->n : 0;
}

const struct dem_node *dem_node_at(const struct dem_node *seq_or_map,
                                   size_t i) {
  if (!seq_or_map || seq_or_map->kind == DEM_NODE_SCALAR || i >= seq_or_map->n)
    return NULL;
  return seq_or_map->items[i];
}

const char *dem_node_key_at(const struct dem_node *map, size_t i) {
  const struct dem_node *k = dem_node_key_node_at(map, i);
  return k ? k->text : NULL;
}

const struct dem_node *dem_node_key_node_at(const struct dem_node *map,
                                            size_t i) {
  if (!map || map->kind != DEM_NODE_MAPPING || i >= map->n)
    return NULL;
  return map->keys[i];
}

const struct dem_node *dem_node_get(const struct dem_node *map,
                                    const char *key) {
  size_t i = dem_node_find(map, key);
  return i == SIZE_MAX ? NULL : map->items[i];
}

const char *dem_node_scalar(const struct dem_node *n) {
  return n && n->kind == DEM_NODE_SCALAR ? n->text : NULL;
}
