/* Writing a config tree back out as YAML text with libyaml's emitter. */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config_internal.h"

/* A growing, NUL-terminated output buffer. */
struct text {
  char *data;
  size_t len, cap;
};

static int write_text(void *data, unsigned char *buffer, size_t size) {
  struct text *t = data;
  if (t->len + size + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1024;
    while (t->len + size + 1 > cap)
      cap *= 2;
    char *more = realloc(t->data, cap);
    if (!more)
      return 0;
    t->data = more;
    t->cap = cap;
  }
  memcpy(t->data + t->len, buffer, size);
  t->len += size;
  t->data[t->len] = '\0';
  return 1;
}

static yaml_scalar_style_t yaml_style(enum dem_scalar_style s) {
  switch (s) {
  case DEM_STYLE_SINGLE:
    return YAML_SINGLE_QUOTED_SCALAR_STYLE;
  case DEM_STYLE_DOUBLE:
    return YAML_DOUBLE_QUOTED_SCALAR_STYLE;
  case DEM_STYLE_LITERAL:
    return YAML_LITERAL_SCALAR_STYLE;
  case DEM_STYLE_FOLDED:
    return YAML_FOLDED_SCALAR_STYLE;
  default:
    return YAML_ANY_SCALAR_STYLE; /* plain where it reads back the same */
  }
}

static int emit_scalar(yaml_emitter_t *e, const struct dem_node *n) {
  yaml_event_t ev;
  return yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)n->text,
                                      (int)strlen(n->text), 1, 1,
                                      yaml_style(n->style)) &&
         yaml_emitter_emit(e, &ev);
}

/* Emits a node and its children; 0 on failure. */
static int emit_node(yaml_emitter_t *e, const struct dem_node *n) {
  yaml_event_t ev;
  int ok;
  switch (n->kind) {
  case DEM_NODE_SCALAR:
    return emit_scalar(e, n);
  case DEM_NODE_SEQUENCE:
    ok = yaml_sequence_start_event_initialize(
             &ev, NULL, NULL, 1,
             n->flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE) &&
         yaml_emitter_emit(e, &ev);
    for (size_t i = 0; ok && i < n->n; i++)
      ok = emit_node(e, n->items[i]);
    return ok && yaml_sequence_end_event_initialize(&ev) &&
           yaml_emitter_emit(e, &ev);
  case DEM_NODE_MAPPING:
    ok = yaml_mapping_start_event_initialize(
             &ev, NULL, NULL, 1,
             n->flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE) &&
         yaml_emitter_emit(e, &ev);
    for (size_t i = 0; ok && i < n->n; i++)
      ok = emit_scalar(e, n->keys[i]) && emit_node(e, n->items[i]);
    return ok && yaml_mapping_end_event_initialize(&ev) &&
           yaml_emitter_emit(e, &ev);
  }
  return 0;
}

char *dem_node_emit(const struct dem_node *node) {
  if (!node)
    return NULL;
  struct text out = {NULL, 0, 0};
  yaml_emitter_t e;
  if (!yaml_emitter_initialize(&e))
    return NULL;
  yaml_emitter_set_output(&e, write_text, &out);
  yaml_emitter_set_unicode(&e, 1);
  yaml_emitter_set_width(&e, -1); /* never fold long lines */
  yaml_emitter_set_indent(&e, 2);
  yaml_event_t ev;
  int ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) &&
           yaml_emitter_emit(&e, &ev) &&
           yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
           yaml_emitter_emit(&e, &ev) && emit_node(&e, node) &&
           yaml_document_end_event_initialize(&ev, 1) &&
           yaml_emitter_emit(&e, &ev) &&
           yaml_stream_end_event_initialize(&ev) &&
           yaml_emitter_emit(&e, &ev) && yaml_emitter_flush(&e);
  yaml_emitter_delete(&e);
  if (!ok || !out.data) {
    free(out.data);
    return NULL;
  }
  return out.data;
}

char *dem_config_emit(const struct dem_config *cfg) {
  return cfg ? dem_node_emit(cfg->root) : NULL;
}
