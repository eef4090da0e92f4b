/* The caching allocator's malloc and free: the thread's pool, the hot paths
 * (a cached block of the exact size, taken and given back under the pool's
 * biased lock), the general allocation path over the free trees, and every
 * free that is not hot (pending frees, direct chunks, misuse). Growth and
 * out-of-memory live in alloc_growth.c, blocks in alloc_blocks.c, pools in
 * alloc_pools.c. Structure and lock order in alloc_internal.h. */
#include <stdlib.h>

#include "alloc/alloc_internal.h"
#include "alloc/alloc_sizing.h"
#include "alloc/thread_cache.h"
#include "base/status.h"

/* The helpers of the hot path (a cached alloc+free) are inlined into it. */
#define HOT_PATH static inline __attribute__((always_inline))

/* The stream pool this thread used last, per allocator instance (ids are
 * never reused, and pools live as long as their allocator). Initial-exec:
 * one load instead of a __tls_get_addr call on the hot path; it costs 24
 * bytes of the static TLS surplus that glibc keeps for dlopen'ed
 * libraries. */
static _Thread_local __attribute__((tls_model("initial-exec"))) struct {
  uint64_t allocator_id;
  void *stream;
  bp_alloc_pool_t *pool;
} thread_pool;

static bp_alloc_pool_t *find_pool(bp_caching_allocator_t *a, void *stream) {
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    if (p->stream == stream)
      return p;
  return NULL;
}

bp_alloc_pool_t *bp_alloc_pool_for(bp_caching_allocator_t *a, void *stream) {
  if (!stream)
    return a->null_pool;
  if (thread_pool.allocator_id == a->id && thread_pool.stream == stream)
    return thread_pool.pool;
  bp_alloc_pool_t *pool = find_pool(a, stream);
  if (!pool) {
    pthread_mutex_lock(&a->pools_mu);
    pool = find_pool(a, stream);
    if (!pool) {
      pool = bp_alloc_pool_create(a, stream);
      if (pool) {
        atomic_store_explicit(&pool->next_pool, bp_first_pool(a),
                              memory_order_relaxed);
        atomic_store_explicit(&a->pools, pool, memory_order_release);
      }
    }
    pthread_mutex_unlock(&a->pools_mu);
    if (!pool) {
      bp_error(BP_ERR_OUT_OF_MEMORY,
               "%s: no host memory for the allocator's stream pool",
               a->backend.name);
      return NULL;
    }
  }
  thread_pool.allocator_id = a->id;
  thread_pool.stream = stream;
  thread_pool.pool = pool;
  return pool;
}

/* The statistics of freeing the allocated block `b` with no other stream to
 * wait for: allocated, requested and active bytes fall, and each by at least
 * b->requested, which goes back to the hot path's headroom (pool locked). */
HOT_PATH void count_idle_free(bp_alloc_pool_t *pool, const bp_block_t *b) {
  bp_stat_sub(pool, BP_STAT_ALLOCATED, b->size);
  bp_stat_sub(pool, BP_STAT_REQUESTED, b->requested);
  bp_stat_sub(pool, BP_STAT_ACTIVE, b->size);
  pool->use_headroom += b->requested;
}

/* A freed idle block into the hot cache, counted like a free block (its
 * chunk stays split meanwhile); false if its bin has no room. */
HOT_PATH bool cache_block(bp_alloc_pool_t *pool, bp_block_t *b) {
  if (!bp_hot_cache_push(&pool->hot, b))
    return false;
  b->state = BP_BLOCK_CACHED;
  b->workspace = false;
  if (bp_block_in_split_chunk(b)) {
    bp_stat_add(pool, BP_STAT_INACTIVE_SPLIT, b->size);
    bp_alloc_note_increase(pool, BP_STAT_INACTIVE_SPLIT);
  }
  return true;
}

/* Marks `b` (in the block map) allocated for a `size` request (pool
 * locked). */
