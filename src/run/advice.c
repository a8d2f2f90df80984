/* The run's summary at start and its time-step advice: the Rayleigh step of
 * the smallest sphere and the contact model's own. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

#include "contact/model.h"
#include "run/run.h"

/* Rayleigh time step of the smallest sphere of each material:
 * pi R sqrt(rho / G) / (0.1631 nu + 0.8766). */
static double rayleigh_time_step(const struct dem_sim *sim) {
  double best = HUGE_VAL;
  for (size_t k = 0; k < sim->n_shapes; k++) {
    const struct dem_shape *sh = &sim->shapes[k];
    const struct dem_material *m = &sim->materials[sh->material];
    double g = m->young_modulus / (2.0 * (1.0 + m->poisson_ratio));
    for (size_t i = 0; i < sh->n_spheres; i++) {
      double dt = 3.14159265358979323846 * sh->radius[i] *
                  sqrt(m->density / g) / (0.1631 * m->poisson_ratio + 0.8766);
      if (dt < best)
        best = dt;
    }
  }
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
  double dtr = rayleigh_time_step(sim);
  struct dem_dt_advice h;
  model->time_step(sim, &h);
  /* One body and no walls: nothing ever touches, no limit applies. */
  int contacts = sim->b.n > 1 || sim->walls.enabled;
  if (!quiet) {
    fprintf(stderr,
            "  time step %.6g s = %.3g x the Rayleigh time step %.6g s%s; "
            "%ld steps to t = %g s\n",
            sim->dt, sim->dt / dtr, dtr, contacts ? "" : " (no contacts)",
            sim->n_steps, sim->end_time);
    if (h.speed > 0)
      fprintf(stderr,
              "  %s contact time %.6g s (%s against %s at %.3g m/s): "
              "the time step is 1/%.3g of it\n",
              h.law, h.contact_time, h.a, h.b, h.speed,
              h.contact_time / sim->dt);
  }
  if (contacts && sim->dt > dtr)
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
  if (r->output && !quiet && !r->opt->check_only)
    fprintf(stderr, "  output %s\n", r->output);
}
