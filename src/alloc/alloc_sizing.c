#include "alloc/alloc_sizing.h"

#include <stdint.h>

static size_t min_size(size_t a, size_t b) {
  return a < b ? a : b;
}

void bp_alloc_resolve_hints(const bp_alloc_hints_t *given, size_t device_free,
                            bp_allocator_config_t *out) {
  bp_alloc_hints_t none = {0};
  const bp_alloc_hints_t *h = given ? given : &none;
  unsigned defaulted = 0;

  out->min_chunk_size = h->min_chunk_size;
  if (!out->min_chunk_size) {
    out->min_chunk_size = BP_ALLOC_DEFAULT_MIN_CHUNK;
    defaulted |= BP_ALLOCATOR_DEFAULTED_MIN_CHUNK;
  }
  out->extra_padding_size = h->extra_padding_size;
  if (!h->extra_padding_size)
    defaulted |= BP_ALLOCATOR_DEFAULTED_EXTRA_PADDING;
  out->max_alloc_size = h->max_alloc_size;
  if (!out->max_alloc_size) {
    out->max_alloc_size = device_free ? device_free : SIZE_MAX;
    defaulted |= BP_ALLOCATOR_DEFAULTED_MAX_ALLOC;
  }
  out->max_chunk_size = h->max_chunk_size;
  if (!out->max_chunk_size) {
    out->max_chunk_size = out->max_alloc_size;
    defaulted |= BP_ALLOCATOR_DEFAULTED_MAX_CHUNK;
  }
  out->max_chunk_size = min_size(out->max_chunk_size, out->max_alloc_size);
  size_t growth = min_size(out->max_alloc_size, BP_ALLOC_DEFAULT_GROWTH);
  out->init_alloc_size = h->init_alloc_size;
  if (!out->init_alloc_size) {
    out->init_alloc_size = growth;
    defaulted |= BP_ALLOCATOR_DEFAULTED_INIT_ALLOC;
  }
  out->realloc_size = h->realloc_size;
  if (!out->realloc_size) {
    out->realloc_size = growth;
    defaulted |= BP_ALLOCATOR_DEFAULTED_REALLOC;
  }
  out->init_alloc_size = min_size(out->init_alloc_size, out->max_alloc_size);
  out->realloc_size = min_size(out->realloc_size, out->max_alloc_size);
  out->defaulted = defaulted;
}

size_t bp_alloc_growth_size(const bp_allocator_config_t *config, size_t rounded,
                            bool small, bool first_large, size_t budget) {
  if (rounded > budget)
    return 0;
  size_t want =
      small ? BP_ALLOC_SMALL_CHUNK
            : (first_large ? config->init_alloc_size : config->realloc_size);
  if (want < rounded)
    want = rounded;
  size_t aligned;
  if (!bp_alloc_align_up(want, config->min_chunk_size, &aligned))
    aligned = rounded;
  if (aligned > budget) {
    /* The largest multiple of min_chunk within budget, at least rounded. */
    aligned = budget - budget % config->min_chunk_size;
    if (aligned < rounded)
      aligned = rounded;
  }
  return aligned;
}

bool bp_alloc_should_split(const bp_allocator_config_t *config,
                           size_t block_size, size_t rounded, bool small) {
  size_t remainder = block_size - rounded;
  if (small)
    return remainder >= config->min_chunk_size;
  return remainder > BP_ALLOC_SMALL_REQUEST;
}

/* (size + pad + unit - 1) & ~(unit - 1) <= top, the largest multiple of unit
 * within max_chunk_size, holds exactly for size <= top - pad; the sum cannot
 * overflow then. */
void bp_alloc_fast_round_init(const bp_allocator_config_t *config,
                              bp_alloc_fast_round_t *out) {
  size_t unit = config->min_chunk_size, pad = config->extra_padding_size;
  size_t top = config->max_chunk_size & ~(unit - 1);
  *out = (bp_alloc_fast_round_t){0, 0, 0};
  if (unit & (unit - 1) || top < pad)
    return;
  *out = (bp_alloc_fast_round_t){pad + (unit - 1), ~(unit - 1), top - pad};
}
