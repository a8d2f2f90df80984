/* The one table of per-item arrays (bodies, spheres, contacts): what each
 * is, and whether it is permuted, written, restored. */
#ifndef DEM_FIELDS_H
#define DEM_FIELDS_H

#include <stddef.h>

#include "sim/sim.h"

enum dem_item {
  DEM_ITEM_BODIES,
  DEM_ITEM_SPHERES,
  DEM_ITEM_PAIRS,         /* sphere-sphere contacts */
  DEM_ITEM_WALL_CONTACTS, /* sphere-wall contacts */
  DEM_N_ITEMS
};

enum dem_field_type {
  DEM_FIELD_F64, /* double */
  DEM_FIELD_I32, /* int */
  DEM_FIELD_I64, /* size_t, or uint64_t ids; written as 64-bit integers */
};

enum dem_field_flags {
  /* Follows the item order: permuted by the spatial sort (or, for
   * contacts, carried along with their owner). */
  DEM_FIELD_ORDER = 1u << 0,
  /* Written at every snapshot, at `path`. */
  DEM_FIELD_OUTPUT = 1u << 1,
  /* State a restart loads back from `path` (written too). */
  DEM_FIELD_RESTART = 1u << 2,
  /* Set up from the config; a restart checks the file holds the same
   * (written too). */
  DEM_FIELD_CHECK = 1u << 3,
  /* Shown by the XDMF sidecar as a node attribute of the spheres' grid
   * (sphere fields) or of the bodies' grid (body fields). */
  DEM_FIELD_XDMF = 1u << 4,
  /* Holds body indices, written as body ids. */
  DEM_FIELD_BODY_INDEX = 1u << 5,
  /* One entry more than the items (a range table). */
  DEM_FIELD_PLUS_ONE = 1u << 6,
  /* Restart state that files of dem before format 4 lack: a restart of
   * such a file starts it from zeros. */
  DEM_FIELD_SINCE_4 = 1u << 7,
  /* Written but never stored (its offset unused): computed a row at a time
   * as a snapshot is written (dem_field_compute). */
  DEM_FIELD_COMPUTED = 1u << 8,
};
#define DEM_FIELD_WRITTEN                                                      \
  (DEM_FIELD_OUTPUT | DEM_FIELD_RESTART | DEM_FIELD_CHECK)

/* Widths known only at run time. */
enum {
  DEM_WIDTH_STATE = -1,  /* the contact model's history per contact */
  DEM_WIDTH_TORQUE = -2, /* 6 when the model makes torques, else 0 */
  DEM_WIDTH_WORK = -3,   /* DEM_N_DISSIPATION when the model dissipates */
  DEM_WIDTH_SPIN = -4,   /* 3 when the model makes torques, else 0 */
  DEM_WIDTH_MOTION = -5, /* 3 when the model reads velocities, else 0 */
  DEM_WIDTH_MESH = -6,   /* 1 when there are mesh walls, else 0 */
  /* 3 when some axis is periodic (domain.periodic), else 0 */
  DEM_WIDTH_PERIODIC = -7,
  DEM_WIDTH_INSERT = -8, /* 1 when bodies are inserted over time, else 0 */
};

struct dem_field {
  const char *name;   /* the array's name in its struct, for messages */
  const char *path;   /* dataset in a snapshot group, or NULL: in memory */
  enum dem_item item; /* which struct holds it */
  size_t offset;      /* of the array pointer within the item's struct */
  enum dem_field_type type;
  int width; /* components per item, or a DEM_WIDTH_* */
  unsigned flags;
  const char *unit;        /* SI */
  const char *description; /* one line */
};

/* The table, terminated by an entry with a NULL name. */
extern const struct dem_field dem_fields[];

/* Whether f has an array (computed fields have none). */
static inline int dem_field_stored(const struct dem_field *f) {
  return !(f->flags & DEM_FIELD_COMPUTED);
}
/* A computed field's rows: item i as it is now into out (width values);
 * NULL for a stored field. */
typedef void (*dem_field_row_fn)(const void *sim, size_t i, void *out);
dem_field_row_fn dem_field_compute(const struct dem_field *f);

/* Components per item of f in this sim (0: not allocated). */
int dem_field_width(const struct dem_sim *sim, const struct dem_field *f);
/* Bytes of one component. */
size_t dem_field_type_size(enum dem_field_type t);
/* Where f's array pointer lives in sim. */
void **dem_field_slot(struct dem_sim *sim, const struct dem_field *f);
static inline const void *dem_field_data(const struct dem_sim *sim,
                                         const struct dem_field *f) {
  return *dem_field_slot((struct dem_sim *)sim, f);
}

/* Items of a kind now. */
size_t dem_item_count(const struct dem_sim *sim, enum dem_item item);

/* Allocates (zeroed) every array of `item` for `n` items, keeping the
 * first `keep` items' values (and a PLUS_ONE field's end marker; 0: fresh
 * arrays). */
dem_status dem_fields_alloc(struct dem_sim *sim, enum dem_item item, size_t n,
                            size_t keep);
/* Frees every array of `item`. */
void dem_fields_release(struct dem_sim *sim, enum dem_item item);
/* a[k] = a[order[k]] for every ORDER array of `item` (n items), through
 * `buf` (dem_fields_max_item_bytes bytes per item). */
void dem_fields_permute(struct dem_sim *sim, enum dem_item item, size_t n,
                        const size_t *order, void *buf);
/* The widest ORDER array of `item`, in bytes per item. */
size_t dem_fields_max_item_bytes(const struct dem_sim *sim, enum dem_item item);
/* Bytes the arrays of `item` hold for `n` items. */
size_t dem_fields_bytes(const struct dem_sim *sim, enum dem_item item,
                        size_t n);

#endif
