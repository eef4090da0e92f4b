/* Per-thread caches of small no-stream blocks.
 *
 * Threads sharing the NULL-stream pool would take turns on its lock (and
 * revoke its bias back and forth). So a small block (rounded size up to
 * BP_THREAD_CACHE_MAX_BLOCK) freed idle with no stream is *lent* to the
 * freeing thread's cache instead of going back to the pool: the pool marks
 * it BP_BLOCK_LENT (still in its block map, never merged) and the cache
 * files it in a bin of its exact size. The next malloc of that size on that
 * thread pops it, and its free pushes it back, under the cache's own lock
 * only: a bp_pool_lock_t biased to the owner, so the owner takes it with
 * plain loads and stores, and anyone else (a drain) revokes the bias.
 *
 * Bounds: at most BP_HOT_CACHE_DEPTH blocks per size and
 * BP_THREAD_CACHE_MAX_BYTES free bytes per thread and allocator.
 *
 * A lent block's record: `lender` (written with the pool's and the cache's
 * locks held, so either lock reads it), `tc_free` and `tc_split` (the
 * cache's lock). A free lent block counts as free in the statistics, like a
 * pool's hot cache block; a second free of it is refused ("not a live
 * allocation") whichever path sees it. A lent block handed out and then
 * freed by another thread, recorded on a stream or sized is taken back from
 * the cache first (bp_thread_cache_reclaim) and then treated as any block.
 *
 * Blocks go back to the pool on thread exit (a thread-exit destructor), on
 * bp_caching_allocator_empty_cache and before the out-of-memory retry (every
 * thread's cache), and on the owner's own miss in the pool (its cache).
 *
 * Statistics: the cache counts what its hits change (allocated, active,
 * requested, inactive split bytes) in its own counters, summed with the
 * pools' when read; the records outlive their threads (reused by new
 * threads, freed with the allocator), so the sums stay exact. Peaks: a hit
 * may grow a statistic only within the cache's *room* (what its own frees
 * and lends released since the rooms were last reset), so the device-wide
 * total cannot pass the peak unnoticed while every room was granted under
 * the peak. A peak walk (alloc_stats.c) counts each cache as its current
 * plus its room (its claim); when the claims no longer fit under the peak
 * it bumps the allocator's epoch, and every cache drops its room at its next
 * call (exact when one thread allocates at a time, like the pools' peaks).
 *
 * Lock order: registry mutex -> pool -> thread cache. */
#ifndef BACKPLANE_ALLOC_THREAD_CACHE_H_
#define BACKPLANE_ALLOC_THREAD_CACHE_H_

#include "alloc/alloc_internal.h"

enum {
  BP_THREAD_CACHE_MAX_BLOCK = 64 * 1024,
  BP_THREAD_CACHE_MAX_BYTES = 1024 * 1024,
};