HOT_PATH void mark_allocated(bp_alloc_pool_t *pool, bp_block_t *b, size_t size,
                             bool workspace, void **out_ptr) {
  b->state = BP_BLOCK_ALLOCATED;
  b->requested = size;
  b->workspace = workspace;
  bp_stat_add(pool, BP_STAT_ALLOCATED, b->size); /* spends for all three */
  bp_stat_raise(pool, BP_STAT_ACTIVE, b->size);
  bp_stat_raise(pool, BP_STAT_REQUESTED, size);
  if (!bp_is_peaks_walker(pool) || !bp_within_mark(pool, BP_STAT_ALLOCATED) ||
      !bp_within_mark(pool, BP_STAT_ACTIVE) ||
      !bp_within_mark(pool, BP_STAT_REQUESTED))
    bp_alloc_walk_peaks(pool);
  *out_ptr = (void *)b->addr;
}

/* Files the carved block in the block map and marks it allocated (pool
 * locked). */
bp_status_t bp_alloc_hand_out(bp_caching_allocator_t *a, bp_alloc_pool_t *pool,
                              bp_block_t *b, size_t size, bool workspace,
                              void **out_ptr) {
  if (bp_block_map_insert(&pool->live, b) != BP_OK) {
    if (b->chunk->kind == BP_CHUNK_DIRECT)
      return BP_ERR_OUT_OF_MEMORY; /* the caller returns the chunk */
    bp_alloc_release_block(pool, b);
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "%s: no host memory to track a device allocation",
                    a->backend.name);
  }
  mark_allocated(pool, b, size, workspace, out_ptr);
  return BP_OK;
}

/* The best fit for `rounded` in the free trees (small requests may fall
 * back to the large pool's), the hot cache emptied into them first, carved
 * and handed out; BP_ERR_NOT_FOUND on a miss (pool locked). */
static bp_status_t allocate_best_fit(bp_caching_allocator_t *a,
                                     bp_alloc_pool_t *pool, size_t size,
                                     size_t rounded, bool use_large,
                                     bool workspace, void **out_ptr) {
  if (pool == a->null_pool)
    bp_thread_cache_drain_own(a, pool);
  if (pool->hot.occupied)
    bp_alloc_flush_hot(pool);
  bool small = rounded <= BP_ALLOC_SMALL_REQUEST;
  bp_block_t *b = bp_free_tree_best_fit(
      small && !use_large ? &pool->small_free : &pool->large_free, rounded);
  if (!b)
    return BP_ERR_NOT_FOUND;
  bp_alloc_carve(a, pool, b, rounded, true);
  return bp_alloc_hand_out(a, pool, b, size, workspace, out_ptr);
}

/* A cached block for `rounded`, allocated and handed out: from the hot cache
 * (exactly that size), else by best fit; BP_ERR_NOT_FOUND on a miss. */
HOT_PATH bp_status_t allocate_cached(bp_caching_allocator_t *a,
                                     bp_alloc_pool_t *pool, size_t size,
                                     size_t rounded, bool use_large,
                                     bool workspace, void **out_ptr) {
  bp_status_t status = BP_OK;
  bp_pool_lock(&pool->mu);
  bp_block_t *b = bp_hot_cache_pop(&pool->hot, rounded);
  if (b) {
    if (bp_block_in_split_chunk(b))
      bp_stat_fall_split(pool, b->size);
    mark_allocated(pool, b, size, workspace, out_ptr);
  } else {
    status = allocate_best_fit(a, pool, size, rounded, use_large, workspace,
                               out_ptr);
  }
  bp_pool_unlock(&pool->mu);
  return status;
}

bp_status_t bp_alloc_allocate_cached(bp_caching_allocator_t *a,
                                     bp_alloc_pool_t *pool, size_t size,
                                     size_t rounded, bool use_large,
                                     bool workspace, void **out_ptr) {
  return allocate_cached(a, pool, size, rounded, use_large, workspace, out_ptr);
}

