/* Contact models: one const table, like the operators and the rotation
 * integrators. A model is one file and one line in contact/models.c. */
#ifndef DEM_CONTACT_MODEL_H
#define DEM_CONTACT_MODEL_H

#include <stddef.h>

#include "sim/sim.h"

/* One touching contact as a kernel sees it: the owner sphere (of a pair,
 * the one with the lower id) against a partner sphere or a wall. */
struct dem_pair {
  double d[3];    /* along the normal, pointing to the owner: n = d / dist
                     (for a pair x_i - x_j, for a wall the unit normal) */
  double dist;    /* |d| */
  double overlap; /* r_i + r_j - |x_i - x_j| (a wall: r_i - distance) > 0 */
  double rstar;   /* effective radius r_i r_j / (r_i + r_j) (a wall: r_i) */
  double ri, rj;  /* radii (rj = 0 for a wall) */
  double arm_i, arm_j; /* from each centre to the contact point, along n:
                          r - overlap/2 for a pair, r - overlap and 0 for a
                          wall */
  /* With DEM_MODEL_VELOCITY: */
  double mi, mj; /* the bodies' masses (mj = 0 for a wall) */
  double mstar;  /* effective mass of the two bodies (a wall: the owner's) */
  double v[3];   /* velocity of the owner's material at the contact point
                    relative to the partner's, lab frame, at the time the
                    force is evaluated */
  double w[3];   /* owner's angular velocity less the partner's, lab */
  double v_move[3], w_move[3]; /* the same for the velocities that moved
                                  the bodies over the step just made (the
                                  scheme's half-step velocities): a force's
                                  work over the step is its mean over the
                                  step . v_move dt */
  double dt; /* time the history advances by (0 at the first evaluation) */
  double shift[3]; /* periodic runs: x_i - x_j less d, whole periods (a
                      mesh contact: its patch copy's periods) */
};

/* What a kernel returns for one contact. */
struct dem_pair_result {
  double f[3]; /* force on the owner, lab frame (the partner gets -f) */
  double t[6]; /* with DEM_MODEL_TORQUE: torques on the owner and on the
                  partner about their own centres, lab frame */
  double work[DEM_N_DISSIPATION]; /* with DEM_MODEL_DISSIPATIVE: work
                                     dissipated over the step just made,
                                     by mechanism */
};

/* Touching contacts as a lane kernel sees them: up to DEM_LANES of them,
 * each field of struct dem_pair as an array over the contacts (so that
 * the kernel treats several at once, one per lane of a vector), with
 * each contact's parameters, history and result. In modes other than
 * DEM_LANES_GIVEN only some fields are set, and the kernel completes the
 * geometry and kinematics itself (contact/lanes.h). The loop fills the
 * lanes past n up to a multiple of DEM_LANES_VW with copies of the last
 * contact (with a history of their own, `spare`), so that every vector of
 * lanes is whole. */
#define DEM_LANES 64
#define DEM_LANES_STATE 18 /* the longest history a lane kernel keeps */
#define DEM_LANES_VW 4     /* lanes a kernel takes at once (contact/lanes.h) */
enum dem_lanes_mode {
  DEM_LANES_GIVEN, /* every field of struct dem_pair */
  DEM_LANES_PAIRS, /* sphere-sphere: d, dist = |d|^2, shift (periodic), x,
                      rsum, ri, rj, bi, bj, and the list's rstar, mstar,
                      inertia (no mi, mj) */
  DEM_LANES_WALLS, /* a flat wall at rest: d, dist, overlap, ri, arm_i, x,
                      bi */
};
struct dem_lanes {
  _Alignas(64) double d[3][DEM_LANES];
  double dist[DEM_LANES], overlap[DEM_LANES], rstar[DEM_LANES];
  double ri[DEM_LANES], rj[DEM_LANES], arm_i[DEM_LANES], arm_j[DEM_LANES];
  double mi[DEM_LANES], mj[DEM_LANES], mstar[DEM_LANES];
  double inertia[DEM_LANES]; /* DEM_LANES_PAIRS: the pair's rolling inertia */
  double v[3][DEM_LANES], w[3][DEM_LANES];
  double v_move[3][DEM_LANES], w_move[3][DEM_LANES];
  double shift[3][DEM_LANES];
  double x[3][DEM_LANES];           /* the owner sphere's centre */
  double rsum[DEM_LANES];           /* r_i + r_j as the list has it */
  int bi[DEM_LANES], bj[DEM_LANES]; /* the owner's body, the partner's */
  const struct dem_bodies *bodies;
  const double *kin; /* DEM_LANES_PAIRS: `bodies` packed, or NULL */
  enum dem_lanes_mode mode;
  int periodic;
  double *state[DEM_LANES]; /* each contact's history, advanced in place */
  double f[3][DEM_LANES], t[6][DEM_LANES];
  double work[DEM_N_DISSIPATION][DEM_LANES];
  const void *params[DEM_LANES];
  double spare[DEM_LANES_VW][DEM_LANES_STATE];
  double dt;
  unsigned n; /* contacts */
};

