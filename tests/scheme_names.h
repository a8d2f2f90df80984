/* Test helper: the named schemes of DESIGN.md, in its order, written out
 * here rather than read from the code under test; rk4 is last. */
#ifndef DEM_TEST_SCHEME_NAMES_H
#define DEM_TEST_SCHEME_NAMES_H

static const char *const scheme_names[] = {"spiral_leapfrog",
                                           "spiral",
                                           "velocity_verlet_spiral",
                                           "direct_euler",
                                           "velocity_verlet",
                                           "fincham",
                                           "buss",
                                           "omelyan",
                                           "johnson",
                                           "pfc4",
                                           "pcdm",
                                           "rk4",
                                           NULL};
enum { NSCHEMES = sizeof scheme_names / sizeof scheme_names[0] - 1 };

#endif
