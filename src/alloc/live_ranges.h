/* Range lookups over the caching allocator's blocks (internal): which block
 * a device pointer falls in, and whether a range starting there stays inside
 * what the caller was handed. The framework face uses it to refuse a copy or
 * memset that runs past the end of its allocation or touches a block that
 * was freed (and is cached or pending), before any plugin call.
 *
 * Cost: a pointer that starts a block (the common case) is one hash lookup
 * per stream pool under that pool's lock; an interior pointer walks the
 * blocks of the chunk holding it. Thread-safe: takes each pool's lock in
 * turn, never two at once. */
#ifndef BACKPLANE_ALLOC_LIVE_RANGES_H_
#define BACKPLANE_ALLOC_LIVE_RANGES_H_

#include <stddef.h>
#include <stdint.h>

#include "alloc/caching_allocator.h"

typedef enum bp_range_verdict {
  BP_RANGE_NOT_OURS, /* no chunk of this allocator holds the pointer */
  BP_RANGE_INSIDE,   /* inside an allocated block's requested bytes */
  BP_RANGE_PAST_END, /* starts in an allocated block, runs past its end */
  BP_RANGE_FREED,    /* in a block freed by the user (cached, pending, free) */
} bp_range_verdict_t;

/* The block a verdict other than NOT_OURS is about. */
typedef struct bp_range_block {
  uintptr_t addr;
  size_t requested; /* bytes the caller asked for (allocated blocks) */
} bp_range_block_t;

/* Where [ptr, ptr + size) falls among `allocator`'s blocks; `size` ≥ 1 and
 * ptr + size does not overflow. Fills *out_block unless NOT_OURS. */
bp_range_verdict_t
bp_caching_allocator_check_range(bp_caching_allocator_t *allocator,
                                 const void *ptr, size_t size,
                                 bp_range_block_t *out_block);

#endif /* BACKPLANE_ALLOC_LIVE_RANGES_H_ */
