/* Block records and free-block bookkeeping of the caching allocator
 * (alloc_blocks.c). Every function runs with the pool's lock held and never
 * calls the backend; none sets an error. */
#ifndef BACKPLANE_ALLOC_ALLOC_BLOCKS_H_
#define BACKPLANE_ALLOC_ALLOC_BLOCKS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_block.h"
#include "alloc/caching_allocator.h"

/* Files a free `block` in its pool's free tree (small or large by its
 * chunk), counting it as inactive split bytes if its chunk is split. */
void bp_alloc_free_insert(bp_alloc_pool_t *pool, bp_block_t *block);
/* The reverse of bp_alloc_free_insert. */
void bp_alloc_free_remove(bp_alloc_pool_t *pool, bp_block_t *block);
/* Makes an allocated or pending `block` free: coalesces it with free
 * neighbours and files it in the free tree. */
void bp_alloc_release_block(bp_alloc_pool_t *pool, bp_block_t *block);
/* Frees every block of the pool's hot cache into its free tree. */
void bp_alloc_flush_hot(bp_alloc_pool_t *pool);
/* A zeroed block record on its own cache lines (free() releases it); NULL
 * without host memory. */
bp_block_t *bp_alloc_new_block_record(void);
/* Returns a block record to the pool's spare list. */
void bp_alloc_recycle_block(bp_alloc_pool_t *pool, bp_block_t *block);
/* Takes `rounded` bytes from the front of the free block `b` (first out of
 * the free tree if `in_tree`), splitting the rest off into a new free block
 * when the allocator's split policy says so (alloc_sizing.h) and a record
 * can be had; otherwise `b` stays whole. */
void bp_alloc_carve(bp_caching_allocator_t *allocator, bp_alloc_pool_t *pool,
                    bp_block_t *b, size_t rounded, bool in_tree);
/* Adds a new chunk to the pool's chunk list (the chunk now belongs to the
 * pool) and counts its bytes as reserved. */
void bp_alloc_link_chunk(bp_alloc_pool_t *pool, bp_chunk_t *chunk);
/* Unlinks an idle or direct chunk from its pool, updating reserved stats;
 * the caller then calls bp_alloc_return_chunk unlocked. */
void bp_alloc_unlink_chunk(bp_alloc_pool_t *pool, bp_chunk_t *chunk);

#endif /* BACKPLANE_ALLOC_ALLOC_BLOCKS_H_ */
