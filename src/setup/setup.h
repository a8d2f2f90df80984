/* Building a simulation from a checked configuration. */
#ifndef DEM_SETUP_H
#define DEM_SETUP_H

#include "config/config.h"
#include "sim/sim.h"

/* Limits on what a config may ask for (docs/configuration.md): more is
 * refused with a message before anything is allocated for it. */
#define DEM_MAX_MATERIALS 1024     /* the E* table has n (n + 1) entries */
#define DEM_MAX_SPHERES 100000000L /* spheres of all bodies together */
#define DEM_SHAPE_FILE_MAX_BYTES (256LL * 1024 * 1024)

struct dem_output_options {
  const char *file;         /* points into the config tree */
  double snapshot_interval; /* simulated seconds; 0: first and last only */
  double energy_interval;   /* simulated seconds */
  int print_shapes;         /* print each shape's properties at start */
};

struct dem_pipeline;

/* Reads every section of the config but the scheme, checks it, and fills
 * `sim` (bodies placed, contact law ready). On failure the message names
 * file:line:col and sim holds whatever was allocated (release it with
 * dem_sim_release). */
dem_status dem_setup(const struct dem_config *cfg, struct dem_sim *sim,
                     struct dem_output_options *out);
/* The config's scheme (and top-level loads) as a pipeline for sim. */
dem_status dem_setup_pipeline(const struct dem_config *cfg, struct dem_sim *sim,
                              struct dem_pipeline **out);

/* Sections, each in its own file. */
dem_status dem_setup_materials(const struct dem_node *root,
                               struct dem_sim *sim);
dem_status dem_setup_shapes(const struct dem_config *cfg,
                            const struct dem_node *root, struct dem_sim *sim);
dem_status dem_setup_particles(const struct dem_node *root,
                               struct dem_sim *sim);
/* The shape an entry's key `shape` names: its row in the config's
 * `shapes` (the order of sim->shapes); an unknown name fails naming the
 * closest one. */
dem_status dem_setup_find_shape(const struct dem_node *shapes,
                                const struct dem_node *item, int *out);
struct dem_size_dist;
/* The key `scale` of map: a number (default 1) or a size distribution
 * (docs/configuration.md); `where` names the section in messages. */
dem_status dem_setup_read_scale(const struct dem_node *map, const char *where,
                                struct dem_size_dist *d);
/* The particles section's insert entries into sim->insert (none: NULL). */
dem_status dem_setup_insert(const struct dem_node *list,
                            const struct dem_node *shapes, struct dem_sim *sim);
/* domain.meshes: triangle-mesh walls (after the materials). */
dem_status dem_setup_meshes(const struct dem_config *cfg,
                            const struct dem_node *root, struct dem_sim *sim);
/* With periodic axes (after the particles and the contact settings):
 * refuses a mesh patch that one sphere could touch at two of its copies
 * a period apart, and a turning mesh joined to its own copy across a
 * boundary the turn would break (docs/walls.md). */
dem_status dem_setup_mesh_copies(const struct dem_node *root,
                                 const struct dem_sim *sim);
/* Path of `file` relative to the directory of the config file (caller
 * frees; NULL when out of memory). */
char *dem_setup_relative_path(const char *config_path, const char *file);
/* The contact section: the contact law, its material-pair table (mixed,
 * or given by contact.pairs), the neighbour search's settings (after the
 * materials, the walls and the particles). */
dem_status dem_setup_contact(const struct dem_node *root, struct dem_sim *sim);
/* Index of a named material: its position in the config's `materials`
 * mapping (the order of sim->materials), found in constant time; or a
 * config error at `at` naming the closest material. */
dem_status dem_setup_find_material(const struct dem_node *materials,
                                   const struct dem_node *at, const char *name,
                                   int *out);

#endif