__attribute__((noinline)) bp_status_t
bp_alloc_allocate(bp_caching_allocator_t *a, bp_alloc_pool_t *pool, size_t size,
                  bool workspace, void **out_ptr) {
  size_t rounded;
  if (!bp_alloc_round_size(&a->config, size, &rounded))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: allocation of %zu bytes overflows once padded by "
                    "%zu and aligned to %zu",
                    a->backend.name, size, a->config.extra_padding_size,
                    a->config.min_chunk_size);
  if (rounded > a->config.max_chunk_size)
    return bp_alloc_allocate_direct(a, pool, size, rounded, workspace, out_ptr);
  bp_status_t status =
      allocate_cached(a, pool, size, rounded, false, workspace, out_ptr);
  if (status != BP_ERR_NOT_FOUND)
    return status;
  return bp_alloc_allocate_slow(a, pool, size, rounded, workspace, out_ptr);
}

/* The pool of `stream` when this thread used it last (the NULL-stream pool
 * for no stream), else NULL: where a malloc on `stream` goes, and most
 * likely the owner of a block freed on it. */
HOT_PATH bp_alloc_pool_t *thread_known_pool(bp_caching_allocator_t *a,
                                            void *stream) {
  if (!stream)
    return a->null_pool;
  return thread_pool.allocator_id == a->id && thread_pool.stream == stream
             ? thread_pool.pool
             : NULL;
}

/* The hot path of malloc, taken when this thread holds the pool's lock by
 * its bias (pool_lock.h): a block of exactly `rounded` bytes from the hot
 * cache, allocated, if that makes no new peak. false (nothing changed)
 * otherwise; the general path then does the same and more. It calls
 * nothing, so it costs no stack frame. */
HOT_PATH bool allocate_hot(bp_alloc_pool_t *pool, size_t size, size_t rounded,
                           void **out_ptr) {
  if (!bp_pool_try_lock_biased(&pool->mu))
    return false;
  bp_block_t *b = bp_is_peaks_walker(pool) && rounded <= pool->use_headroom
                      ? bp_hot_cache_pop(&pool->hot, rounded)
                      : NULL;
  if (b) { /* b->size == rounded */
    if (bp_block_in_split_chunk(b))
      bp_stat_fall_split(pool, rounded);
    b->state = BP_BLOCK_ALLOCATED;
    b->requested = size;
    bp_stat_raise(pool, BP_STAT_ALLOCATED, rounded);
    bp_stat_raise(pool, BP_STAT_ACTIVE, rounded);
    bp_stat_raise(pool, BP_STAT_REQUESTED, size);
    pool->use_headroom -= rounded; /* size <= rounded: covers all three */
    pool->recent = b;
    *out_ptr = (void *)b->addr;
  }
  bp_pool_unlock_biased(&pool->mu);
  return b != NULL;
}

static __attribute__((noinline)) bp_status_t
malloc_general(bp_caching_allocator_t *a, size_t size, void *stream,
               void **out_ptr) {
  bp_thread_cache_t *cache = stream ? NULL : bp_thread_cache_of_thread(a);
  if (cache && !bp_pool_biased_to_me(&cache->mu) &&
      bp_thread_cache_malloc(cache, size, out_ptr))
    return BP_OK;
  bp_alloc_pool_t *pool = stream ? bp_alloc_pool_for(a, stream) : a->null_pool;
  if (!pool)
    return BP_ERR_OUT_OF_MEMORY;
  return bp_alloc_allocate(a, pool, size, false, out_ptr);
}

bp_status_t bp_caching_allocator_malloc(bp_caching_allocator_t *a, size_t size,
                                        void *stream, void **out_ptr) {
  if (!a || !out_ptr)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_caching_allocator_malloc: allocator or out_ptr is "
                    "NULL");
  if (!stream && bp_thread_cache_malloc_hit(a, size, out_ptr))
    return BP_OK;
  bp_alloc_pool_t *pool = thread_known_pool(a, stream);
  const bp_alloc_fast_round_t *round = &a->fast_round;
  if (pool && __builtin_expect(size - 1 < round->limit, 1) &&
      allocate_hot(pool, size, (size + round->add) & round->mask, out_ptr))
    return BP_OK;
  return malloc_general(a, size, stream, out_ptr);
}

