/* Command-line overrides: --set path.to.key=value edits the config tree. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

static const char SET_FILE[] = "--set";

/* One dotted part of the path, as offsets into the assignment text. */
struct part {
  size_t start, len;
};

/* A scalar key node for a part of the path. */
static struct dem_node *key_node(const char *a, struct part p) {
  struct dem_node *k =
      dem_node_new(DEM_NODE_SCALAR, SET_FILE, 1, (int)p.start + 1);
  char *text = malloc(p.len + 1);
  if (!k || !text) {
    dem_node_free(k);
    free(text);
    return NULL;
  }
  memcpy(text, a + p.start, p.len);
  text[p.len] = '\0';
  free(k->text);
  k->text = text;
  return k;
}

/* Appends parts[from..n) under map, creating mappings down to the value.
 * Takes ownership of value. */
static dem_status create_chain(struct dem_node *map, const char *a,
                               const struct part *parts, size_t from, size_t n,
                               struct dem_node *value) {
  struct dem_node *top = value;
  for (size_t j = n; j-- > from;) {
    struct dem_node *key = key_node(a, parts[j]);
    struct dem_node *holder = j == from
                                  ? map
                                  : dem_node_new(DEM_NODE_MAPPING, SET_FILE, 1,
                                                 (int)parts[j].start + 1);
    if (!key || !holder || dem_node_append(holder, key, top) != DEM_OK) {
      dem_node_free(key);
      if (holder != map)
        dem_node_free(holder);
      dem_node_free(top);
      return dem_fail(DEM_ERR_NOMEM, "--set '%s': out of memory", a);
    }
    top = holder;
  }
  return DEM_OK;
}

/* Parses an item number; SIZE_MAX when the text is not one. */
static size_t parse_index(const char *s, size_t len) {
  size_t v = 0;
  if (len == 0 || len > 9)
    return SIZE_MAX;
  for (size_t i = 0; i < len; i++) {
    if (!isdigit((unsigned char)s[i]))
      return SIZE_MAX;
    v = 10 * v + (size_t)(s[i] - '0');
  }
  return v;
}

/* Splits the path a[start..end) at dots. Caller frees *parts. */
static dem_status split_path(const char *a, size_t start, size_t end,
                             struct part **parts, size_t *n) {
  size_t count = 1;
  for (size_t i = start; i < end; i++)
    count += a[i] == '.';
  *parts = malloc(count * sizeof **parts);
  if (!*parts)
    return dem_fail(DEM_ERR_NOMEM, "--set '%s': out of memory", a);
  *n = 0;
  size_t s = start;
  for (size_t i = start; i <= end; i++) {
    if (i == end || a[i] == '.') {
      if (i == s) {
        free(*parts);
        *parts = NULL;
        return dem_fail(DEM_ERR_USAGE,
                        "--set '%s': empty name in the path '%.*s'", a,
                        (int)(end - start), a + start);
      }
      (*parts)[(*n)++] = (struct part){s, i - s};
      s = i + 1;
    }
  }
  return DEM_OK;
}

/* Parses the text after '=' into a node placed at its assignment column. */
static dem_status parse_value(const char *a, size_t offset,
                              struct dem_node **out) {
  struct dem_yaml_error err;
  const char *text = a + offset;
  dem_status st =
      dem_yaml_parse(SET_FILE, text, strlen(text), (int)offset, out, &err);
  if (st == DEM_ERR_NOMEM)
    return dem_fail(st, "--set '%s': out of memory", a);
  if (st != DEM_OK && err.line > 1 && !strchr(text, '\n'))
    return dem_fail(DEM_ERR_USAGE,
                    "--set '%s': the value is not valid YAML: it ends too "
                    "soon (%.*s)",
                    a, (int)err.problem_len, err.msg);
  if (st != DEM_OK)
    return dem_fail(DEM_ERR_USAGE,
                    "--set '%s': the value is not valid YAML: %s:%d:%d: %.*s",
                    a, SET_FILE, err.line, err.col, (int)err.problem_len,
                    err.msg);
  if (!*out) { /* "key=" alone: an empty value */
    *out = dem_node_new(DEM_NODE_SCALAR, SET_FILE, 1, (int)offset + 1);
    if (!*out)
      return dem_fail(DEM_ERR_NOMEM, "--set '%s': out of memory", a);
  }
  return DEM_OK;
}

