/* Loading YAML: libyaml events become a node tree that keeps file:line:col. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config_internal.h"

struct builder {
  yaml_parser_t parser;
  const char *file;
  const char *text;
  size_t len;
  int col_offset; /* added to columns on line 1 */
  struct dem_yaml_error *err;
};

static int line_of(yaml_mark_t m) { return (int)m.line + 1; }

static int col_of(const struct builder *b, yaml_mark_t m) {
  return (int)m.column + 1 + (m.line == 0 ? b->col_offset : 0);
}

static dem_status fail_at(struct builder *b, yaml_mark_t mark, const char *fmt,
                          ...) __attribute__((format(printf, 3, 4)));

static dem_status fail_at(struct builder *b, yaml_mark_t mark, const char *fmt,
                          ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->err->msg, sizeof b->err->msg, fmt, ap);
  va_end(ap);
  b->err->problem_len = strlen(b->err->msg);
  b->err->line = line_of(mark);
  b->err->col = col_of(b, mark);
  return DEM_ERR_CONFIG;
}

/* Line and column (1-based) of a byte offset in the text. */
static yaml_mark_t mark_of_offset(const struct builder *b, size_t offset) {
  yaml_mark_t m = {offset, 0, 0};
  for (size_t i = 0; i < offset && i < b->len; i++) {
    if (b->text[i] == '\n') {
      m.line++;
      m.column = 0;
    } else {
      m.column++;
    }
  }
  return m;
}

/* Turns libyaml's own error into ours. */
static dem_status parser_failure(struct builder *b) {
  const yaml_parser_t *p = &b->parser;
  const char *problem = p->problem ? p->problem : "invalid YAML";
  if (p->error == YAML_MEMORY_ERROR) {
    snprintf(b->err->msg, sizeof b->err->msg, "out of memory");
    b->err->problem_len = strlen(b->err->msg);
    b->err->line = b->err->col = 0;
    return DEM_ERR_NOMEM;
  }
  if (p->error == YAML_READER_ERROR) {
    yaml_mark_t m = mark_of_offset(b, p->problem_offset);
    if (p->problem_value >= 0)
      return fail_at(b, m, "%s (byte 0x%X)", problem,
                     (unsigned)p->problem_value);
    return fail_at(b, m, "%s", problem);
  }
  if (p->context) {
    fail_at(b, p->problem_mark, "%s (%s at line %d, column %d)", problem,
            p->context, line_of(p->context_mark), col_of(b, p->context_mark));
    if (strlen(problem) < b->err->problem_len)
      b->err->problem_len = strlen(problem);
    return DEM_ERR_CONFIG;
  }
  return fail_at(b, p->problem_mark, "%s", problem);
}

static dem_status next_event(struct builder *b, yaml_event_t *ev) {
  if (!yaml_parser_parse(&b->parser, ev))
    return parser_failure(b);
  return DEM_OK;
}

/* Anchors, aliases and tags would make the tree more than a tree; say so. */
static dem_status check_plain_event(struct builder *b, const yaml_event_t *ev,
                                    const yaml_char_t *anchor,
                                    const yaml_char_t *tag) {
  if (anchor)
    return fail_at(b, ev->start_mark,
                   "anchors (&%s) are not supported; write the value out",
                   (const char *)anchor);
  if (tag)
    return fail_at(b, ev->start_mark, "tags (%s) are not supported",
                   (const char *)tag);
  return DEM_OK;
}

static enum dem_scalar_style style_of(yaml_scalar_style_t s) {
  switch (s) {
  case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    return DEM_STYLE_SINGLE;
  case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
    return DEM_STYLE_DOUBLE;
  case YAML_LITERAL_SCALAR_STYLE:
    return DEM_STYLE_LITERAL;
  case YAML_FOLDED_SCALAR_STYLE:
    return DEM_STYLE_FOLDED;
  default:
    return DEM_STYLE_PLAIN;
  }
}

static dem_status parse_node(struct builder *b, yaml_event_t *ev, int depth,
                             struct dem_node **out);

static dem_status parse_scalar(struct builder *b, yaml_event_t *ev,
                               struct dem_node **out) {
  dem_status st =
      check_plain_event(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag);
  if (st != DEM_OK)
    return st;
  const char *value = (const char *)ev->data.scalar.value;
  size_t len = ev->data.scalar.length;
  if (memchr(value, '\0', len))
    return fail_at(b, ev->start_mark, "NUL characters are not supported");
  struct dem_node *n =
      dem_node_new(DEM_NODE_SCALAR, b->file, line_of(ev->start_mark),
                   col_of(b, ev->start_mark));
  char *text = malloc(len + 1);
  if (!n || !text) {
    dem_node_free(n);
    free(text);
    return DEM_ERR_NOMEM;
  }
  memcpy(text, value, len);
  text[len] = '\0';
  free(n->text);
  n->text = text;
  n->style = style_of(ev->data.scalar.style);
  *out = n;
  return DEM_OK;
}