/* The pool this thread allocated from last, for lookups with no stream to
 * go by. */
static bp_alloc_pool_t *thread_hint(bp_caching_allocator_t *a) {
  return thread_pool.allocator_id == a->id ? thread_pool.pool : a->null_pool;
}

static bp_status_t unknown_pointer(bp_caching_allocator_t *a, const char *what,
                                   const void *ptr) {
  return bp_error(BP_ERR_INVALID_ARGUMENT,
                  "%s: %s of %p: not a live allocation of this device (never "
                  "allocated here, or already freed)",
                  a->backend.name, what, ptr);
}

/* Locks the owner of a live (allocated, not yet freed) block; `hint` (may be
 * NULL) is tried first. */
HOT_PATH bp_status_t lock_allocated(bp_caching_allocator_t *a, const char *what,
                                    const void *ptr, bp_alloc_pool_t *hint,
                                    bp_alloc_pool_t **out_pool,
                                    bp_block_t **out_block) {
  bp_block_t *b = NULL;
  bp_alloc_pool_t *pool = hint;
  if (!hint || !bp_alloc_pool_lock_if_live(hint, (uintptr_t)ptr, &b))
    pool = bp_alloc_lock_owner(a, (uintptr_t)ptr, &b);
  if (!pool)
    return unknown_pointer(a, what, ptr);
  /* A lent block handed out is taken back from its thread's cache. */
  if (b->state == BP_BLOCK_CACHED ||
      (b->state == BP_BLOCK_LENT && !bp_thread_cache_reclaim(pool, b))) {
    /* freed already: as if not in the map */
    bp_pool_unlock(&pool->mu);
    return unknown_pointer(a, what, ptr);
  }
  if (b->state != BP_BLOCK_ALLOCATED) {
    bp_pool_unlock(&pool->mu);
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: %s of %p: already freed (double free)",
                    a->backend.name, what, ptr);
  }
  *out_pool = pool;
  *out_block = b;
  return BP_OK;
}

/* Frees the allocated block `b` of the locked `pool` once the `waits`
 * streams that used it are done (a pending free); unlocks. */
static bp_status_t free_deferred(bp_caching_allocator_t *a,
                                 bp_alloc_pool_t *pool, bp_block_t *b,
                                 size_t waits) {
  bool direct = b->chunk->kind == BP_CHUNK_DIRECT;
  bp_pending_free_t *entry = bp_alloc_pending_new(waits);
  if (!entry) {
    bp_pool_unlock(&pool->mu);
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "%s: no host memory to defer the free of %p",
                    a->backend.name, (void *)b->addr);
  }
  for (uint32_t i = 0; i < b->other_stream_count; i++)
    entry->streams[i] = b->other_streams[i];
  if (direct && pool->stream)
    entry->streams[waits - 1] = pool->stream;
  entry->block = b;
  b->state = BP_BLOCK_PENDING_FREE;
  bp_stat_sub(pool, BP_STAT_ALLOCATED, b->size);
  bp_stat_sub(pool, BP_STAT_REQUESTED, b->requested);
  bp_pool_unlock(&pool->mu);
  bp_alloc_pending_park(a, entry);
  return BP_OK;
}

/* Frees the allocated, idle block `b` of the locked `pool` into its free
 * tree, or to the backend for a direct chunk; unlocks. */
static bp_status_t free_uncached(bp_caching_allocator_t *a,
                                 bp_alloc_pool_t *pool, bp_block_t *b) {
  bp_block_map_remove(&pool->live, b->addr);
  if (b->chunk->kind == BP_CHUNK_DIRECT) {
    bp_chunk_t *chunk = b->chunk;
    bp_alloc_unlink_chunk(pool, chunk);
    bp_pool_unlock(&pool->mu);
    bp_alloc_return_chunk(a, chunk);
    return BP_OK;
  }
  bp_alloc_release_block(pool, b);
  bp_pool_unlock(&pool->mu);
  return BP_OK;
}

