/* Internal structure of the caching allocator, shared by its files.
 *
 * Each stream key has a pool (created on first use, kept until destroy) with
 * its own lock, free trees, hot cache, live-block map, chunks, statistics and
 * workspace:
 * threads working on different streams never share a lock or a written cache
 * line on the hot path. Chunks belong to one pool, so a block freed on stream
 * S returns to S's pool and is reused on S at once; crossing streams happens
 * only through pending frees (record_stream), forget_stream (a destroyed
 * stream's chunks go to the NULL-stream pool), stream pools adopting idle
 * chunks of the NULL-stream pool before they grow, and releasing idle chunks
 * to the device.
 *
 * Lock order: workspace mutex -> pool mutex (a non-NULL stream's) -> NULL
 * stream pool mutex -> device_mu. Backend memory calls run without a pool
 * lock held, except event calls made under device_mu. */
#ifndef BACKPLANE_ALLOC_ALLOC_INTERNAL_H_
#define BACKPLANE_ALLOC_ALLOC_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>

#include "alloc/alloc_block.h"
#include "alloc/alloc_sizing.h"
#include "alloc/block_map.h"
#include "alloc/caching_allocator.h"
#include "alloc/free_tree.h"
#include "alloc/hot_cache.h"
#include "alloc/pool_lock.h"
#include "alloc/workspace.h"

typedef enum bp_stat_kind {
  BP_STAT_ALLOCATED,
  BP_STAT_RESERVED,
  BP_STAT_ACTIVE,
  BP_STAT_INACTIVE_SPLIT,
  BP_STAT_REQUESTED,
  BP_STAT_COUNT
} bp_stat_kind_t;

/* Written only under the owning pool's lock; read by anyone (relaxed).
 * The current value is derived (bp_stat_current): allocated - freed, plus
 * what chunks changing pools brought in (moved, modulo 2^64), so the hot
 * path updates one word per statistic. */
typedef struct bp_stat_counter {
  _Atomic uint64_t allocated, freed, moved;
} bp_stat_counter_t;

struct bp_alloc_pool {
  bp_pool_lock_t mu;
  void *stream;
  bp_caching_allocator_t *allocator;
  bp_free_tree_t small_free, large_free;
  bp_hot_cache_t hot;
  bp_block_map_t live; /* allocated, pending-free and cached blocks */
  /* The block the hot path handed out last: the likely next free, checked
   * before the map. Only a hint (its state and address are checked), but
   * always a record of this pool's chunks: cleared when the record is
   * recycled or its chunk moves to another pool. */
  bp_block_t *recent;
  bp_chunk_t *chunks;
  bp_block_t *spare_blocks; /* recycled block records, linked by next */
  uint64_t free_seq;
  bp_stat_counter_t stats[BP_STAT_COUNT];
  /* How far this pool's values may grow without making a new peak, while it
   * is the pool that computed the peaks last (bp_alloc_note_increase). */
  uint64_t peak_marks[BP_STAT_COUNT];
  /* The hot path's shortcut to the marks, valid while the pool is the
   * walker: how much allocated, active and requested bytes may each still
   * grow (use_headroom), and inactive split bytes (split_headroom), without
   * reaching a mark. Hot-path increases spend them, decreases give back no
   * more than they free; any other increase spends them too (bp_stat_add),
   * and a walk sets them again. Never above the true room, so never a missed
   * peak. */
  uint64_t use_headroom, split_headroom;
  bp_workspace_t workspace;
  /* Threads between deciding (under the lock) to record an event on
   * `stream` and having recorded it: forget_stream waits for none to be
   * left, so that the stream is never recorded on once destroyed. */
  _Atomic uint32_t stream_recorders;
  bp_alloc_pool_t *_Atomic next_pool;
} __attribute__((aligned(64)));

/* A freed block waiting for events of the streams that used it. A NULL event
 * (the backend could not record one) completes only when its stream is
 * forgotten. */
typedef struct bp_pending_free {
  bp_block_t *block;
  size_t count;
  void **streams;
  void **events;
  struct bp_pending_free *next;
} bp_pending_free_t;

