/* YAML configuration: a node tree that keeps line:col, typed getters, --set
 * overrides. */
#ifndef DEM_CONFIG_H
#define DEM_CONFIG_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "dem/status.h"

enum dem_node_kind { DEM_NODE_SCALAR, DEM_NODE_SEQUENCE, DEM_NODE_MAPPING };

struct dem_node; /* opaque; owned by its dem_config */

struct dem_config {
  char *path;            /* file name used in messages */
  struct dem_node *root; /* a mapping */
};

/* The largest configuration file dem reads (docs/configuration.md). */
#define DEM_CONFIG_MAX_BYTES (16LL * 1024 * 1024)

/* Parses a YAML file. Malformed YAML, duplicate keys, anchors/aliases or a
 * root that is not a mapping fail with DEM_ERR_CONFIG and
 * "FILE:LINE:COL: message"; a missing or unreadable file fails with
 * DEM_ERR_CONFIG and "FILE: cannot open: reason", and so do a directory, a
 * device, a FIFO and a file of more than DEM_CONFIG_MAX_BYTES (nothing is
 * read from them). */
dem_status dem_config_load(const char *path, struct dem_config **out);
/* Same from text; name is what messages call the file. */
dem_status dem_config_load_string(const char *name, const char *text,
                                  struct dem_config **out);
void dem_config_free(struct dem_config *cfg);

/* Applies "a.b.c=value": value is parsed as YAML (scalar, [list] or {map})
 * and replaces (or creates) the node at the dotted path; intermediate
 * mappings are created when missing. A sequence index may appear as a
 * number ("particles.0.random_fill.count=5"). Errors name the assignment:
 * "--set 'a.b=...': ..." (DEM_ERR_USAGE) and leave the tree unchanged.
 * Nodes created by --set report their position as "--set:1:COL", COL
 * counted in the whole assignment. */
dem_status dem_config_set(struct dem_config *cfg, const char *assignment);

/* The tree as YAML text (block style, keys in file order), as run after
 * overrides. Caller frees. NULL on out of memory. */
char *dem_config_emit(const struct dem_config *cfg);
/* Emits one subtree (used to store a scheme or a shape). Caller frees. */
char *dem_node_emit(const struct dem_node *node);

/* Whether two trees hold different values: mappings compare by key (in
 * any order), sequences item by item, scalars by text or, when both are
 * numbers, by value ("1.0e9" = "1e9"). Dotted paths in `skip` (NULL-
 * terminated, e.g. "simulation.end_time", "output") are not compared.
 * Returns 0 when they hold the same; else 1, the dotted path of the first
 * difference in `where` ("materials.glass.young_modulus", "particles[0]
 * .body.velocity[1]") and the nodes there (NULL on a side without it). */
int dem_node_differ(const struct dem_node *a, const struct dem_node *b,
                    const char *const *skip, char *where, size_t size,
                    const struct dem_node **at_a, const struct dem_node **at_b);

/* Navigation. Mapping keys keep file order. All accept NULL (kind SCALAR,
 * line/col 0, file "", size 0, NULL results). */
enum dem_node_kind dem_node_kind(const struct dem_node *n);
int dem_node_line(const struct dem_node *n); /* 1-based */
int dem_node_col(const struct dem_node *n);  /* 1-based */
/* Which file the node came from (the config's path, "--set", or an
 * included scheme file's name). */
const char *dem_node_file(const struct dem_node *n);
size_t dem_node_size(const struct dem_node *n); /* items / pairs; 0 scalar */
const struct dem_node *dem_node_at(const struct dem_node *seq_or_map,
                                   size_t i); /* value i */
const char *dem_node_key_at(const struct dem_node *map, size_t i);
const struct dem_node *dem_node_key_node_at(const struct dem_node *map,
                                            size_t i); /* key's position */
const struct dem_node *dem_node_get(const struct dem_node *map,
                                    const char *key); /* NULL if absent */
/* The position of `key` in a mapping (dem_node_key_at(map, i) is key), or
 * SIZE_MAX if absent or map is not a mapping. Constant time. */
size_t dem_node_find(const struct dem_node *map, const char *key);
/* The key of a mapping closest to `word` (see dem_closest_word), or NULL. */
const char *dem_node_closest_key(const struct dem_node *map, const char *word);
const char *dem_node_scalar(const struct dem_node *n); /* NULL if not scalar */

