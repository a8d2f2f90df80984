/* Internals shared by the config module's files: the node struct and helpers.
 */
#ifndef DEM_CONFIG_INTERNAL_H
#define DEM_CONFIG_INTERNAL_H

#include <stddef.h>

#include "config/config.h"

/* How a scalar was written, so that emitting keeps quotes where the user
 * put them. */
enum dem_scalar_style {
  DEM_STYLE_PLAIN,
  DEM_STYLE_SINGLE,
  DEM_STYLE_DOUBLE,
  DEM_STYLE_LITERAL,
  DEM_STYLE_FOLDED
};

struct dem_node {
  enum dem_node_kind kind;
  enum dem_scalar_style style; /* scalars */
  int flow;                    /* collections written as [..] or {..} */
  int line, col;               /* 1-based */
  char *file;                  /* owned copy of the source name */
  char *text;                  /* scalars: the raw text */
  struct dem_node *parent;     /* NULL for a root */
  struct dem_node **keys;      /* mappings: key nodes (scalars) */
  struct dem_node **items;     /* sequence items / mapping values */
  size_t n, cap;
  /* Mappings of more than a few keys: an open-addressing hash table of key
   * positions plus one (0: empty slot), so that finding a key, and so the
   * duplicate-key check while parsing, takes constant time. */
  size_t *index;
  size_t index_cap; /* slots, a power of two; 0: no index yet */
};

/* The deepest nesting a config may have: a collection at depth d (the root
 * at 0) with d > DEM_CONFIG_MAX_DEPTH is refused, by the loader and by
 * --set alike, so that every tree in memory emits YAML that loads back.
 * Deeper is surely a mistake, and the loader's recursion must end. */
enum { DEM_CONFIG_MAX_DEPTH = 256 };

/* A parse failure before it becomes a message: position (1-based, 0 when
 * unknown) and the problem text with libyaml's context, if any. */
struct dem_yaml_error {
  int line, col;
  char msg[512];
  size_t problem_len; /* msg without libyaml's "(while parsing ...)" */
};

/* Parses one YAML document from text[0..len) into a tree whose nodes report
 * `file`; positions on the first line are moved right by col_offset (for a
 * value that sits after "path=" on a command line). *root is NULL when the text
 * holds no document. Rejects anchors, aliases, tags, duplicate or non-scalar
 * keys and more than one document. On failure fills *err and returns
 * DEM_ERR_CONFIG (or DEM_ERR_NOMEM), without recording a message. */
dem_status dem_yaml_parse(const char *file, const char *text, size_t len,
                          int col_offset, struct dem_node **root,
                          struct dem_yaml_error *err);

/* A new empty node (scalar text ""), or NULL on out of memory. */
struct dem_node *dem_node_new(enum dem_node_kind kind, const char *file,
                              int line, int col);
/* Frees a node and everything under it (NULL is fine). */
void dem_node_free(struct dem_node *n);
/* Appends an item (key NULL) to a sequence or a pair to a mapping; takes
 * ownership of key and value on success. */
dem_status dem_node_append(struct dem_node *parent, struct dem_node *key,
                           struct dem_node *value);
/* Same as dem_node_find for a key of `len` bytes (not NUL-terminated). */
size_t dem_node_find_n(const struct dem_node *map, const char *key, size_t len);

/* The dotted path of a node from its root ("shapes.rod", "particles.0");
 * "" for a root. Writes at most size bytes. */
void dem_node_path(const struct dem_node *n, char *buf, size_t size);
/* What a node is, for "found ..." in messages: "'abc'", "a list",
 * "a mapping", "an empty value". */
void dem_node_describe(const struct dem_node *n, char *buf, size_t size);

#endif