/* Reads the items of a sequence up to its end event. */
static dem_status parse_items(struct builder *b, struct dem_node *seq,
                              int depth) {
  for (;;) {
    yaml_event_t ev;
    dem_status st = next_event(b, &ev);
    if (st != DEM_OK)
      return st;
    if (ev.type == YAML_SEQUENCE_END_EVENT) {
      yaml_event_delete(&ev);
      return DEM_OK;
    }
    struct dem_node *item = NULL;
    st = parse_node(b, &ev, depth + 1, &item);
    if (st == DEM_OK)
      st = dem_node_append(seq, NULL, item);
    if (st != DEM_OK) {
      dem_node_free(item);
      return st;
    }
  }
}

/* Reads the key/value pairs of a mapping up to its end event. */
static dem_status parse_pairs(struct builder *b, struct dem_node *map,
                              int depth) {
  for (;;) {
    yaml_event_t ev;
    dem_status st = next_event(b, &ev);
    if (st != DEM_OK)
      return st;
    if (ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      return DEM_OK;
    }
    if (ev.type != YAML_SCALAR_EVENT) {
      st = fail_at(b, ev.start_mark,
                   "mapping keys must be plain words, not lists, mappings "
                   "or aliases");
      yaml_event_delete(&ev);
      return st;
    }
    struct dem_node *key = NULL, *value = NULL;
    st = parse_node(b, &ev, depth + 1, &key);
    if (st != DEM_OK)
      return st;
    size_t first = dem_node_find(map, key->text);
    if (first != SIZE_MAX) {
      const struct dem_node *k = map->keys[first];
      b->err->line = key->line;
      b->err->col = key->col;
      snprintf(b->err->msg, sizeof b->err->msg,
               "duplicate key '%s' (first at line %d, column %d)", key->text,
               k->line, k->col);
      b->err->problem_len = strlen(b->err->msg);
      st = DEM_ERR_CONFIG;
      dem_node_free(key);
      return st;
    }
    st = next_event(b, &ev);
    if (st == DEM_OK)
      st = parse_node(b, &ev, depth + 1, &value);
    if (st == DEM_OK)
      st = dem_node_append(map, key, value);
    if (st != DEM_OK) {
      dem_node_free(key);
      dem_node_free(value);
      return st;
    }
  }
}

static dem_status parse_collection(struct builder *b, yaml_event_t *ev,
                                   int depth, struct dem_node **out) {
  int is_seq = ev->type == YAML_SEQUENCE_START_EVENT;
  dem_status st = is_seq
                      ? check_plain_event(b, ev, ev->data.sequence_start.anchor,
                                          ev->data.sequence_start.tag)
                      : check_plain_event(b, ev, ev->data.mapping_start.anchor,
                                          ev->data.mapping_start.tag);
  if (st != DEM_OK)
    return st;
  if (depth > DEM_CONFIG_MAX_DEPTH)
    return fail_at(b, ev->start_mark, "nesting deeper than %d levels",
                   DEM_CONFIG_MAX_DEPTH);
  struct dem_node *n =
      dem_node_new(is_seq ? DEM_NODE_SEQUENCE : DEM_NODE_MAPPING, b->file,
                   line_of(ev->start_mark), col_of(b, ev->start_mark));
  if (!n)
    return DEM_ERR_NOMEM;
  n->flow = is_seq ? ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
                   : ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
  yaml_event_delete(ev);
  st = is_seq ? parse_items(b, n, depth) : parse_pairs(b, n, depth);
  if (st != DEM_OK) {
    dem_node_free(n);
    return st;
  }
  *out = n;
  return DEM_OK;
}

/* Builds the node that starts with event *ev; always deletes *ev. */
static dem_status parse_node(struct builder *b, yaml_event_t *ev, int depth,
                             struct dem_node **out) {
  dem_status st;
  switch (ev->type) {
  case YAML_SCALAR_EVENT:
    st = parse_scalar(b, ev, out);
    break;
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT:
    st = parse_collection(b, ev, depth, out);
    break;
  case YAML_ALIAS_EVENT:
    st = fail_at(b, ev->start_mark,
                 "aliases (*%s) are not supported; write the value out",
                 (const char *)ev->data.alias.anchor);
    break;
  default:
    st = fail_at(b, ev->start_mark, "unexpected YAML event");
    break;
  }
  yaml_event_delete(ev);
  return st;
}

/* Expects an event of the given type and drops it. */
static dem_status expect_event(struct builder *b, yaml_event_type_t type,
                               yaml_event_t *ev) {
  dem_status st = next_event(b, ev);
  if (st != DEM_OK)
    return st;
  if (ev->type != type) {
    if (ev->type == YAML_DOCUMENT_START_EVENT)
      st = fail_at(b, ev->start_mark,
                   "more than one YAML document; a config is one document");
    else
      st = fail_at(b, ev->start_mark, "unexpected YAML event");
  }
  yaml_event_delete(ev);
  return st;
}