/* Levels of collections in n, counting n itself (0 for a scalar). Bounded
 * by the loader's limit, so the recursion is too. */
static size_t nesting(const struct dem_node *n) {
  size_t deepest = 0;
  if (n->kind == DEM_NODE_SCALAR)
    return 0;
  for (size_t i = 0; i < n->n; i++) {
    size_t d = nesting(n->items[i]);
    if (d > deepest)
      deepest = d;
  }
  return deepest + 1;
}

/* Walks the path and puts value in place; errors leave the tree as it was. */
static dem_status place(struct dem_config *cfg, const char *a,
                        const struct part *parts, size_t n,
                        struct dem_node *value) {
  struct dem_node *cur = cfg->root;
  size_t path_start = parts[0].start;
  for (size_t k = 0; k < n; k++) {
    const char *name = a + parts[k].start;
    size_t len = parts[k].len;
    int here_len =
        k ? (int)(parts[k - 1].start + parts[k - 1].len) - (int)path_start : 0;
    const char *here = a + path_start;
    size_t i = SIZE_MAX;
    if (cur->kind == DEM_NODE_MAPPING) {
      i = dem_node_find_n(cur, name, len);
      if (i == SIZE_MAX)
        return create_chain(cur, a, parts, k, n, value);
    } else if (cur->kind == DEM_NODE_SEQUENCE) {
      i = parse_index(name, len);
      if (i == SIZE_MAX) {
        dem_node_free(value);
        return dem_fail(DEM_ERR_USAGE,
                        "--set '%s': '%.*s' is a list; expected an item "
                        "number, found '%.*s'",
                        a, here_len, here, (int)len, name);
      }
      if (i >= cur->n) {
        dem_node_free(value);
        return dem_fail(DEM_ERR_USAGE,
                        "--set '%s': item %zu is out of range; '%.*s' has "
                        "%zu item%s",
                        a, i, here_len, here, cur->n, cur->n == 1 ? "" : "s");
      }
    } else {
      dem_node_free(value);
      return dem_fail(DEM_ERR_USAGE,
                      "--set '%s': '%.*s' is a value, not a mapping or a "
                      "list, so it has no '%.*s'",
                      a, here_len, here, (int)len, name);
    }
    if (k == n - 1) {
      dem_node_free(cur->items[i]);
      cur->items[i] = value;
      value->parent = cur;
      return DEM_OK;
    }
    cur = cur->items[i];
  }
  dem_node_free(value);
  return dem_fail(DEM_ERR_INTERNAL, "--set '%s': empty path", a);
}

dem_status dem_config_set(struct dem_config *cfg, const char *assignment) {
  const char *a = assignment;
  const char *eq = strchr(a, '=');
  size_t start = 0, end = eq ? (size_t)(eq - a) : 0;
  while (start < end && isspace((unsigned char)a[start]))
    start++;
  while (end > start && isspace((unsigned char)a[end - 1]))
    end--;
  if (!eq || start == end)
    return dem_fail(DEM_ERR_USAGE, "--set '%s': expected path.to.key=value", a);
  struct part *parts = NULL;
  size_t n = 0;
  dem_status st = split_path(a, start, end, &parts, &n);
  if (st != DEM_OK)
    return st;
  struct dem_node *value = NULL;
  st = parse_value(a, (size_t)(eq - a) + 1, &value);
  /* The mapping that holds the last part sits at depth n - 1 (the root at
   * 0), the value's own collections below it: refuse what the loader would
   * refuse when the config is read back (as the output file stores it). */
  if (st == DEM_OK && n - 1 + nesting(value) > DEM_CONFIG_MAX_DEPTH) {
    st = dem_fail(DEM_ERR_USAGE,
                  "--set '%.80s%s': nesting deeper than %d levels (a path of "
                  "%zu parts%s)",
                  a, strlen(a) > 80 ? "..." : "", DEM_CONFIG_MAX_DEPTH, n,
                  nesting(value) ? " and a nested value" : "");
    dem_node_free(value);
  } else if (st == DEM_OK)
    st = place(cfg, a, parts, n, value);
  free(parts);
  return st;
}