/* Typed reads. Each fails with DEM_ERR_CONFIG and a message of the form
 * "FILE:LINE:COL: key 'time_step': expected a positive number, found 'abc'"
 * (position of the offending node; for a missing required key, the
 * position of the mapping and "missing required key 'time_step'").
 * `key` is looked up in `map`; `def` is used when the key is absent and
 * `required` is 0 (a NULL `map`, an absent section, counts as empty).
 * *out is written only on success. Ranges: lo/hi with DEM_OPEN/DEM_CLOSED ends;
 * pass -HUGE_VAL/HUGE_VAL for none. Integers must be written as integers. */
enum dem_bound { DEM_CLOSED = 0, DEM_OPEN = 1 };
struct dem_range {
  double lo, hi;
  enum dem_bound lo_kind, hi_kind;
};
#define DEM_ANY                                                                \
  ((struct dem_range){-HUGE_VAL, HUGE_VAL, DEM_CLOSED, DEM_CLOSED})
#define DEM_POSITIVE ((struct dem_range){0.0, HUGE_VAL, DEM_OPEN, DEM_CLOSED})
#define DEM_NONNEGATIVE                                                        \
  ((struct dem_range){0.0, HUGE_VAL, DEM_CLOSED, DEM_CLOSED})

dem_status dem_cfg_double(const struct dem_node *map, const char *key,
                          int required, double def, struct dem_range range,
                          double *out);
dem_status dem_cfg_long(const struct dem_node *map, const char *key,
                        int required, long def, long lo, long hi, long *out);
dem_status dem_cfg_bool(const struct dem_node *map, const char *key,
                        int required, int def, int *out);
/* Returns a pointer into the tree (valid while the config lives). */
dem_status dem_cfg_string(const struct dem_node *map, const char *key,
                          int required, const char *def, const char **out);
/* One of `choices` (NULL-terminated); *out is its index. Message lists the
 * choices and suggests the closest. */
dem_status dem_cfg_choice(const struct dem_node *map, const char *key,
                          int required, int def, const char *const *choices,
                          int *out);
/* A sequence of exactly n numbers, each in range. */
dem_status dem_cfg_vec(const struct dem_node *map, const char *key,
                       int required, const double *def, size_t n,
                       struct dem_range range, double *out);
/* The node itself must be a mapping / sequence (kind check with message).
 * *out is NULL when absent and not required. */
dem_status dem_cfg_mapping(const struct dem_node *map, const char *key,
                           int required, const struct dem_node **out);
dem_status dem_cfg_sequence(const struct dem_node *map, const char *key,
                            int required, const struct dem_node **out);
/* Fails on the first key of `map` not in `allowed` (NULL-terminated):
 * "FILE:LINE:COL: unknown key 'radus' in 'shapes.rod' (did you mean
 * 'radius'?)"; `where` names the section for the message. Also fails when
 * `map` is not a mapping. */
dem_status dem_cfg_check_keys(const struct dem_node *map,
                              const char *const *allowed, const char *where);
/* Builds a DEM_ERR_CONFIG failure at a node's position:
 * "FILE:LINE:COL: <formatted message>". */
dem_status dem_cfg_error(const struct dem_node *at, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Opens `path` for reading ("rb") if it is a regular file of at most
 * max_bytes, without blocking on a FIFO or a device. Otherwise returns NULL
 * and writes why, e.g. "No such file or directory", "it is a directory",
 * "it is a FIFO, not a regular file", "it is larger than the limit of 16
 * MiB (20.5 MiB)". The caller still bounds what it reads (a file may grow).
 */
FILE *dem_open_input_file(const char *path, long long max_bytes, char *why,
                          size_t why_size);
/* "16 MiB", "20.5 MiB", "300 bytes". */
void dem_format_bytes(long long bytes, char *buf, size_t size);

/* Closest of `choices` to `word` by edit distance, or NULL if none is
 * within max(2, strlen(word)/3). */
const char *dem_closest_word(const char *word, const char *const *choices);
/* Same over the n words name(ctx, 0) .. name(ctx, n - 1), so that callers
 * need no table of their own (materials, shapes, operators...). */
const char *dem_closest_name(const char *word, size_t n,
                             const char *(*name)(const void *ctx, size_t i),
                             const void *ctx);

#endif
