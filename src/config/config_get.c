/* Typed reads of config values with range checks, key checks and messages. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"

dem_status dem_cfg_error(const struct dem_node *at, const char *fmt, ...) {
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!at)
    return dem_fail(DEM_ERR_CONFIG, "%s", msg);
  return dem_fail_at(DEM_ERR_CONFIG, at->file, at->line, at->col, "%s", msg);
}

/* Finds `key` in `map`. DEM_OK with *node NULL when it is absent and not
 * required; a NULL map is an absent section. */
static dem_status lookup(const struct dem_node *map, const char *key,
                         int required, const struct dem_node **node) {
  char buf[256];
  *node = NULL;
  if (map && map->kind != DEM_NODE_MAPPING) {
    dem_node_describe(map, buf, sizeof buf);
    return dem_cfg_error(map, "expected a mapping holding key '%s', found %s",
                         key, buf);
  }
  *node = dem_node_get(map, key);
  if (*node || !required)
    return DEM_OK;
  dem_node_path(map, buf, sizeof buf);
  if (buf[0])
    return dem_cfg_error(map, "missing required key '%s' in '%s'", key, buf);
  return dem_cfg_error(map, "missing required key '%s'", key);
}

/* Writes v with the fewest digits that read back as v. */
static void format_number(double v, char *buf, size_t size) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      return;
  }
}

enum number_result { NUMBER_OK, NUMBER_BAD, NUMBER_NOT_FINITE };

/* YAML's spellings of infinity and not-a-number. */
static int is_yaml_special(const char *s) {
  if (*s == '+' || *s == '-')
    s++;
  return strcasecmp(s, ".inf") == 0 || strcasecmp(s, ".nan") == 0;
}

/* The whole text must be one finite number. */
static enum number_result parse_double(const char *s, double *out) {
  if (is_yaml_special(s))
    return NUMBER_NOT_FINITE;
  if (!s[0] || isspace((unsigned char)s[0]))
    return NUMBER_BAD;
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end)
    return NUMBER_BAD;
  if (!isfinite(v))
    return NUMBER_NOT_FINITE;
  *out = v;
  return NUMBER_OK;
}

static int in_range(double v, struct dem_range r) {
  int lo_ok = r.lo_kind == DEM_OPEN ? v > r.lo : v >= r.lo;
  int hi_ok = r.hi_kind == DEM_OPEN ? v < r.hi : v <= r.hi;
  return lo_ok && hi_ok;
}

/* "> 0", "<= 1", "> 0 and <= 1". */
static void describe_range(struct dem_range r, char *buf, size_t size) {
  char lo[32], hi[32];
  format_number(r.lo, lo, sizeof lo);
  format_number(r.hi, hi, sizeof hi);
  const char *lo_op = r.lo_kind == DEM_OPEN ? ">" : ">=";
  const char *hi_op = r.hi_kind == DEM_OPEN ? "<" : "<=";
  int has_lo = r.lo > -HUGE_VAL, has_hi = r.hi < HUGE_VAL;
  if (has_lo && has_hi)
    snprintf(buf, size, "%s %s and %s %s", lo_op, lo, hi_op, hi);
  else if (has_lo)
    snprintf(buf, size, "%s %s", lo_op, lo);
  else
    snprintf(buf, size, "%s %s", hi_op, hi);
}

/* Reads one number node for the message name `name`. */
static dem_status read_number(const struct dem_node *n, const char *name,
                              struct dem_range range, double *out) {
  char found[80];
  dem_node_describe(n, found, sizeof found);
  if (n->kind != DEM_NODE_SCALAR)
    return dem_cfg_error(n, "key '%s': expected a number, found %s", name,
                         found);
  double v = 0.0;
  switch (parse_double(n->text, &v)) {
  case NUMBER_BAD:
    return dem_cfg_error(n, "key '%s': expected a number, found %s", name,
                         found);
  case NUMBER_NOT_FINITE:
    return dem_cfg_error(n, "key '%s': expected a finite number, found %s",
                         name, found);
  case NUMBER_OK:
    break;
  }
  if (!in_range(v, range)) {
    char want[96];
    describe_range(range, want, sizeof want);
    return dem_cfg_error(n, "key '%s': must be %s, found %s", name, want,
                         n->text);
  }
  *out = v;
  return DEM_OK;
}

