/* Per-thread caches of small no-stream blocks.
 *
 * Threads sharing the NULL-stream pool would take turns on its lock (and
 * revoke its bias back and forth). So a small block (rounded size up to
 * BP_THREAD_CACHE_MAX_BLOCK, in a split chunk) freed idle with no stream is
 * *lent* to the freeing thread's cache instead of going back to the pool:
 * the pool marks it BP_BLOCK_LENT (still in its block map, never merged)
 * and the cache files it in the bin of its exact size (one bin per multiple
 * of min_chunk_size, indexed by the size: no hash, no size check). The next
 * malloc of that size on that thread pops it, and its free pushes it back,
 * under the cache's own lock only: a bp_pool_lock_t biased to the owner, so the
 * owner takes it with plain loads and stores, and anyone else (a drain) revokes
 * the bias. Those two hits (bp_thread_cache_malloc_hit/free_hit) call
 * nothing and are inlined into the framework face.
 *
 * Bounds: at most BP_THREAD_CACHE_DEPTH blocks per size and
 * BP_THREAD_CACHE_MAX_BYTES free bytes per thread and allocator; sizes up
 * to BP_THREAD_CACHE_BINS times min_chunk_size.
 *
 * A lent block's record: `lender` (written with the pool's and the cache's
 * locks held, so either lock reads it) and `tc_free` (the cache's lock). A
 * free lent block counts as free in the statistics, like a pool's hot cache
 * block; a second free of it is refused ("not a live allocation") whichever
 * path sees it. A lent block handed out and then freed by another thread,
 * recorded on a stream or sized is taken back from the cache first
 * (bp_thread_cache_reclaim) and then treated as any block.
 *
 * Blocks go back to the pool on thread exit (a thread-exit destructor), on
 * bp_caching_allocator_empty_cache and before the out-of-memory retry (every
 * thread's cache), on the owner's own miss in the pool (its cache), and when
 * the owner finds its rooms outdated (below).
 *
 * Statistics: a hit changes allocated and active bytes by the block's size
 * and requested bytes by the request; the cache counts those in two
 * counters of its own (`bytes`, `requested`), summed with the pools' when
 * read. Inactive split bytes need no counter: every lent block is in a
 * split chunk and the pool counts it as inactive split for as long as it is
 * lent, so the device-wide value is the pools' minus what the caches have
 * handed out (their current `bytes`). The records outlive their threads
 * (reused by new threads, freed with the allocator), so the sums stay exact.
 *
 * Peaks: a hit may grow allocated and active bytes only by popping a free
 * block, i.e. within `held_bytes`, and requested bytes only within
 * `room_requested` (what its own frees and lends released). A peak walk
 * (alloc_stats.c) counts each cache as its current values plus those rooms
 * (its claim); when the claims no longer fit under the peak it bumps the
 * allocator's epoch. A cache with an older epoch makes no hit: its owner's
 * next call takes the general path, which gives the cache's free blocks
 * back to the pool (its rooms are then empty) before taking the new epoch.
 * Exact when one thread allocates at a time, like the pools' peaks.
 *
 * Lock order: registry mutex -> pool -> thread cache. */
#ifndef BACKPLANE_ALLOC_THREAD_CACHE_H_
#define BACKPLANE_ALLOC_THREAD_CACHE_H_

#include "alloc/alloc_internal.h"

enum {
  BP_THREAD_CACHE_MAX_BLOCK = 64 * 1024,
  BP_THREAD_CACHE_MAX_BYTES = 1024 * 1024,
  BP_THREAD_CACHE_BINS = 128, /* 64 KiB of the default 512 B min_chunk */
  BP_THREAD_CACHE_DEPTH = 16,
};

/* Free lent blocks of one size, linked through hot_next (LIFO). */
typedef struct bp_thread_cache_bin {
  bp_block_t *top;
  uint32_t count;
} bp_thread_cache_bin_t;

struct bp_thread_cache {
  bp_pool_lock_t mu; /* biased to the owner */
  bp_caching_allocator_t *allocator;
  /* The requests the hit serves: 1..size_limit bytes, whose rounded size
   * (the allocator's) is bin i + 1 times the min_chunk_size 1 << shift,
   * where i = (size + bin_add) >> shift; blocks up to max_block bytes are
   * lent (0: none, when min_chunk_size is not a power of two). */
  size_t size_limit, bin_add, max_block;
  unsigned shift;
  bp_thread_cache_bin_t bins[BP_THREAD_CACHE_BINS];
  bp_block_map_t lent;    /* every block lent to this cache */
  bp_block_t *recent;     /* handed out last: the likely next free */
  _Atomic uint64_t epoch; /* of the rooms (allocator's tc_epoch) */
  /* How far requested bytes may still grow on hits without a peak check. */
  _Atomic uint64_t room_requested;
  /* What hits changed: bytes handed out (allocated and active bytes alike)
   * and their requested sizes; written by the owner under the lock, read
   * by anyone. */
  bp_stat_counter_t bytes, requested;
  /* The free blocks in the bins: their count << 32 | their bytes (one word
   * for the hot paths to update; BP_THREAD_CACHE_MAX_BYTES < 2^32). */
  _Atomic uint64_t held;
  /* Registry (thread_cache.c's mutex): the owning thread's list, NULL when
   * the record waits for a new thread. */
  struct bp_thread_caches *thread;
  bp_thread_cache_t *thread_prev, *thread_next;
  bp_thread_cache_t *_Atomic next; /* the allocator's records, append-only */
} __attribute__((aligned(64)));

