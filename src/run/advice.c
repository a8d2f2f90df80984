/* The run's summary at start and its time-step advice: the Rayleigh step of
 * the smallest sphere and the contact model's own. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/model.h"
#include "run/run.h"
#include "sim/insert.h"

/* Rayleigh time step of the smallest sphere of the shapes with one sphere
 * (clumps 0) or of the clumps (clumps 1), HUGE_VAL if there are none:
 * pi R sqrt(rho / G) / (0.1631 nu + 0.8766), the time a Rayleigh wave
 * takes to cross the sphere. It limits the step of free spheres; a clump
 * is rigid (no wave crosses it) and its contacts push its whole mass, so
 * for clumps the limit is the contact's duration (the contact model's
 * advice) and this step is only reported (docs/configuration.md). */
static double rayleigh_time_step(const struct dem_sim *sim, int clumps) {
  double best = HUGE_VAL;
  size_t ns = sim->n_shapes ? sim->n_shapes : 1;
  long *count = calloc(ns, sizeof *count);
  double *smin = calloc(ns, sizeof *smin);
  if (count && smin)
    dem_shape_scales(sim, count, smin);
  for (size_t k = 0; k < sim->n_shapes; k++) {
    const struct dem_shape *sh = &sim->shapes[k];
    const struct dem_material *m = &sim->materials[sh->material];
    double g = m->young_modulus / (2.0 * (1.0 + m->poisson_ratio));
    /* its smallest size (scaled bodies and insert entries' sizes) */
    double s = smin && isfinite(smin[k]) ? smin[k] : 1.0;
    if ((sh->n_spheres > 1) != clumps)
      continue;
    for (size_t i = 0; i < sh->n_spheres; i++) {
      double dt = 3.14159265358979323846 * sh->radius[i] * s *
                  sqrt(m->density / g) / (0.1631 * m->poisson_ratio + 0.8766);
      if (dt < best)
        best = dt;
    }
  }
  free(count);
  free(smin);
  return best;
}

static void print_shapes(const struct dem_sim *sim) {
  for (size_t k = 0; k < sim->n_shapes; k++) {
    const struct dem_shape *sh = &sim->shapes[k];
    const struct dem_clump_props *p = &sh->props;
    fprintf(stderr,
            "  shape %s: %zu spheres, volume %.6g m^3, mass %.6g kg, "
            "centre of mass (%.6g, %.6g, %.6g), principal moments "
            "(%.6g, %.6g, %.6g) kg m^2",
            sh->name, sh->n_spheres, p->volume, p->mass, p->com[0], p->com[1],
            p->com[2], p->inertia[0], p->inertia[1], p->inertia[2]);
    if (p->exact)
      fprintf(stderr, " [exact]\n");
    else
      fprintf(stderr, " [grid %d, change %.2g from the coarser one]\n",
              p->resolution, p->rel_change);
  }
}

/* The contact law's material pairs, as dissipative laws use them (at most
 * `most` lines); a conservative law says what it ignores. */
static void print_pairs(const struct dem_sim *sim, int quiet, size_t most) {
  const struct dem_contact_law *law = &sim->law;
  const size_t nm = sim->n_materials;
  if (!(law->model->flags & DEM_MODEL_DISSIPATIVE)) {
    for (size_t a = 0; a < nm; a++) {
      const struct dem_material *m = &sim->materials[a];
      if (m->restitution != 1 || m->friction != 0 || m->rolling_friction != 0) {
        fprintf(stderr,
                "  warning: material '%s' has restitution, friction or "
                "rolling friction, which contact model '%s' ignores (use "
                "contact.model: hertz_mindlin)\n",
                m->name, law->model->name);
        return;
      }
    }
    return;
  }
  if (quiet)
    return;
  size_t shown = 0, all = nm * (nm + 1) / 2;
  for (size_t a = 0; a < nm; a++)
    for (size_t b = a; b < nm && shown < most; b++, shown++) {
      const struct dem_pair_props *p = &law->props[a * nm + b];
      fprintf(stderr,
              "  contact %s-%s: restitution %.6g, friction %.6g, rolling "
              "friction %.6g (%s)\n",
              sim->materials[a].name, sim->materials[b].name, p->restitution,
              p->friction, p->rolling_friction,
              p->given ? "given in contact.pairs"
              : a == b ? "the material's"
                       : "geometric means of the materials'");
    }
  if (all > shown)
    fprintf(stderr, "  ... and %zu more material pairs\n", all - shown);
}