/* Frees the allocated block `b` of the locked `pool`: when it is idle, lent
 * to the thread cache `lend_to` (may be NULL) if it fits there, else into
 * the hot cache if it fits; unlocks. */
HOT_PATH bp_status_t free_locked(bp_caching_allocator_t *a,
                                 bp_alloc_pool_t *pool, bp_block_t *b,
                                 bp_thread_cache_t *lend_to) {
  bool direct = b->chunk->kind == BP_CHUNK_DIRECT;
  size_t waits = b->other_stream_count + (direct && pool->stream ? 1 : 0);
  if (waits)
    return free_deferred(a, pool, b, waits);
  count_idle_free(pool, b);
  if (direct)
    return free_uncached(a, pool, b);
  b->chunk->last_free_seq = ++pool->free_seq;
  if (lend_to && pool == a->null_pool &&
      bp_thread_cache_lend(lend_to, pool, b)) {
    bp_pool_unlock(&pool->mu);
    return BP_OK;
  }
  if (!cache_block(pool, b))
    return free_uncached(a, pool, b);
  bp_pool_unlock(&pool->mu);
  return BP_OK;
}

static bp_status_t workspace_misuse(bp_caching_allocator_t *a,
                                    const void *ptr) {
  return bp_error(BP_ERR_INVALID_ARGUMENT,
                  "%s: free of %p: it is a workspace slab; free workspaces "
                  "with the workspace call",
                  a->backend.name, ptr);
}

bp_status_t bp_caching_allocator_free(bp_caching_allocator_t *a, void *ptr) {
  return bp_caching_allocator_free_on_stream(a, ptr, NULL);
}

/* Frees a workspace slab (workspace.c holds its own lock, not the pool's). */
bp_status_t bp_alloc_free_slab(bp_caching_allocator_t *a, void *ptr) {
  bp_alloc_pool_t *pool = NULL;
  bp_block_t *b = NULL;
  bp_status_t status =
      lock_allocated(a, "free", ptr, thread_hint(a), &pool, &b);
  if (status != BP_OK)
    return status;
  return free_locked(a, pool, b, NULL);
}

/* Adds `stream` to the streams using `b` (pool locked). */
static bp_status_t add_stream_use(bp_caching_allocator_t *a,
                                  bp_alloc_pool_t *pool, bp_block_t *b,
                                  void *stream) {
  if (!stream || stream == pool->stream)
    return BP_OK;
  for (uint32_t i = 0; i < b->other_stream_count; i++)
    if (b->other_streams[i] == stream)
      return BP_OK;
  if (b->other_stream_count == b->other_stream_capacity) {
    uint32_t capacity =
        b->other_stream_capacity ? b->other_stream_capacity * 2 : 2;
    void **streams =
        realloc(b->other_streams, capacity * sizeof *b->other_streams);
    if (!streams)
      return bp_error(BP_ERR_OUT_OF_MEMORY,
                      "%s: no host memory to record a stream for %p",
                      a->backend.name, (void *)b->addr);
    b->other_streams = streams;
    b->other_stream_capacity = capacity;
  }
  b->other_streams[b->other_stream_count++] = stream;
  return BP_OK;
}

bp_status_t bp_caching_allocator_record_stream(bp_caching_allocator_t *a,
                                               void *ptr, void *stream) {
  if (!a)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_caching_allocator_record_stream: allocator is NULL");
  bp_alloc_pool_t *pool = NULL;
  bp_block_t *b = NULL;
  bp_status_t status =
      lock_allocated(a, "record_stream", ptr, thread_hint(a), &pool, &b);
  if (status != BP_OK)
    return status;
  status = add_stream_use(a, pool, b, stream);
  bp_pool_unlock(&pool->mu);
  return status;
}

/* The hot path of free, taken when this thread holds the pool's lock by its
 * bias: an allocated block of `pool` that no other stream used goes into
 * the hot cache, if its bin has room and that makes no new peak. false
 * (nothing changed) otherwise. Calls nothing, like allocate_hot. */