/* A lane kernel: the result (struct dem_pair_result's) for every contact
 * of `l`, and their history advanced. */
typedef void (*dem_lane_kernel)(struct dem_lanes *l);

enum dem_model_flags {
  DEM_MODEL_VELOCITY = 1u << 0,    /* kernels read dem_pair's velocities */
  DEM_MODEL_TORQUE = 1u << 1,      /* kernels write torques */
  DEM_MODEL_DISSIPATIVE = 1u << 2, /* kernels report dissipated work; the
                                      law uses the pair properties */
};

/* The time step a model advises: contacts should last at least `steps`
 * time steps; the shortest expected one lasts contact_time. */
struct dem_dt_advice {
  double contact_time; /* HUGE_VAL: no moving contact expected */
  double speed;        /* impact speed it assumed */
  double time_step;    /* contact_time / steps */
  int steps;
  const char *a, *b; /* shape names ("the walls" for b) */
  const char *law;   /* whose contact time it is, e.g. "Hertz" */
};

struct dem_contact_model {
  const char *name; /* contact.model in YAML */
  const char *doc;  /* one paragraph: the force law, its source, history */
  /* Material-pair parameters: their size, and how they are mixed from two
   * materials (the walls' material is a material like any other), once at
   * setup. */
  size_t params_size;
  dem_status (*mix)(const struct dem_material *a, const struct dem_material *b,
                    const struct dem_pair_props *pair, void *params);
  /* After every pair is mixed, work the model does once for the table
   * (NULL: none). */
  dem_status (*prepare)(struct dem_contact_law *law);
  int state_width; /* doubles of history per contact (0: none) */
  unsigned flags;  /* enum dem_model_flags */
  /* Every sphere-sphere contact and every sphere-wall contact of the
   * lists: each contact's force (and torques and history) into its list.
   * Written with the drivers in contact/loop.h. */
  void (*pairs)(struct dem_sim *sim, double dt);
  void (*walls)(struct dem_sim *sim, double dt);
  /* Elastic energy stored in one touching contact. */
  double (*energy)(const void *params, const struct dem_pair *g,
                   const double *state);
  /* With DEM_MODEL_DISSIPATIVE: a contact that was touching (history
   * nonzero) and is not any more: the work its forces dissipated over
   * this last step (g has the normal, the arms and the velocities; the
   * forces end at zero). Its history is cleared after. */
  void (*release)(const void *params, const struct dem_pair *g,
                  const double *state, double work[DEM_N_DISSIPATION]);
  /* The time step it advises for the state as set up. */
  void (*time_step)(const struct dem_sim *sim, struct dem_dt_advice *out);
  /* Names of the history's components, as output writes them. */
  const char *const *state_names;
};

/* NULL-terminated table of the built-in models. */
extern const struct dem_contact_model *const dem_contact_models[];
const struct dem_contact_model *dem_contact_model_find(const char *name);

/* Puts `model` to work in sim: mixes its parameters for every pair of
 * materials (with their pair properties, props[a * n + b]) and sizes the
 * contact lists' history. After the materials, the walls and the spheres
 * are set up. */
dem_status dem_contact_law_init(struct dem_sim *sim,
                                const struct dem_contact_model *model,
                                const struct dem_pair_props *props);

#endif
