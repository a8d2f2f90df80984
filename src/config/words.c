/* "Did you mean ...?": the closest known word by edit distance. */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* Words longer than this are never close to a key name. */
enum { MAX_WORD = 64 };

/* Edit distance counting insertions, deletions, substitutions and swaps of
 * neighbouring letters as one edit each (optimal string alignment). */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  size_t rows[3][MAX_WORD + 1]; /* i-2, i-1 and i */
  size_t *two = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= lb; j++)
    prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t best = prev[j - 1] + cost;
      if (prev[j] + 1 < best)
        best = prev[j] + 1;
      if (cur[j - 1] + 1 < best)
        best = cur[j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          two[j - 2] + 1 < best)
        best = two[j - 2] + 1;
      cur[j] = best;
    }
    size_t *t = two;
    two = prev;
    prev = cur;
    cur = t;
  }
  return prev[lb];
}

const char *dem_closest_name(const char *word, size_t n,
                             const char *(*name)(const void *ctx, size_t i),
                             const void *ctx) {
  if (!word || !name)
    return NULL;
  size_t len = strlen(word);
  if (len > MAX_WORD)
    return NULL;
  size_t limit = len / 3 > 2 ? len / 3 : 2;
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (size_t i = 0; i < n; i++) {
    const char *c = name(ctx, i);
    if (!c || strlen(c) > MAX_WORD)
      continue;
    size_t d = edit_distance(word, c);
    if (d < best_d) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

static const char *list_name(const void *ctx, size_t i) {
  return ((const char *const *)ctx)[i];
}

const char *dem_closest_word(const char *word, const char *const *choices) {
  if (!choices)
    return NULL;
  size_t n = 0;
  while (choices[n])
    n++;
  return dem_closest_name(word, n, list_name, choices);
}
