/* A pool's hot cache: blocks freed idle (no other stream to wait for) are
 * kept whole, unmerged, in a bin for their exact size, so that the next
 * request of that rounded size is a pop and the free a push (LIFO: the most
 * recently freed block, likely still warm in the device's caches).
 *
 * 64 bins, direct-mapped by a hash of the size; a bin holds blocks of one
 * size, at most BP_HOT_CACHE_DEPTH of them. A block that does not fit (its
 * bin holds another size, or is full) is freed the ordinary way. The pool
 * empties its cache into the free tree before any best-fit search, so a miss
 * sees exactly the free blocks it would see without the cache; empty_cache,
 * out-of-memory and forget_stream empty it too.
 *
 * Not thread-safe: the pool's lock guards it. Blocks in the cache are in
 * state BP_BLOCK_CACHED, linked through hot_next (meaningless once popped).
 * A pop and a push are a few loads and stores, on the pools' hot paths. */
#ifndef BACKPLANE_ALLOC_HOT_CACHE_H_
#define BACKPLANE_ALLOC_HOT_CACHE_H_

#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc_block.h"

enum { BP_HOT_CACHE_BINS = 64, BP_HOT_CACHE_DEPTH = 16 };

typedef struct bp_hot_bin {
  size_t size; /* of every block in the bin, when count > 0 */
  bp_block_t *top;
  uint32_t count;
} bp_hot_bin_t;

typedef struct bp_hot_cache {
  /* Bit i: bins[i] may hold blocks (set by a push, cleared only when the
   * cache is emptied, so that a pop writes nothing but its bin). */
  uint64_t occupied;
  bp_hot_bin_t bins[BP_HOT_CACHE_BINS];
} bp_hot_cache_t;

static inline unsigned bp_hot_cache_bin_of(size_t size) {
  return (unsigned)(((uint64_t)size * 0x9E3779B97F4A7C15ull) >> 58);
}

/* The most recently cached block of exactly `size` bytes, removed from the
 * cache; NULL if none. */
static inline bp_block_t *bp_hot_cache_pop(bp_hot_cache_t *cache, size_t size) {
  unsigned i = bp_hot_cache_bin_of(size);
  bp_hot_bin_t *bin = &cache->bins[i];
  bp_block_t *b = bin->top;
  if (!b || bin->size != size)
    return NULL;
  bin->top = b->hot_next;
  bin->count--;
  return b;
}

/* Adds `block` (its state is the caller's business); false if its bin holds
 * another size or is full. */
static inline bool bp_hot_cache_push(bp_hot_cache_t *cache, bp_block_t *block) {
  unsigned i = bp_hot_cache_bin_of(block->size);
  bp_hot_bin_t *bin = &cache->bins[i];
  if (bin->count == 0) {
    bin->size = block->size;
    cache->occupied |= UINT64_C(1) << i;
  } else if (bin->size != block->size || bin->count == BP_HOT_CACHE_DEPTH) {
    return false;
  }
  block->hot_next = bin->top;
  bin->top = block;
  bin->count++;
  return true;
}

/* Empties the cache; returns its blocks linked through hot_next. */
static inline bp_block_t *bp_hot_cache_take_all(bp_hot_cache_t *cache) {
  bp_block_t *all = NULL;
  for (uint64_t left = cache->occupied; left; left &= left - 1) {
    bp_hot_bin_t *bin = &cache->bins[__builtin_ctzll(left)];
    while (bin->top) {
      bp_block_t *b = bin->top;
      bin->top = b->hot_next;
      b->hot_next = all;
      all = b;
    }
    bin->count = 0;
  }
  cache->occupied = 0;
  return all;
}

#endif /* BACKPLANE_ALLOC_HOT_CACHE_H_ */
