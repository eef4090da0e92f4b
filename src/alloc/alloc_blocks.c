/* Block records and free-block bookkeeping: spare records, the free trees,
 * splitting (carve) and coalescing, the hot cache emptied back into the
 * trees, and a pool's chunk list. Everything here runs with the pool locked.
 * Contract in alloc_blocks.h. */
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_internal.h"

bp_block_t *bp_alloc_new_block_record(void) {
  bp_block_t *b = aligned_alloc(_Alignof(bp_block_t), sizeof *b);
  if (b)
    memset(b, 0, sizeof *b);
  return b;
}

static bp_block_t *new_block(bp_alloc_pool_t *pool) {
  bp_block_t *b = pool->spare_blocks;
  if (b) {
    pool->spare_blocks = b->next;
    memset(b, 0, sizeof *b);
    return b;
  }
  return bp_alloc_new_block_record();
}

void bp_alloc_recycle_block(bp_alloc_pool_t *pool, bp_block_t *block) {
  if (pool->recent == block)
    pool->recent = NULL;
  free(block->other_streams);
  block->other_streams = NULL;
  block->next = pool->spare_blocks;
  pool->spare_blocks = block;
}

static bp_free_tree_t *tree_of(bp_alloc_pool_t *pool, const bp_block_t *b) {
  return b->chunk->kind == BP_CHUNK_SMALL ? &pool->small_free
                                          : &pool->large_free;
}

void bp_alloc_free_insert(bp_alloc_pool_t *pool, bp_block_t *block) {
  bp_free_tree_insert(tree_of(pool, block), block);
  if (bp_block_in_split_chunk(block)) {
    bp_stat_add(pool, BP_STAT_INACTIVE_SPLIT, block->size);
    bp_alloc_note_increase(pool, BP_STAT_INACTIVE_SPLIT);
  }
}

void bp_alloc_free_remove(bp_alloc_pool_t *pool, bp_block_t *block) {
  bp_free_tree_remove(tree_of(pool, block), block);
  if (bp_block_in_split_chunk(block))
    bp_stat_fall_split(pool, block->size);
}

/* Extends `first` over `second`, its neighbour after it; recycles the
 * record of `second`. */
static void merge_blocks(bp_alloc_pool_t *pool, bp_block_t *first,
                         bp_block_t *second) {
  first->size += second->size;
  first->next = second->next;
  if (second->next)
    second->next->prev = first;
  bp_alloc_recycle_block(pool, second);
}

void bp_alloc_release_block(bp_alloc_pool_t *pool, bp_block_t *b) {
  b->state = BP_BLOCK_FREE;
  b->workspace = false;
  free(b->other_streams);
  b->other_streams = NULL;
  b->other_stream_count = b->other_stream_capacity = 0;
  bp_block_t *prev = b->prev;
  if (prev && prev->state == BP_BLOCK_FREE) {
    bp_alloc_free_remove(pool, prev);
    merge_blocks(pool, prev, b);
    b = prev;
  }
  bp_block_t *next = b->next;
  if (next && next->state == BP_BLOCK_FREE) {
    bp_alloc_free_remove(pool, next);
    merge_blocks(pool, b, next);
  }
  bp_alloc_free_insert(pool, b);
}

void bp_alloc_flush_hot(bp_alloc_pool_t *pool) {
  for (bp_block_t *b = bp_hot_cache_take_all(&pool->hot), *next; b; b = next) {
    next = b->hot_next;
    b->hot_next = NULL;
    bp_block_map_remove(&pool->live, b->addr);
    if (bp_block_in_split_chunk(b))
      bp_stat_fall_split(pool, b->size);
    bp_alloc_release_block(pool, b);
  }
}

/* Takes `rounded` bytes from the front of the free block `b` (in the tree
 * if `in_tree`), splitting off the rest when worthwhile. */
void bp_alloc_carve(bp_caching_allocator_t *a, bp_alloc_pool_t *pool,
                    bp_block_t *b, size_t rounded, bool in_tree) {
  if (in_tree)
    bp_alloc_free_remove(pool, b);
  bool small_chunk = b->chunk->kind == BP_CHUNK_SMALL;
  if (!bp_alloc_should_split(&a->config, b->size, rounded, small_chunk))
    return;
  bp_block_t *rest = new_block(pool);
  if (!rest)
    return; /* no host memory for a record: hand out the whole block */
  rest->addr = b->addr + rounded;
  rest->size = b->size - rounded;
  rest->chunk = b->chunk;
  rest->state = BP_BLOCK_FREE;
  rest->prev = b;
  rest->next = b->next;
  if (b->next)
    b->next->prev = rest;
  b->next = rest;
  b->size = rounded;
  bp_alloc_free_insert(pool, rest);
}

void bp_alloc_link_chunk(bp_alloc_pool_t *pool, bp_chunk_t *chunk) {
  atomic_store_explicit(&chunk->pool, pool, memory_order_relaxed);
  chunk->prev = NULL;
  chunk->next = pool->chunks;
  if (pool->chunks)
    pool->chunks->prev = chunk;
  pool->chunks = chunk;
  bp_stat_add(pool, BP_STAT_RESERVED, chunk->size);
  bp_alloc_note_increase(pool, BP_STAT_RESERVED);
}

void bp_alloc_unlink_chunk(bp_alloc_pool_t *pool, bp_chunk_t *chunk) {
  if (chunk->kind != BP_CHUNK_DIRECT)
    bp_alloc_free_remove(pool, chunk->first);
  bp_alloc_recycle_block(pool, chunk->first);
  chunk->first = NULL;
  if (chunk->prev)
    chunk->prev->next = chunk->next;
  else
    pool->chunks = chunk->next;
  if (chunk->next)
    chunk->next->prev = chunk->prev;
  bp_stat_sub(pool, BP_STAT_RESERVED, chunk->size);
}