struct bp_caching_allocator {
  bp_alloc_backend_t backend;
  bp_allocator_config_t config;
  bp_alloc_fast_round_t fast_round;
  uint64_t id;              /* unique per instance, keys thread-local caches */
  pthread_mutex_t pools_mu; /* creating pools */
  bp_alloc_pool_t *_Atomic pools;
  bp_alloc_pool_t *null_pool;
  pthread_mutex_t device_mu;
  size_t reserved_total;      /* device_mu */
  bool grew_large;            /* device_mu */
  bp_pending_free_t *pending; /* device_mu */
  _Atomic size_t pending_count;
  void **spare_events; /* device_mu */
  size_t spare_event_count, spare_event_capacity;
  _Atomic uint64_t peaks[BP_STAT_COUNT];
  /* The pool that computed the peaks last (NULL after a reset). */
  bp_alloc_pool_t *_Atomic peaks_walker;
  _Atomic uint64_t num_alloc_retries, num_ooms, num_device_alloc,
      num_device_free;
  /* Per-thread caches (thread_cache.h): every record, append-only, and the
   * epoch of their rooms. */
  bp_thread_cache_t *_Atomic thread_caches;
  _Atomic uint64_t tc_epoch;
};

/* The statistics helpers sit on the hot path: always inlined. */
#define BP_ALLOC_INLINE static inline __attribute__((always_inline))

/* Relaxed atomics: the pool's lock orders writers; readers want a value. */
BP_ALLOC_INLINE uint64_t bp_load(_Atomic uint64_t *v) {
  return atomic_load_explicit(v, memory_order_relaxed);
}
BP_ALLOC_INLINE void bp_store(_Atomic uint64_t *v, uint64_t x) {
  atomic_store_explicit(v, x, memory_order_relaxed);
}
static inline void bp_count(_Atomic uint64_t *v) {
  atomic_fetch_add_explicit(v, 1, memory_order_relaxed);
}

/* The current value of `kind` in `pool`. Read without the pool's lock, it
 * is a value the counter had or exceeds one (freed is read first, and only
 * grows), never a wrapped-around one. */
BP_ALLOC_INLINE uint64_t bp_counter_current(bp_stat_counter_t *c) {
  uint64_t freed = atomic_load_explicit(&c->freed, memory_order_acquire);
  return bp_load(&c->allocated) + bp_load(&c->moved) - freed;
}
BP_ALLOC_INLINE uint64_t bp_stat_current(bp_alloc_pool_t *pool,
                                         bp_stat_kind_t kind) {
  return bp_counter_current(&pool->stats[kind]);
}
/* Moves `n` of a current value between two counters (cumulative counts do
 * not change); the caller holds the locks of both owners. */
BP_ALLOC_INLINE void bp_counter_move(bp_stat_counter_t *from,
                                     bp_stat_counter_t *to, uint64_t n) {
  bp_store(&from->moved, bp_load(&from->moved) - n);
  bp_store(&to->moved, bp_load(&to->moved) + n);
}

/* Pool-locked statistic updates. After increases, the caller checks the
 * peaks (bp_alloc_note_increase, or bp_within_mark for several kinds). */
BP_ALLOC_INLINE void bp_stat_raise(bp_alloc_pool_t *pool, bp_stat_kind_t kind,
                                   uint64_t n) {
  bp_stat_counter_t *c = &pool->stats[kind];
  bp_store(&c->allocated, bp_load(&c->allocated) + n);
}
/* Takes `n` from a headroom, or all of it. */
BP_ALLOC_INLINE void bp_headroom_spend(uint64_t *headroom, uint64_t n) {
  *headroom = *headroom > n ? *headroom - n : 0;
}
/* An increase outside the hot path: spends the headroom of its kind (for
 * allocated, active and requested bytes, which grow together, callers spend
 * once: bp_stat_raise the others). */