/* The calling thread's cache for the allocator it used last (one entry,
 * initial-exec TLS like the pool's). */
typedef struct bp_thread_cache_tls {
  uint64_t allocator_id;
  bp_thread_cache_t *cache;
} bp_thread_cache_tls_t;
extern _Thread_local __attribute__((tls_model("initial-exec")))
bp_thread_cache_tls_t bp_thread_cache_self;

/* The calling thread's cache for `allocator`, made on first need; NULL
 * without host memory (the thread then uses the pool only). */
bp_thread_cache_t *bp_thread_cache_get(bp_caching_allocator_t *allocator);

/* With the NULL-stream pool locked, after the idle free of `b` was counted:
 * lends `b` to `cache` if it fits its bounds; false (nothing changed) if
 * not. */
bool bp_thread_cache_lend(bp_thread_cache_t *cache, bp_alloc_pool_t *pool,
                          bp_block_t *b);

/* The two hits below taking the cache's lock the general way (its owner
 * before the bias, or after a revocation). */
bool bp_thread_cache_malloc(bp_thread_cache_t *cache, size_t size,
                            void **out_ptr);
bool bp_thread_cache_free(bp_thread_cache_t *cache, void *ptr);

/* With the pool locked, for a lent `b` found in its map: false if it is
 * free in its cache (so not a live allocation); otherwise takes it back
 * from the cache (state ALLOCATED, counted by the pool) and returns true. */
bool bp_thread_cache_reclaim(bp_alloc_pool_t *pool, bp_block_t *b);

/* With the pool locked: whether the lent `b` is handed out, and its
 * requested size then (for the snapshot and range checks). */
bool bp_thread_cache_peek(const bp_block_t *b, size_t *out_requested);

/* With the NULL-stream pool locked: gives back the free blocks of the
 * calling thread's cache (a miss), or of every thread's cache (empty_cache,
 * out of memory). */
void bp_thread_cache_drain_own(bp_caching_allocator_t *allocator,
                               bp_alloc_pool_t *pool);
void bp_thread_cache_drain_all(bp_caching_allocator_t *allocator,
                               bp_alloc_pool_t *pool);

/* The cache's share of each statistic (what its hits changed) and its
 * claim: how far its hits may still take that share (the share itself
 * when its rooms are from an older epoch). Modulo 2^64: inactive split
 * bytes fall by what the cache has handed out. Read without its lock. */
typedef struct bp_thread_cache_share {
  uint64_t current, allocated, freed, claim;
} bp_thread_cache_share_t;
void bp_thread_cache_shares(bp_thread_cache_t *cache,
                            bp_thread_cache_share_t out[BP_STAT_COUNT]);

/* Frees the allocator's records, detaching them from their threads. */
void bp_thread_cache_destroy_all(bp_caching_allocator_t *allocator);

BP_ALLOC_INLINE bp_thread_cache_t *
bp_thread_cache_first(bp_caching_allocator_t *a) {
  return atomic_load_explicit(&a->thread_caches, memory_order_acquire);
}
BP_ALLOC_INLINE bp_thread_cache_t *
bp_thread_cache_next(bp_thread_cache_t *cache) {
  return atomic_load_explicit(&cache->next, memory_order_acquire);
}

/* Whether the rooms of `t` (a cache of `a`) are of the current epoch. */
BP_ALLOC_INLINE bool bp_thread_cache_current(bp_caching_allocator_t *a,
                                             bp_thread_cache_t *t) {
  return bp_load(&t->epoch) ==
         atomic_load_explicit(&a->tc_epoch, memory_order_relaxed);
}

/* The `held` word of one block of `size` bytes, and its two halves. */
BP_ALLOC_INLINE uint64_t bp_thread_cache_held_one(size_t size) {
  return (UINT64_C(1) << 32) + size;
}
BP_ALLOC_INLINE uint64_t bp_thread_cache_held_blocks(bp_thread_cache_t *t) {
  return bp_load(&t->held) >> 32;
}
BP_ALLOC_INLINE uint64_t bp_thread_cache_held_bytes(bp_thread_cache_t *t) {
  return bp_load(&t->held) & UINT32_MAX;
}

BP_ALLOC_INLINE void bp_counter_add(bp_stat_counter_t *c, uint64_t n) {
  bp_store(&c->allocated, bp_load(&c->allocated) + n);
}
BP_ALLOC_INLINE void bp_counter_sub(bp_stat_counter_t *c, uint64_t n) {
  bp_store(&c->freed, bp_load(&c->freed) + n);
}