HOT_PATH bool free_hot(bp_alloc_pool_t *pool, void *ptr) {
  if (!bp_pool_try_lock_biased(&pool->mu))
    return false;
  bp_block_t *b = pool->recent;
  if (!b || b->addr != (uintptr_t)ptr)
    b = bp_block_map_find(&pool->live, (uintptr_t)ptr);
  bool split = b && bp_block_in_split_chunk(b);
  bool hot = b && b->state == BP_BLOCK_ALLOCATED && !b->workspace &&
             !b->other_stream_count && b->chunk->kind != BP_CHUNK_DIRECT &&
             (!split ||
              (bp_is_peaks_walker(pool) && b->size <= pool->split_headroom)) &&
             bp_hot_cache_push(&pool->hot, b);
  if (hot) {
    b->state = BP_BLOCK_CACHED;
    if (split) {
      bp_stat_raise(pool, BP_STAT_INACTIVE_SPLIT, b->size);
      pool->split_headroom -= b->size;
    }
    count_idle_free(pool, b);
    b->chunk->last_free_seq = ++pool->free_seq;
  }
  bp_pool_unlock_biased(&pool->mu);
  return hot;
}

/* Every free that is not hot: other streams to wait for, direct chunks, no
 * room in the hot cache, misuse. */
static __attribute__((noinline)) bp_status_t
free_general(bp_caching_allocator_t *a, void *ptr, void *stream,
             bp_thread_cache_t *lend_to) {
  bp_alloc_pool_t *pool = NULL;
  bp_block_t *b = NULL;
  bp_status_t status =
      lock_allocated(a, "free", ptr, thread_known_pool(a, stream), &pool, &b);
  if (status != BP_OK)
    return status;
  bool other_stream = stream && stream != pool->stream;
  status = b->workspace   ? workspace_misuse(a, ptr)
           : other_stream ? add_stream_use(a, pool, b, stream)
                          : BP_OK;
  if (status != BP_OK) {
    bp_pool_unlock(&pool->mu);
    return status;
  }
  return free_locked(a, pool, b, lend_to);
}

/* Every free of a non-NULL `ptr` that the thread cache's hit did not
 * take: the cache under its lock (when the hit could not look), the pool's
 * hot path, the general path. */
static __attribute__((noinline)) bp_status_t
free_missed(bp_caching_allocator_t *a, void *ptr, void *stream) {
  bp_thread_cache_t *cache = stream ? NULL : bp_thread_cache_get(a);
  /* The hit looked already if the cache is biased to this thread. */
  if (cache && !bp_pool_biased_to_me(&cache->mu) &&
      bp_thread_cache_free(cache, ptr))
    return BP_OK;
  bp_alloc_pool_t *pool = thread_known_pool(a, stream);
  if (pool && free_hot(pool, ptr))
    return BP_OK;
  return free_general(a, ptr, stream, cache);
}

bp_status_t bp_caching_allocator_free_missed(bp_caching_allocator_t *a,
                                             void *ptr) {
  return free_missed(a, ptr, NULL);
}

bp_status_t bp_caching_allocator_free_on_stream(bp_caching_allocator_t *a,
                                                void *ptr, void *stream) {
  if (!a)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_caching_allocator_free_on_stream: allocator is NULL");
  if (!ptr)
    return BP_OK;
  if (!stream && bp_thread_cache_free_hit(a, ptr))
    return BP_OK;
  return free_missed(a, ptr, stream);
}

bp_status_t bp_caching_allocator_block_size(bp_caching_allocator_t *a,
                                            const void *ptr, size_t *out_size) {
  if (!a || !out_size)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_caching_allocator_block_size: allocator or out_size "
                    "is NULL");
  bp_alloc_pool_t *pool = NULL;
  bp_block_t *b = NULL;
  bp_status_t status =
      lock_allocated(a, "block_size", ptr, thread_hint(a), &pool, &b);
  if (status != BP_OK)
    return status;
  *out_size = b->requested;
  bp_pool_unlock(&pool->mu);
  return BP_OK;
}