/* Rotation integrators that give w(t+dt) the torque at the step's start
 * only: for a body rocking in a contact the step is not symplectic and
 * the energy grows in proportion to dt (docs/integrators.md). Measured on
 * examples/box_rods.yaml over 2 s at its time step. */
static const struct {
  const char *integrator, *growth;
} held_torque[] = {{"spiral", "+20.9 %"},
                   {"buss", "+20.3 %"},
                   {"johnson", "+62 %"},
                   {"rk4", "+20.0 %"}};

static void warn_held_torque(const struct dem_run *r) {
  const struct dem_op *rop = r->pipeline->rotation;
  for (size_t k = 0; rop && k < sizeof held_torque / sizeof held_torque[0]; k++)
    if (strcmp(rop->rot->name, held_torque[k].integrator) == 0)
      fprintf(stderr,
              "  warning: rotation integrator '%s' holds the torque at the "
              "step's start over the whole step: with contacts the energy "
              "grows in proportion to the time step (examples/box_rods.yaml, "
              "2 s: %s); use scheme spiral_leapfrog or "
              "velocity_verlet_spiral (docs/schemes.md)\n",
              rop->rot->name, held_torque[k].growth);
}

void dem_run_print_setup(const struct dem_run *r, int quiet) {
  const struct dem_sim *sim = &r->sim;
  const struct dem_contact_model *model = sim->law.model;
  if (!quiet) {
    fprintf(stderr, "dem %s: %zu bodies, %zu spheres, scheme %s, %d threads\n",
            DEM_VERSION_STRING, sim->b.n, sim->s.n, r->pipeline->scheme_name,
            omp_get_max_threads());
    if (r->out.print_shapes)
      print_shapes(sim);
  }
  print_pairs(sim, quiet, r->opt->check_only ? (size_t)-1 : 12);
  struct dem_dt_advice h;
  model->time_step(sim, &h);
  /* The Rayleigh step limits free spheres; with clumps only, the step of
   * their smallest sphere is shown for reference, and is the limit only
   * when no contact time can be estimated (nothing moves at the start). */
  double dtr = rayleigh_time_step(sim, 0);
  int limit = isfinite(dtr);
  if (!limit) {
    dtr = rayleigh_time_step(sim, 1);
    limit = !(h.speed > 0);
  }
  /* One body and no walls: nothing ever touches, no limit applies. */
  int contacts = sim->b.n > 1 || sim->walls.enabled;
  if (!quiet) {
    fprintf(stderr,
            "  time step %.6g s = %.3g x the Rayleigh time step %.6g s%s; "
            "%ld steps to t = %g s\n",
            sim->dt, sim->dt / dtr, dtr,
            !contacts ? " (no contacts)"
            : limit   ? ""
                      : " (of a clump's smallest sphere: not a limit for "
                        "rigid clumps, the contact time is)",
            sim->n_steps, sim->end_time);
    if (h.speed > 0)
      fprintf(stderr,
              "  %s contact time %.6g s (%s against %s at %.3g m/s): "
              "the time step is 1/%.3g of it\n",
              h.law, h.contact_time, h.a, h.b, h.speed,
              h.contact_time / sim->dt);
  }
  if (contacts && limit && sim->dt > dtr)
    fprintf(stderr,
            "  warning: the time step %.6g s exceeds the Rayleigh time step "
            "%.6g s (%.3g x); contacts may be poorly resolved\n",
            sim->dt, dtr, sim->dt / dtr);
  if (h.speed > 0 && sim->dt > h.time_step)
    fprintf(stderr,
            "  warning: the time step %.6g s exceeds the %s limit %.6g s "
            "(a contact of %s against %s at %.3g m/s lasts %.6g s: %.3g "
            "steps, fewer than %d); contacts may be poorly resolved\n",
            sim->dt, h.law, h.time_step, h.a, h.b, h.speed, h.contact_time,
            h.contact_time / sim->dt, h.steps);
  if (contacts)
    warn_held_torque(r);
  if (r->output && !quiet && !r->opt->check_only)
    fprintf(stderr, "  output %s\n", r->output);
}