dem_status dem_cfg_double(const struct dem_node *map, const char *key,
                          int required, double def, struct dem_range range,
                          double *out) {
  const struct dem_node *n;
  dem_status st = lookup(map, key, required, &n);
  if (st != DEM_OK)
    return st;
  if (!n) {
    *out = def;
    return DEM_OK;
  }
  return read_number(n, key, range, out);
}

dem_status dem_cfg_long(const struct dem_node *map, const char *key,
                        int required, long def, long lo, long hi, long *out) {
  const struct dem_node *n;
  dem_status st = lookup(map, key, required, &n);
  if (st != DEM_OK)
    return st;
  if (!n) {
    *out = def;
    return DEM_OK;
  }
  char found[80];
  dem_node_describe(n, found, sizeof found);
  const char *s = n->kind == DEM_NODE_SCALAR ? n->text : "";
  char *end = NULL;
  errno = 0;
  long v = s[0] && !isspace((unsigned char)s[0]) ? strtol(s, &end, 10) : 0;
  if (!end || end == s || *end)
    return dem_cfg_error(n, "key '%s': expected an integer, found %s", key,
                         found);
  if (errno == ERANGE)
    return dem_cfg_error(n, "key '%s': integer out of range, found %s", key,
                         found);
  if (v < lo || v > hi) {
    if (lo > LONG_MIN && hi < LONG_MAX)
      return dem_cfg_error(n, "key '%s': must be >= %ld and <= %ld, found %s",
                           key, lo, hi, n->text);
    if (lo > LONG_MIN)
      return dem_cfg_error(n, "key '%s': must be >= %ld, found %s", key, lo,
                           n->text);
    return dem_cfg_error(n, "key '%s': must be <= %ld, found %s", key, hi,
                         n->text);
  }
  *out = v;
  return DEM_OK;
}

dem_status dem_cfg_bool(const struct dem_node *map, const char *key,
                        int required, int def, int *out) {
  static const char *const yes[] = {"true", "yes", "on"};
  static const char *const no[] = {"false", "no", "off"};
  const struct dem_node *n;
  dem_status st = lookup(map, key, required, &n);
  if (st != DEM_OK)
    return st;
  if (!n) {
    *out = def;
    return DEM_OK;
  }
  if (n->kind == DEM_NODE_SCALAR) {
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
      if (strcasecmp(n->text, yes[i]) == 0) {
        *out = 1;
        return DEM_OK;
      }
      if (strcasecmp(n->text, no[i]) == 0) {
        *out = 0;
        return DEM_OK;
      }
    }
  }
  char found[80];
  dem_node_describe(n, found, sizeof found);
  return dem_cfg_error(n, "key '%s': expected true or false, found %s", key,
                       found);
}

dem_status dem_cfg_string(const struct dem_node *map, const char *key,
                          int required, const char *def, const char **out) {
  const struct dem_node *n;
  dem_status st = lookup(map, key, required, &n);
  if (st != DEM_OK)
    return st;
  if (!n) {
    *out = def;
    return DEM_OK;
  }
  if (n->kind != DEM_NODE_SCALAR) {
    char found[80];
    dem_node_describe(n, found, sizeof found);
    return dem_cfg_error(n, "key '%s': expected a string, found %s", key,
                         found);
  }
  *out = n->text;
  return DEM_OK;
}

