/* Growth and out-of-memory of the caching allocator (alloc_growth.c): the
 * paths a request takes when no cached block fits. Called with no pool lock
 * held; they take the pool's lock and the allocator's device_mu themselves
 * (lock order in alloc_internal.h) and call the backend unlocked. */
#ifndef BACKPLANE_ALLOC_ALLOC_GROWTH_H_
#define BACKPLANE_ALLOC_ALLOC_GROWTH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_block.h"
#include "alloc/caching_allocator.h"

/* A request above max_chunk_size (`rounded` is `size` padded and aligned):
 * a chunk of its own from the backend, retried once after releasing cached
 * memory. BP_ERR_OUT_OF_MEMORY with a message describing the device's state,
 * or the backend's failure with its message. */
bp_status_t bp_alloc_allocate_direct(bp_caching_allocator_t *allocator,
                                     bp_alloc_pool_t *pool, size_t size,
                                     size_t rounded, bool workspace,
                                     void **out_ptr);
/* A request the pool's cache missed: reclaims completed pending frees, grows
 * the pool by a new chunk, and under memory pressure reuses large free blocks
 * for small requests, then releases idle chunks and retries once. Errors as
 * bp_alloc_allocate_direct. */
bp_status_t bp_alloc_allocate_slow(bp_caching_allocator_t *allocator,
                                   bp_alloc_pool_t *pool, size_t size,
                                   size_t rounded, bool workspace,
                                   void **out_ptr);
/* Gives an unlinked chunk back to the backend and frees its record (no pool
 * lock held). */
void bp_alloc_return_chunk(bp_caching_allocator_t *allocator,
                           bp_chunk_t *chunk);

#endif /* BACKPLANE_ALLOC_ALLOC_GROWTH_H_ */