/* The bin of blocks of `size` bytes (a multiple of min_chunk_size, at most
 * max_block). */
BP_ALLOC_INLINE bp_thread_cache_bin_t *
bp_thread_cache_bin_of(bp_thread_cache_t *t, size_t size) {
  return &t->bins[(size >> t->shift) - 1];
}

/* Cache locked: pops a free block for a request of `size` bytes (1 ..
 * size_limit) and hands it out; NULL (nothing changed) if there is none,
 * or the rooms do not allow it. */
BP_ALLOC_INLINE bp_block_t *bp_thread_cache_pop(bp_caching_allocator_t *a,
                                                bp_thread_cache_t *t,
                                                size_t size) {
  bp_thread_cache_bin_t *bin = &t->bins[(size + t->bin_add) >> t->shift];
  bp_block_t *b = bin->top;
  uint64_t room = bp_load(&t->room_requested);
  if (!b || !bp_thread_cache_current(a, t) || size > room)
    return NULL;
  bin->top = b->hot_next;
  bin->count--;
  size_t rounded = b->size;
  b->tc_free = false;
  b->requested = size;
  bp_counter_add(&t->bytes, rounded);
  bp_counter_add(&t->requested, size);
  bp_store(&t->room_requested, room - size);
  bp_store(&t->held, bp_load(&t->held) - bp_thread_cache_held_one(rounded));
  t->recent = b;
  return b;
}

/* Cache locked: a block this cache handed out, at `ptr`, goes back into
 * its bin within the bounds; false (nothing changed) otherwise. */
BP_ALLOC_INLINE bool bp_thread_cache_push(bp_caching_allocator_t *a,
                                          bp_thread_cache_t *t, void *ptr) {
  if (!bp_thread_cache_current(a, t))
    return false;
  bp_block_t *b = t->recent;
  if (!b || b->addr != (uintptr_t)ptr)
    b = bp_block_map_find(&t->lent, (uintptr_t)ptr);
  if (!b || b->tc_free ||
      bp_thread_cache_held_bytes(t) + b->size > BP_THREAD_CACHE_MAX_BYTES)
    return false;
  bp_thread_cache_bin_t *bin = bp_thread_cache_bin_of(t, b->size);
  if (bin->count == BP_THREAD_CACHE_DEPTH)
    return false;
  b->hot_next = bin->top;
  bin->top = b;
  bin->count++;
  b->tc_free = true;
  bp_counter_sub(&t->bytes, b->size);
  bp_counter_sub(&t->requested, b->requested);
  bp_store(&t->room_requested, bp_load(&t->room_requested) + b->requested);
  bp_store(&t->held, bp_load(&t->held) + bp_thread_cache_held_one(b->size));
  return true;
}

/* Whether the calling thread's cache entry is for `a` (ids start at 1; the
 * entry's cache is then set). */
BP_ALLOC_INLINE bool bp_thread_cache_is_for(const bp_caching_allocator_t *a) {
  return bp_thread_cache_self.allocator_id == a->id;
}

/* The calling thread's cache for `a` if it has one (no call). */
BP_ALLOC_INLINE bp_thread_cache_t *
bp_thread_cache_of_thread(const bp_caching_allocator_t *a) {
  return bp_thread_cache_is_for(a) ? bp_thread_cache_self.cache : NULL;
}

/* The hit of malloc with no stream, for the owner holding its cache's bias:
 * a free block of the request's rounded size, handed out; false (nothing
 * changed) otherwise, and the general path then does the same and more.
 * Calls nothing. Only at an entry point of the allocator (the calling
 * thread holds no pool lock by its bias), like the hit of free. */
BP_ALLOC_INLINE bool bp_thread_cache_malloc_hit(bp_caching_allocator_t *a,
                                                size_t size, void **out_ptr) {
  if (!bp_thread_cache_is_for(a))
    return false;
  bp_thread_cache_t *t = bp_thread_cache_self.cache;
  if (size - 1 >= t->size_limit || !bp_pool_try_lock_biased_outermost(&t->mu))
    return false;
  bp_block_t *b = bp_thread_cache_pop(a, t, size);
  if (b)
    *out_ptr = (void *)b->addr;
  bp_pool_unlock_biased(&t->mu);
  return b != NULL;
}

/* The hit of free with no stream, likewise: a block this thread's cache
 * handed out goes back into it. */
BP_ALLOC_INLINE bool bp_thread_cache_free_hit(bp_caching_allocator_t *a,
                                              void *ptr) {
  if (!bp_thread_cache_is_for(a))
    return false;
  bp_thread_cache_t *t = bp_thread_cache_self.cache;
  if (!bp_pool_try_lock_biased_outermost(&t->mu))
    return false;
  bool hit = bp_thread_cache_push(a, t, ptr);
  bp_pool_unlock_biased(&t->mu);
  return hit;
}

#endif /* BACKPLANE_ALLOC_THREAD_CACHE_H_ */