struct bp_thread_cache {
  bp_pool_lock_t mu; /* biased to the owner */
  bp_caching_allocator_t *allocator;
  bp_hot_cache_t bins;    /* free lent blocks, by exact size */
  bp_block_map_t lent;    /* every block lent to this cache */
  bp_block_t *recent;     /* handed out last: the likely next free */
  _Atomic uint64_t epoch; /* of the rooms (allocator's tc_epoch) */
  /* Rooms: how far allocated and active bytes (bytes), requested bytes and
   * inactive split bytes may still grow on hits without a peak check. */
  _Atomic uint64_t room_bytes, room_requested, room_split;
  bp_stat_counter_t stats[BP_STAT_COUNT];
  _Atomic uint64_t held_blocks, held_bytes; /* free blocks in the bins */
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

/* With the pool locked, for a lent `b` found in its map: false if it is
 * free in its cache (so not a live allocation); otherwise takes it back
 * from the cache (state ALLOCATED, counted by the pool) and returns true. */
bool bp_thread_cache_reclaim(bp_alloc_pool_t *pool, bp_block_t *b);

/* With the pool locked: whether the lent `b` is handed out, and its
 * requested size then (for the snapshot). */
bool bp_thread_cache_peek(const bp_block_t *b, size_t *out_requested);

/* With the NULL-stream pool locked: gives back the free blocks of the
 * calling thread's cache (a miss), or of every thread's cache (empty_cache,
 * out of memory). */
void bp_thread_cache_drain_own(bp_caching_allocator_t *allocator,
                               bp_alloc_pool_t *pool);
void bp_thread_cache_drain_all(bp_caching_allocator_t *allocator,
                               bp_alloc_pool_t *pool);

/* How far `cache`'s hits may still grow `kind` (0 when its rooms are from
 * an older epoch): its claim is its current value plus this. */
uint64_t bp_thread_cache_room(bp_thread_cache_t *cache, bp_stat_kind_t kind);

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

/* The cache's rooms hold only for the current epoch (cache locked). */
BP_ALLOC_INLINE void bp_thread_cache_check_epoch(bp_thread_cache_t *t) {
  uint64_t epoch =
      atomic_load_explicit(&t->allocator->tc_epoch, memory_order_relaxed);
  if (__builtin_expect(bp_load(&t->epoch) != epoch, 0)) {
    bp_store(&t->room_bytes, 0);
    bp_store(&t->room_requested, 0);
    bp_store(&t->room_split, 0);
    bp_store(&t->epoch, epoch);
  }
}

BP_ALLOC_INLINE void bp_counter_add(bp_stat_counter_t *c, uint64_t n) {
  bp_store(&c->allocated, bp_load(&c->allocated) + n);
}
BP_ALLOC_INLINE void bp_counter_sub(bp_stat_counter_t *c, uint64_t n) {
  bp_store(&c->freed, bp_load(&c->freed) + n);
}

/* The hit of malloc: a free lent block of exactly `rounded` bytes, handed
 * out within the rooms; false (nothing changed) otherwise. */
BP_ALLOC_INLINE bool bp_thread_cache_allocate(bp_thread_cache_t *t, size_t size,
                                              size_t rounded, void **out_ptr) {
  bp_pool_lock(&t->mu);
  bp_thread_cache_check_epoch(t);
  bp_block_t *b =
      rounded <= bp_load(&t->room_bytes) && size <= bp_load(&t->room_requested)
          ? bp_hot_cache_pop(&t->bins, rounded)
          : NULL;
  if (b) {
    b->tc_free = false;
    b->requested = size;
    bp_counter_add(&t->stats[BP_STAT_ALLOCATED], rounded);
    bp_counter_add(&t->stats[BP_STAT_ACTIVE], rounded);
    bp_counter_add(&t->stats[BP_STAT_REQUESTED], size);
    bp_store(&t->room_bytes, bp_load(&t->room_bytes) - rounded);
    bp_store(&t->room_requested, bp_load(&t->room_requested) - size);
    if (b->tc_split) {
      bp_counter_sub(&t->stats[BP_STAT_INACTIVE_SPLIT], rounded);
      bp_store(&t->room_split, bp_load(&t->room_split) + rounded);
    }
    bp_store(&t->held_blocks, bp_load(&t->held_blocks) - 1);
    bp_store(&t->held_bytes, bp_load(&t->held_bytes) - rounded);
    t->recent = b;
    *out_ptr = (void *)b->addr;
  }
  bp_pool_unlock(&t->mu);
  return b != NULL;
}

/* The hit of free: a block this cache handed out goes back into its bin,
 * within the bounds and rooms; false (nothing changed) otherwise. */
BP_ALLOC_INLINE bool bp_thread_cache_free(bp_thread_cache_t *t, void *ptr) {
  bp_pool_lock(&t->mu);
  bp_thread_cache_check_epoch(t);
  bp_block_t *b = t->recent;
  if (!b || b->addr != (uintptr_t)ptr)
    b = bp_block_map_find(&t->lent, (uintptr_t)ptr);
  bool hit = b && !b->tc_free &&
             (!b->tc_split || b->size <= bp_load(&t->room_split)) &&
             bp_load(&t->held_bytes) + b->size <= BP_THREAD_CACHE_MAX_BYTES &&
             bp_hot_cache_push(&t->bins, b);
  if (hit) {
    b->tc_free = true;
    bp_counter_sub(&t->stats[BP_STAT_ALLOCATED], b->size);
    bp_counter_sub(&t->stats[BP_STAT_ACTIVE], b->size);
    bp_counter_sub(&t->stats[BP_STAT_REQUESTED], b->requested);
    bp_store(&t->room_bytes, bp_load(&t->room_bytes) + b->size);
    bp_store(&t->room_requested, bp_load(&t->room_requested) + b->requested);
    if (b->tc_split) {
      bp_counter_add(&t->stats[BP_STAT_INACTIVE_SPLIT], b->size);
      bp_store(&t->room_split, bp_load(&t->room_split) - b->size);
    }
    bp_store(&t->held_blocks, bp_load(&t->held_blocks) + 1);
    bp_store(&t->held_bytes, bp_load(&t->held_bytes) + b->size);
  }
  bp_pool_unlock(&t->mu);
  return hit;
}

#endif /* BACKPLANE_ALLOC_THREAD_CACHE_H_ */
