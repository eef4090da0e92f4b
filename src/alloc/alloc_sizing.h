/* Sizing rules of the caching allocator (the plugin's size hints, after
 * Paddle's custom-device interface; docs/allocator.md), as pure functions.
 *
 * Defaults for hints the plugin did not give (0):
 *   min_chunk_size     512: Paddle substitutes 1, but an alignment of 1 hands
 *                      out unaligned device pointers; 512 is PyTorch's minimum
 *                      block and Paddle's custom_cpu value.
 *   extra_padding_size 0 (Paddle's interface).
 *   max_alloc_size     the device's free memory when the allocator is created
 *                      (Paddle's interface); unlimited (SIZE_MAX) when the
 * device cannot tell (no memory_info, or it reports 0 free). max_chunk_size
 * max_alloc_size (Paddle's interface). init_alloc_size, realloc_size
 * min(max_alloc_size, 20 MiB). Paddle's interface says max_alloc, i.e. take the
 * whole device at the first allocation; Paddle's own default strategy
 * (auto_growth) ignores these hints and grows by the request, and PyTorch grows
 *                      by 20 MiB segments. A growth is never smaller than the
 *                      request, so 20 MiB bounds waste without capping sizes,
 *                      and leaves device memory to other users.
 * Given hints are clamped: max_chunk, init and realloc to max_alloc. */
#ifndef BACKPLANE_ALLOC_ALLOC_SIZING_H_
#define BACKPLANE_ALLOC_ALLOC_SIZING_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/caching_allocator.h"

#define BP_ALLOC_DEFAULT_MIN_CHUNK ((size_t)512)
#define BP_ALLOC_DEFAULT_GROWTH ((size_t)20 << 20)
/* Requests up to this size (after rounding) use the small pool. */
#define BP_ALLOC_SMALL_REQUEST ((size_t)1 << 20)
/* Chunk size of the small pool (rounded up to min_chunk). */
#define BP_ALLOC_SMALL_CHUNK ((size_t)2 << 20)

/* Effective hints from the plugin's `given` (NULL: none) and the device's
 * free memory (`device_free` 0: unknown). */
void bp_alloc_resolve_hints(const bp_alloc_hints_t *given, size_t device_free,
                            bp_allocator_config_t *out);

/* `size` rounded up to a multiple of `unit`; false on overflow. Inline: it
 * is on every allocation's path. */
static inline bool bp_alloc_align_up(size_t size, size_t unit, size_t *out) {
  if ((unit & (unit - 1)) == 0) { /* a power of two: no division */
    if (size > SIZE_MAX - (unit - 1))
      return false;
    *out = (size + unit - 1) & ~(unit - 1);
    return true;
  }
  size_t rem = size % unit;
  if (rem == 0) {
    *out = size;
    return true;
  }
  if (size > SIZE_MAX - (unit - rem))
    return false;
  *out = size + (unit - rem);
  return true;
}

/* size + extra padding rounded up to min_chunk (size 0 counts as 1 byte).
 * false on overflow. */
static inline bool bp_alloc_round_size(const bp_allocator_config_t *config,
                                       size_t size, size_t *out_rounded) {
  size_t padded = (size ? size : 1);
  if (padded > SIZE_MAX - config->extra_padding_size)
    return false;
  padded += config->extra_padding_size;
  return bp_alloc_align_up(padded, config->min_chunk_size, out_rounded);
}

/* Rounding precomputed for the hot path: when min_chunk is a power of two,
 * a request of 1..limit bytes rounds to (size + add) & mask, which neither
 * overflows nor exceeds max_chunk_size (limit 0: no fast rounding). */
typedef struct bp_alloc_fast_round {
  size_t add, mask, limit;
} bp_alloc_fast_round_t;

void bp_alloc_fast_round_init(const bp_allocator_config_t *config,
                              bp_alloc_fast_round_t *out);

/* The size of a new chunk for a `rounded` request: small pool chunks are
 * BP_ALLOC_SMALL_CHUNK, large ones max(rounded, first ? init : realloc); both
 * aligned to min_chunk and cut to `budget` (what max_alloc still allows) but
 * never below `rounded`. 0 when `rounded` does not fit in `budget`. */
size_t bp_alloc_growth_size(const bp_allocator_config_t *config, size_t rounded,
                            bool small, bool first_large, size_t budget);

/* Whether a free block of `block_size` serving `rounded` is split: the small
 * pool splits off any remainder of at least min_chunk, the large pool only a
 * remainder above BP_ALLOC_SMALL_REQUEST (smaller tails stay with the block,
 * as in PyTorch, so the large pool does not fill with slivers). */
bool bp_alloc_should_split(const bp_allocator_config_t *config,
                           size_t block_size, size_t rounded, bool small);

#endif /* BACKPLANE_ALLOC_ALLOC_SIZING_H_ */
