/* The name index of a module's functions and the nearest names of a
 * not-found lookup (kernel/function_index.h). */
#include "kernel/function_index.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64 bits. */
static uint64_t hash_name(const char *name) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char *p = (const unsigned char *)name; *p; ++p)
    h = (h ^ *p) * 1099511628211ull;
  return h;
}

/* The slot holding `key`, or the empty slot where it would go. */
static bp_function_index_slot_t *probe(const bp_function_index_t *index,
                                       const char *key) {
  for (size_t i = (size_t)hash_name(key) & index->mask;;
       i = (i + 1) & index->mask) {
    bp_function_index_slot_t *slot = &index->slots[i];
    if (!slot->key || strcmp(slot->key, key) == 0)
      return slot;
  }
}

/* First holder wins: later functions with the same name stay unindexed. */
static void insert(bp_function_index_t *index, const char *key,
                   bp_function_t *function) {
  bp_function_index_slot_t *slot = probe(index, key);
  if (!slot->key)
    *slot = (bp_function_index_slot_t){.key = key, .function = function};
}

bp_status_t bp_function_index_build(bp_function_index_t *index,
                                    bp_function_t *functions, size_t count) {
  *index = (bp_function_index_t){0};
  if (count == 0)
    return BP_OK;
  /* Two keys per function at most; keep the load at or under 1/2. */
  size_t capacity = 8;
  while (capacity < count * 4)
    capacity *= 2;
  index->slots = calloc(capacity, sizeof *index->slots);
  if (!index->slots)
    return BP_ERR_OUT_OF_MEMORY;
  index->mask = capacity - 1;
  for (size_t i = 0; i < count; ++i) {
    insert(index, functions[i].op, &functions[i]);
    insert(index, functions[i].name, &functions[i]);
  }
  return BP_OK;
}

bp_function_t *bp_function_index_find(const bp_function_index_t *index,
                                      const char *name) {
  if (!index->slots)
    return NULL;
  return probe(index, name)->function;
}

void bp_function_index_free(bp_function_index_t *index) {
  free(index->slots);
  *index = (bp_function_index_t){0};
}

/* Names longer than this are compared by their first this-many bytes. */
enum { COMPARED_BYTES = 127 };

/* Levenshtein distance between a and b (each cut to COMPARED_BYTES). */
static size_t edit_distance(const char *a, const char *b) {
  size_t m = strnlen(a, COMPARED_BYTES), n = strnlen(b, COMPARED_BYTES);
  size_t row[COMPARED_BYTES + 1];
  for (size_t j = 0; j <= n; ++j)
    row[j] = j;
  for (size_t i = 1; i <= m; ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= n; ++j) {
      size_t above = row[j];
      size_t best = diagonal + (a[i - 1] != b[j - 1]);
      if (above + 1 < best)
        best = above + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diagonal = above;
    }
  }
  return row[n];
}

static size_t common_prefix(const char *a, const char *b) {
  size_t n = 0;
  while (a[n] && a[n] == b[n])
    ++n;
  return n;
}

typedef struct candidate {
  const char *text;
  size_t distance, prefix, position;
} candidate_t;

/* Whether x ranks before y. */
static int nearer(const candidate_t *x, const candidate_t *y) {
  if (x->distance != y->distance)
    return x->distance < y->distance;
  if (x->prefix != y->prefix)
    return x->prefix > y->prefix;
  return x->position < y->position;
}

static candidate_t score(const bp_function_t *function, size_t position,
                         const char *name) {
  candidate_t c = {function->op, edit_distance(name, function->op),
                   common_prefix(name, function->op), position};
  if (function->name != function->op) {
    candidate_t by_name = {function->name, edit_distance(name, function->name),
                           common_prefix(name, function->name), position};
    if (nearer(&by_name, &c))
      c = by_name;
  }
  return c;
}

enum { MAX_NEAREST = 16 };

void bp_function_index_nearest(const bp_function_t *functions, size_t count,
                               const char *name, size_t limit, char *out,
                               size_t capacity) {
  candidate_t best[MAX_NEAREST];
  size_t kept = 0;
  if (limit > MAX_NEAREST)
    limit = MAX_NEAREST;
  for (size_t i = 0; i < count; ++i) {
    candidate_t c = score(&functions[i], i, name);
    if (kept == limit && (kept == 0 || !nearer(&c, &best[kept - 1])))
      continue;
    size_t at = kept < limit ? kept++ : kept - 1;
    while (at > 0 && nearer(&c, &best[at - 1])) {
      best[at] = best[at - 1];
      --at;
    }
    best[at] = c;
  }
  size_t used = 0;
  if (capacity)
    out[0] = '\0';
  for (size_t i = 0; i < kept && used < capacity; ++i) {
    int n = snprintf(out + used, capacity - used, "%s\"%s\"", i ? ", " : "",
                     best[i].text);
    if (n < 0)
      break;
    used += (size_t)n;
  }
}