BP_ALLOC_INLINE void bp_stat_add(bp_alloc_pool_t *pool, bp_stat_kind_t kind,
                                 uint64_t n) {
  bp_stat_raise(pool, kind, n);
  if (kind == BP_STAT_INACTIVE_SPLIT)
    bp_headroom_spend(&pool->split_headroom, n);
  else if (kind != BP_STAT_RESERVED)
    bp_headroom_spend(&pool->use_headroom, n);
}
BP_ALLOC_INLINE void bp_stat_sub(bp_alloc_pool_t *pool, bp_stat_kind_t kind,
                                 uint64_t n) {
  bp_stat_counter_t *c = &pool->stats[kind];
  bp_store(&c->freed, bp_load(&c->freed) + n);
}
/* A fall of inactive split bytes, given back to their headroom. */
BP_ALLOC_INLINE void bp_stat_fall_split(bp_alloc_pool_t *pool, uint64_t n) {
  bp_stat_sub(pool, BP_STAT_INACTIVE_SPLIT, n);
  pool->split_headroom += n;
}
/* Moves `n` of the current value of `kind` from one pool to another (a chunk
 * changing pools): totals and cumulative counts do not change. Both pools
 * locked. */
BP_ALLOC_INLINE void bp_stat_move(bp_alloc_pool_t *from, bp_alloc_pool_t *to,
                                  bp_stat_kind_t kind, uint64_t n) {
  bp_store(&from->stats[kind].moved, bp_load(&from->stats[kind].moved) - n);
  bp_store(&to->stats[kind].moved, bp_load(&to->stats[kind].moved) + n);
  to->use_headroom = to->split_headroom = 0;
}

/* Device-wide peaks without a walk over every pool on each increase. When a
 * pool computes the peaks (bp_alloc_walk_peaks: every total, every peak
 * raised) it becomes the walker and marks, per kind, the peak minus the
 * other pools' totals. While it stays the walker, the other pools have only
 * decreased (an increase of theirs would have walked), so its values up to
 * those marks cannot make a new peak. Pool locked. */
__attribute__((cold)) void bp_alloc_walk_peaks(bp_alloc_pool_t *pool);
BP_ALLOC_INLINE bool bp_within_mark(bp_alloc_pool_t *pool,
                                    bp_stat_kind_t kind) {
  return bp_stat_current(pool, kind) <= pool->peak_marks[kind];
}
BP_ALLOC_INLINE bool bp_is_peaks_walker(bp_alloc_pool_t *pool) {
  return atomic_load_explicit(&pool->allocator->peaks_walker,
                              memory_order_relaxed) == pool;
}
/* After raising `kind` (pool locked). */
static inline void bp_alloc_note_increase(bp_alloc_pool_t *pool,
                                          bp_stat_kind_t kind) {
  if (!bp_is_peaks_walker(pool) || !bp_within_mark(pool, kind))
    bp_alloc_walk_peaks(pool);
}

static inline bp_alloc_pool_t *bp_first_pool(bp_caching_allocator_t *a) {
  return atomic_load_explicit(&a->pools, memory_order_acquire);
}
static inline bp_alloc_pool_t *bp_next_pool(bp_alloc_pool_t *pool) {
  return atomic_load_explicit(&pool->next_pool, memory_order_acquire);
}

/* Locks `pool` if its block map holds `addr` and returns true with the block
 * in *out_block (pool left locked); false, unlocked, otherwise. */
static inline __attribute__((always_inline)) bool
bp_alloc_pool_lock_if_live(bp_alloc_pool_t *pool, uintptr_t addr,
                           bp_block_t **out_block) {
  bp_pool_lock(&pool->mu);
  bp_block_t *b = bp_block_map_find(&pool->live, addr);
  if (b) {
    *out_block = b;
    return true;
  }
  bp_pool_unlock(&pool->mu);
  return false;
}

/* Malloc and free (caching_allocator.c). The pool for `stream` (NULL: the
 * NULL-stream pool), created on first use; NULL with bp_last_error set when
 * host memory runs out. */
bp_alloc_pool_t *bp_alloc_pool_for(bp_caching_allocator_t *allocator,
                                   void *stream);

/* Allocation from `pool` (malloc's body; `workspace` marks slabs). */
bp_status_t bp_alloc_allocate(bp_caching_allocator_t *allocator,
                              bp_alloc_pool_t *pool, size_t size,
                              bool workspace, void **out_ptr);

