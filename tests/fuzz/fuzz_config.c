/* libFuzzer target: config loader, --set, section checks, YAML round trip. */
/* Input: YAML text. Lines "#set PATH=VALUE" are also applied as --set
 * overrides. For any input the loader must return a status (never crash,
 * leak or hang), and a tree it accepted must be emitted as YAML that loads
 * back and emits the same text. Configs asking for more than MAX_BODIES
 * bodies are only loaded, not set up: placing a million bodies is slow,
 * not a bug. Likewise a random fill tries at most MAX_ATTEMPTS placements
 * a body here (dem's default is 10,000): a fill that jams (long rods in a
 * narrow box) searches the bodies placed so far at every attempt, which
 * under the sanitizers ran past the fuzzer's 30 s for 2,000 bodies. A
 * refusal must come with a message. tests/test_fuzz_regressions.c
 * replays tests/fuzz/regressions/ through fuzz_config_one; tools/fuzz.sh
 * builds and runs it with clang -fsanitize=fuzzer,address,undefined. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "setup/setup.h"
#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BODIES 10000
#define MAX_ATTEMPTS 1000

/* The bodies the particles section asks for (a bound; unreadable counts
 * are left to dem_setup to reject). */
static double bodies_asked(const struct dem_config *cfg) {
  const struct dem_node *list = dem_node_get(cfg->root, "particles");
  double total = 0;
  for (size_t i = 0; i < dem_node_size(list); i++) {
    const struct dem_node *item = dem_node_at(list, i);
    const struct dem_node *fill = dem_node_get(item, "random_fill");
    const char *count = dem_node_scalar(dem_node_get(fill, "count"));
    total += count ? strtod(count, NULL) : 1;
  }
  return total;
}

/* Caps each random fill's max_attempts at MAX_ATTEMPTS (errors are
 * fine: setup reports a malformed entry). */
static void cap_attempts(struct dem_config *cfg) {
  const struct dem_node *list = dem_node_get(cfg->root, "particles");
  for (size_t i = 0; i < dem_node_size(list); i++) {
    const struct dem_node *fill =
        dem_node_get(dem_node_at(list, i), "random_fill");
    if (!fill)
      continue;
    const char *given = dem_node_scalar(dem_node_get(fill, "max_attempts"));
    if (given && strtod(given, NULL) <= MAX_ATTEMPTS)
      continue;
    char set[96];
    snprintf(set, sizeof set, "particles.%zu.random_fill.max_attempts=%d", i,
             MAX_ATTEMPTS);
    dem_config_set(cfg, set);
  }
}

/* Applies the "#set " lines of text to cfg (errors are fine). */
static void apply_sets(struct dem_config *cfg, const char *text) {
  const char *line = text;
  while (line && *line) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len > 5 && strncmp(line, "#set ", 5) == 0) {
      char *assignment = malloc(len - 4);
      if (assignment) {
        memcpy(assignment, line + 5, len - 5);
        assignment[len - 5] = '\0';
        dem_config_set(cfg, assignment);
        free(assignment);
      }
    }
    line = end ? end + 1 : NULL;
  }
}

/* A tree the loader accepted must survive emit -> load -> emit unchanged. */
static void check_round_trip(const struct dem_config *cfg) {
  char *first = dem_config_emit(cfg);
  if (!first)
    return; /* out of memory */
  struct dem_config *again = NULL;
  dem_status st = dem_config_load_string("emitted.yaml", first, &again);
  if (st != DEM_OK) {
    fprintf(stderr, "emitted YAML does not load back: %s\n---\n%s---\n",
            dem_last_error(), first);
    abort();
  }
  char *second = dem_config_emit(again);
  if (second && strcmp(first, second) != 0) {
    fprintf(stderr, "emit is not stable:\n---\n%s---\n%s---\n", first, second);
    abort();
  }
  free(second);
  dem_config_free(again);
  free(first);
}

/* What became of an input; every outcome keeps dem's promises. */
enum fuzz_outcome {
  FUZZ_ACCEPTED = 0, /* loaded, overrides applied, round trip, set up */
  FUZZ_REFUSED = 1   /* refused by the loader or by setup, with a message */
};

/* Runs one input through the loader, the "#set " overrides, the round trip
 * and setup; aborts (a crash for the fuzzer, a failure for the replay)
 * when a promise is broken. */
static enum fuzz_outcome fuzz_config_one(const uint8_t *data, size_t size) {
  enum fuzz_outcome outcome = FUZZ_ACCEPTED;
  char *text = malloc(size + 1);
  if (!text)
    return FUZZ_REFUSED; /* the harness's own memory, not dem's doing */
  memcpy(text, data, size);
  text[size] = '\0';
  struct dem_config *cfg = NULL;
  dem_error_clear();
  if (dem_config_load_string("fuzz.yaml", text, &cfg) == DEM_OK) {
    apply_sets(cfg, text);
    check_round_trip(cfg);
    struct dem_sim sim = {0};
    struct dem_output_options out;
    cap_attempts(cfg);
    dem_error_clear();
    if (!(bodies_asked(cfg) > MAX_BODIES) &&
        dem_setup(cfg, &sim, &out) != DEM_OK) {
      if (!dem_last_error()[0]) {
        fprintf(stderr, "dem_setup failed without a message\n");
        abort();
      }
      outcome = FUZZ_REFUSED;
    }
    dem_sim_release(&sim);
  } else {
    if (!dem_last_error()[0]) {
      fprintf(stderr, "the loader refused the input without a message\n");
      abort();
    }
    outcome = FUZZ_REFUSED;
  }
  dem_config_free(cfg);
  free(text);
  return outcome;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_config_one(data, size);
  return 0;
}