static dem_status parse_stream(struct builder *b, struct dem_node **root) {
  yaml_event_t ev;
  dem_status st = expect_event(b, YAML_STREAM_START_EVENT, &ev);
  if (st != DEM_OK)
    return st;
  st = next_event(b, &ev);
  if (st != DEM_OK)
    return st;
  if (ev.type == YAML_STREAM_END_EVENT) { /* no document at all */
    yaml_event_delete(&ev);
    return DEM_OK;
  }
  yaml_event_delete(&ev); /* document start */
  st = next_event(b, &ev);
  if (st == DEM_OK)
    st = parse_node(b, &ev, 0, root);
  if (st == DEM_OK)
    st = expect_event(b, YAML_DOCUMENT_END_EVENT, &ev);
  if (st == DEM_OK)
    st = expect_event(b, YAML_STREAM_END_EVENT, &ev);
  if (st != DEM_OK) {
    dem_node_free(*root);
    *root = NULL;
  }
  return st;
}

dem_status dem_yaml_parse(const char *file, const char *text, size_t len,
                          int col_offset, struct dem_node **root,
                          struct dem_yaml_error *err) {
  struct builder b = {.file = file,
                      .text = text,
                      .len = len,
                      .col_offset = col_offset,
                      .err = err};
  err->line = err->col = 0;
  err->msg[0] = '\0';
  err->problem_len = 0;
  *root = NULL;
  if (!yaml_parser_initialize(&b.parser)) {
    snprintf(err->msg, sizeof err->msg, "out of memory");
    return DEM_ERR_NOMEM;
  }
  yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
  dem_status st = parse_stream(&b, root);
  yaml_parser_delete(&b.parser);
  return st;
}

static dem_status load_text(const char *name, const char *text, size_t len,
                            struct dem_config **out) {
  *out = NULL;
  struct dem_yaml_error err;
  struct dem_node *root = NULL;
  dem_status st = dem_yaml_parse(name, text, len, 0, &root, &err);
  if (st == DEM_ERR_NOMEM)
    return dem_fail(st, "%s: out of memory while reading YAML", name);
  if (st != DEM_OK)
    return dem_fail_at(st, name, err.line, err.col, "%s", err.msg);
  if (!root || root->kind != DEM_NODE_MAPPING) {
    char found[80];
    dem_node_describe(root, found, sizeof found);
    st = dem_fail_at(
        DEM_ERR_CONFIG, name, root ? root->line : 1, root ? root->col : 1,
        "expected a mapping of sections at the top level, found %s", found);
    dem_node_free(root);
    return st;
  }
  struct dem_config *cfg = calloc(1, sizeof *cfg);
  size_t name_len = strlen(name) + 1;
  char *path = malloc(name_len);
  if (!cfg || !path) {
    free(cfg);
    free(path);
    dem_node_free(root);
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", name);
  }
  memcpy(path, name, name_len);
  cfg->path = path;
  cfg->root = root;
  *out = cfg;
  return DEM_OK;
}

dem_status dem_config_load_string(const char *name, const char *text,
                                  struct dem_config **out) {
  return load_text(name, text, strlen(text), out);
}

dem_status dem_config_load(const char *path, struct dem_config **out) {
  *out = NULL;
  char why[160];
  FILE *f = dem_open_input_file(path, DEM_CONFIG_MAX_BYTES, why, sizeof why);
  if (!f)
    return dem_fail(DEM_ERR_CONFIG, "%s: cannot open: %s", path, why);
  /* At most the limit plus one byte: a file that grew after it was
   * opened is refused like one that was too large from the start. */
  size_t len = 0, cap = 4096;
  const size_t max = (size_t)DEM_CONFIG_MAX_BYTES + 1;
  char *text = malloc(cap);
  while (text) {
    len += fread(text + len, 1, cap - len, f);
    if (len < cap || cap >= max)
      break;
    size_t grown = 2 * cap < max ? 2 * cap : max;
    char *more = realloc(text, grown);
    if (!more) {
      free(text);
      text = NULL;
    } else {
      text = more;
      cap = grown;
    }
  }
  int read_error = ferror(f) ? errno : 0;
  fclose(f);
  if (!text)
    return dem_fail(DEM_ERR_NOMEM, "%s: out of memory", path);
  if (read_error) {
    free(text);
    return dem_fail(DEM_ERR_CONFIG, "%s: cannot read: %s", path,
                    strerror(read_error));
  }
  if (len > (size_t)DEM_CONFIG_MAX_BYTES) {
    char limit[32];
    dem_format_bytes(DEM_CONFIG_MAX_BYTES, limit, sizeof limit);
    free(text);
    return dem_fail(DEM_ERR_CONFIG,
                    "%s: cannot read: it is larger than the limit of %s", path,
                    limit);
  }
  dem_status st = load_text(path, text, len, out);
  free(text);
  return st;
}

void dem_config_free(struct dem_config *cfg) {
  if (!cfg)
    return;
  dem_node_free(cfg->root);
  free(cfg->path);
  free(cfg);
}