/* A cached block for `rounded` (the rounded `size`) from the hot cache or,
 * with `use_large` also for a small request, by best fit in the free trees;
 * BP_ERR_NOT_FOUND (no message) on a miss. Takes the pool's lock. */
bp_status_t bp_alloc_allocate_cached(bp_caching_allocator_t *allocator,
                                     bp_alloc_pool_t *pool, size_t size,
                                     size_t rounded, bool use_large,
                                     bool workspace, void **out_ptr);

/* Files the free block `b`, already carved to its size, in the pool's block
 * map and marks it allocated for `size` (pool locked). On no host memory
 * BP_ERR_OUT_OF_MEMORY: a direct chunk's block is left for the caller to
 * return (no message); any other is made free again (message set). */
bp_status_t bp_alloc_hand_out(bp_caching_allocator_t *allocator,
                              bp_alloc_pool_t *pool, bp_block_t *b, size_t size,
                              bool workspace, void **out_ptr);

/* Frees a workspace slab (an allocated block), as bp_caching_allocator_free
 * does for ordinary blocks. */
bp_status_t bp_alloc_free_slab(bp_caching_allocator_t *allocator, void *ptr);

/* Pending frees (alloc_pending.c). Parks `block` (state already
 * PENDING_FREE, pool unlocked) until events recorded now on `streams` have
 * completed. `entry` comes from bp_alloc_pending_new. */
bp_pending_free_t *bp_alloc_pending_new(size_t stream_count);
void bp_alloc_pending_park(bp_caching_allocator_t *allocator,
                           bp_pending_free_t *entry);
/* Reclaims pending frees whose events completed; with `wait`, polls until
 * every pending free that has events is reclaimed (never inside a host
 * callback: bp_caching_allocator_enter_callback). */
void bp_alloc_pending_reclaim(bp_caching_allocator_t *allocator, bool wait);
/* Marks `stream`'s part of every pending free as complete. */
void bp_alloc_pending_forget_stream(bp_caching_allocator_t *allocator,
                                    void *stream);
void bp_alloc_pending_destroy(bp_caching_allocator_t *allocator);
/* An event recorded now on `stream` (NULL if the backend cannot), and its
 * return to the allocator's spare list. */
void *bp_alloc_record_event(bp_caching_allocator_t *allocator, void *stream);
void bp_alloc_recycle_event(bp_caching_allocator_t *allocator, void *event);
/* Polls `event` until it completes (never a device-wide synchronize). Not
 * inside a host callback (bp_caching_allocator_callback_stream). */
void bp_alloc_wait_event(bp_caching_allocator_t *allocator, void *event);

/* Releases idle chunks of every pool (alloc_release.c); returns bytes. */
size_t bp_alloc_release_idle(bp_caching_allocator_t *allocator);
/* Moves an idle chunk of the NULL-stream pool (a destroyed stream's, or
 * no-stream memory nobody uses) into the stream pool `pool` and hands out a
 * block of it, as bp_alloc_allocate_cached does; BP_ERR_NOT_FOUND (no
 * message) when the NULL-stream pool has no idle chunk for `rounded`.
 * Takes both pools' locks. */
bp_status_t bp_alloc_allocate_adopted(bp_caching_allocator_t *allocator,
                                      bp_alloc_pool_t *pool, size_t size,
                                      size_t rounded, bool workspace,
                                      void **out_ptr);
/* Workspace teardown of one pool (workspace.c). */
void bp_workspace_init(bp_workspace_t *workspace);
void bp_workspace_release(bp_caching_allocator_t *allocator,
                          bp_alloc_pool_t *pool);
/* Frees the pool's workspace slabs if no frame is live, checked and done
 * under one hold of the workspace lock (a frame may be taken meanwhile by
 * another thread on the same stream). */
void bp_workspace_trim(bp_caching_allocator_t *allocator,
                       bp_alloc_pool_t *pool);
void bp_workspace_destroy(bp_workspace_t *workspace);

/* The allocator's other jobs, each with its file. */
#include "alloc/alloc_blocks.h"
#include "alloc/alloc_growth.h"
#include "alloc/alloc_pools.h"

#endif /* BACKPLANE_ALLOC_ALLOC_INTERNAL_H_ */
