/* The caching allocator's life and its pools (alloc_pools.c).
 * bp_caching_allocator_create/_destroy are declared in caching_allocator.h. */
#ifndef BACKPLANE_ALLOC_ALLOC_POOLS_H_
#define BACKPLANE_ALLOC_ALLOC_POOLS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_block.h"
#include "alloc/caching_allocator.h"

/* A new, empty pool for `stream` (not yet linked into the allocator's
 * list); NULL when host memory runs out (no message set). */
bp_alloc_pool_t *bp_alloc_pool_create(bp_caching_allocator_t *allocator,
                                      void *stream);
/* Locks and returns the pool whose map holds `addr`, with the block in
 * *out_block; NULL if no pool has it. Newest pools first. */
bp_alloc_pool_t *bp_alloc_lock_owner(bp_caching_allocator_t *allocator,
                                     uintptr_t addr, bp_block_t **out_block);
/* Locks the pool that owns `chunk` now (chunks move in forget_stream). */
bp_alloc_pool_t *bp_alloc_lock_chunk_pool(bp_chunk_t *chunk);

#endif /* BACKPLANE_ALLOC_ALLOC_POOLS_H_ */