/* "'a', 'b', 'c'" into buf. */
static void join_words(const char *const *words, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; words[i] && used < size; i++) {
    int w =
        snprintf(buf + used, size - used, "%s'%s'", i ? ", " : "", words[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

dem_status dem_cfg_choice(const struct dem_node *map, const char *key,
                          int required, int def, const char *const *choices,
                          int *out) {
  const struct dem_node *n;
  dem_status st = lookup(map, key, required, &n);
  if (st != DEM_OK)
    return st;
  if (!n) {
    *out = def;
    return DEM_OK;
  }
  if (n->kind == DEM_NODE_SCALAR) {
    for (int i = 0; choices[i]; i++) {
      if (strcmp(n->text, choices[i]) == 0) {
        *out = i;
        return DEM_OK;
      }
    }
  }
  char found[80], list[512];
  dem_node_describe(n, found, sizeof found);
  join_words(choices, list, sizeof list);
  const char *guess =
      n->kind == DEM_NODE_SCALAR ? dem_closest_word(n->text, choices) : NULL;
  if (guess)
    return dem_cfg_error(
        n, "key '%s': expected one of %s, found %s (did you mean '%s'?)", key,
        list, found, guess);
  return dem_cfg_error(n, "key '%s': expected one of %s, found %s", key, list,
                       found);
}

dem_status dem_cfg_vec(const struct dem_node *map, const char *key,
                       int required, const double *def, size_t n,
                       struct dem_range range, double *out) {
  const struct dem_node *seq;
  dem_status st = lookup(map, key, required, &seq);
  if (st != DEM_OK)
    return st;
  if (!seq) {
    if (def)
      memcpy(out, def, n * sizeof *out);
    return DEM_OK;
  }
  const char *numbers = n == 1 ? "number" : "numbers";
  if (seq->kind != DEM_NODE_SEQUENCE) {
    char found[80];
    dem_node_describe(seq, found, sizeof found);
    return dem_cfg_error(seq, "key '%s': expected a list of %zu %s, found %s",
                         key, n, numbers, found);
  }
  if (seq->n != n)
    return dem_cfg_error(
        seq, "key '%s': expected a list of %zu %s, found %zu %s", key, n,
        numbers, seq->n, seq->n == 1 ? "item" : "items");
  /* Check every item before writing any, so a failure leaves *out alone. */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < n; i++) {
      char name[160];
      double v;
      snprintf(name, sizeof name, "%s[%zu]", key, i);
      st = read_number(seq->items[i], name, range, &v);
      if (st != DEM_OK)
        return st;
      if (pass == 1)
        out[i] = v;
    }
  }
  return DEM_OK;
}

/* A mapping or sequence under `key`. */
static dem_status get_collection(const struct dem_node *map, const char *key,
                                 int required, enum dem_node_kind kind,
                                 const struct dem_node **out) {
  const struct dem_node *n;
  dem_status st = lookup(map, key, required, &n);
  if (st != DEM_OK)
    return st;
  if (n && n->kind != kind) {
    char found[80];
    dem_node_describe(n, found, sizeof found);
    return dem_cfg_error(n, "key '%s': expected %s, found %s", key,
                         kind == DEM_NODE_MAPPING ? "a mapping" : "a list",
                         found);
  }
  *out = n;
  return DEM_OK;
}

dem_status dem_cfg_mapping(const struct dem_node *map, const char *key,
                           int required, const struct dem_node **out) {
  return get_collection(map, key, required, DEM_NODE_MAPPING, out);
}

dem_status dem_cfg_sequence(const struct dem_node *map, const char *key,
                            int required, const struct dem_node **out) {
  return get_collection(map, key, required, DEM_NODE_SEQUENCE, out);
}

static int is_allowed(const char *key, const char *const *allowed) {
  for (size_t i = 0; allowed[i]; i++)
    if (strcmp(key, allowed[i]) == 0)
      return 1;
  return 0;
}

dem_status dem_cfg_check_keys(const struct dem_node *map,
                              const char *const *allowed, const char *where) {
  if (!map)
    return DEM_OK;
  char path[256];
  if (!where) {
    dem_node_path(map, path, sizeof path);
    where = path;
  }
  if (map->kind != DEM_NODE_MAPPING) {
    char found[80];
    dem_node_describe(map, found, sizeof found);
    if (where[0])
      return dem_cfg_error(map, "expected a mapping for '%s', found %s", where,
                           found);
    return dem_cfg_error(map, "expected a mapping, found %s", found);
  }
  for (size_t i = 0; i < map->n; i++) {
    const struct dem_node *k = map->keys[i];
    if (is_allowed(k->text, allowed))
      continue;
    char in[300] = "", hint[600];
    if (where[0])
      snprintf(in, sizeof in, " in '%s'", where);
    const char *guess = dem_closest_word(k->text, allowed);
    if (guess) {
      snprintf(hint, sizeof hint, "did you mean '%s'?", guess);
    } else {
      char list[512];
      join_words(allowed, list, sizeof list);
      snprintf(hint, sizeof hint, "known keys: %s", list);
    }
    return dem_cfg_error(k, "unknown key '%s'%s (%s)", k->text, in, hint);
  }
  return DEM_OK;
}
