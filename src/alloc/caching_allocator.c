/* The caching allocator: creation, pools, allocation and free. Structure and
 * lock order in alloc_internal.h; sizing in alloc_sizing.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_internal.h"
#include "alloc/alloc_sizing.h"
#include "base/status.h"

/* The helpers of the hot path (a cached alloc+free) are inlined into it. */
#define HOT_PATH static inline __attribute__((always_inline))

static _Atomic uint64_t next_allocator_id = 1;

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

static bp_alloc_pool_t *pool_create(bp_caching_allocator_t *a, void *stream) {
  bp_alloc_pool_t *pool = aligned_alloc(64, sizeof *pool);
  if (!pool)
    return NULL;
  memset(pool, 0, sizeof *pool);
  pool->stream = stream;
  pool->allocator = a;
  bp_workspace_init(&pool->workspace);
  return pool;
}

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
      pool = pool_create(a, stream);
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

bp_status_t bp_caching_allocator_create(const bp_alloc_backend_t *backend,
                                        const bp_alloc_hints_t *hints,
                                        bp_caching_allocator_t **out) {
  if (!backend || !out)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_caching_allocator_create: backend or out is NULL");
  if (!backend->raw_allocate || !backend->raw_free)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_caching_allocator_create: backend %s lacks "
                    "raw_allocate or raw_free",
                    backend->name ? backend->name : "(unnamed)");
  bp_caching_allocator_t *a = calloc(1, sizeof *a);
  if (!a)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_caching_allocator_create: no host memory");
  a->backend = *backend;
  if (!a->backend.name)
    a->backend.name = "device";
  size_t total = 0, device_free = 0;
  if (!backend->memory_info ||
      backend->memory_info(backend->self, &total, &device_free) != BP_OK)
    device_free = 0;
  bp_alloc_resolve_hints(hints, device_free, &a->config);
  bp_alloc_fast_round_init(&a->config, &a->fast_round);
  a->id = atomic_fetch_add(&next_allocator_id, 1);
  pthread_mutex_init(&a->pools_mu, NULL);
  pthread_mutex_init(&a->device_mu, NULL);
  a->null_pool = pool_create(a, NULL);
  if (!a->null_pool) {
    free(a);
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_caching_allocator_create: no host memory");
  }
  atomic_store(&a->pools, a->null_pool);
  *out = a;
  return BP_OK;
}

void bp_caching_allocator_destroy(bp_caching_allocator_t *a) {
  if (!a)
    return;
  bp_alloc_pending_destroy(a);
  size_t leaked_blocks = 0, leaked_bytes = 0;
  bp_alloc_pool_t *pool = bp_first_pool(a);
  while (pool) {
    bp_alloc_pool_t *next = bp_next_pool(pool);
    for (bp_chunk_t *c = pool->chunks, *cn; c; c = cn) {
      cn = c->next;
      for (bp_block_t *b = c->first, *bn; b; b = bn) {
        bn = b->next;
        if (b->state == BP_BLOCK_ALLOCATED && !b->workspace) {
          leaked_blocks++;
          leaked_bytes += b->requested;
        }
        free(b->other_streams);
        free(b);
      }
      a->backend.raw_free(a->backend.self, (void *)c->base, c->size);
      free(c);
    }
    for (bp_block_t *b = pool->spare_blocks, *bn; b; b = bn) {
      bn = b->next;
      free(b);
    }
    bp_block_map_destroy(&pool->live);
    bp_workspace_destroy(&pool->workspace);
    free(pool);
    pool = next;
  }
  if (leaked_blocks)
    fprintf(stderr,
            "backplane: %s: %zu device allocation(s) of %zu bytes were never "
            "freed; released with the allocator\n",
            a->backend.name, leaked_blocks, leaked_bytes);
  pthread_mutex_destroy(&a->pools_mu);
  pthread_mutex_destroy(&a->device_mu);
  free(a);
}

/* Block records and free-block bookkeeping (pool locked). */

static bp_block_t *new_block(bp_alloc_pool_t *pool) {
  bp_block_t *b = pool->spare_blocks;
  if (b) {
    pool->spare_blocks = b->next;
    memset(b, 0, sizeof *b);
    return b;
  }
  return calloc(1, sizeof *b);
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

HOT_PATH bool in_split_chunk(const bp_block_t *b) {
  return b->prev || b->next;
}

void bp_alloc_free_insert(bp_alloc_pool_t *pool, bp_block_t *block) {
  bp_free_tree_insert(tree_of(pool, block), block);
  if (in_split_chunk(block)) {
    bp_stat_add(pool, BP_STAT_INACTIVE_SPLIT, block->size);
    bp_alloc_note_increase(pool, BP_STAT_INACTIVE_SPLIT);
  }
}

void bp_alloc_free_remove(bp_alloc_pool_t *pool, bp_block_t *block) {
  bp_free_tree_remove(tree_of(pool, block), block);
  if (in_split_chunk(block))
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
  if (in_split_chunk(b)) {
    bp_stat_add(pool, BP_STAT_INACTIVE_SPLIT, b->size);
    bp_alloc_note_increase(pool, BP_STAT_INACTIVE_SPLIT);
  }
  return true;
}

void bp_alloc_flush_hot(bp_alloc_pool_t *pool) {
  for (bp_block_t *b = bp_hot_cache_take_all(&pool->hot), *next; b; b = next) {
    next = b->hot_next;
    b->hot_next = NULL;
    bp_block_map_remove(&pool->live, b->addr);
    if (in_split_chunk(b))
      bp_stat_fall_split(pool, b->size);
    bp_alloc_release_block(pool, b);
  }
}

/* Takes `rounded` bytes from the front of the free block `b` (in the tree
 * if `in_tree`), splitting off the rest when worthwhile. */
static void carve(bp_caching_allocator_t *a, bp_alloc_pool_t *pool,
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
static bp_status_t hand_out(bp_caching_allocator_t *a, bp_alloc_pool_t *pool,
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
  if (pool->hot.occupied)
    bp_alloc_flush_hot(pool);
  bool small = rounded <= BP_ALLOC_SMALL_REQUEST;
  bp_block_t *b = bp_free_tree_best_fit(
      small && !use_large ? &pool->small_free : &pool->large_free, rounded);
  if (!b)
    return BP_ERR_NOT_FOUND;
  carve(a, pool, b, rounded, true);
  return hand_out(a, pool, b, size, workspace, out_ptr);
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
    if (in_split_chunk(b))
      bp_stat_fall_split(pool, b->size);
    mark_allocated(pool, b, size, workspace, out_ptr);
  } else {
    status = allocate_best_fit(a, pool, size, rounded, use_large, workspace,
                               out_ptr);
  }
  bp_pool_unlock(&pool->mu);
  return status;
}

/* A new chunk of `kind` for a `rounded` request, within max_alloc_size.
 * BP_ERR_OUT_OF_MEMORY (message not set) when the budget or the device is
 * exhausted; other backend failures pass through with their message. */
static bp_status_t grow(bp_caching_allocator_t *a, size_t rounded,
                        bp_chunk_kind_t kind, bp_chunk_t **out_chunk) {
  bp_chunk_t *chunk = calloc(1, sizeof *chunk);
  bp_block_t *block = calloc(1, sizeof *block);
  if (!chunk || !block) {
    free(chunk);
    free(block);
    return BP_ERR_OUT_OF_MEMORY;
  }
  pthread_mutex_lock(&a->device_mu);
  size_t budget = a->config.max_alloc_size - a->reserved_total;
  size_t size =
      kind == BP_CHUNK_DIRECT
          ? (rounded <= budget ? rounded : 0)
          : bp_alloc_growth_size(&a->config, rounded, kind == BP_CHUNK_SMALL,
                                 !a->grew_large, budget);
  a->reserved_total += size;
  pthread_mutex_unlock(&a->device_mu);

  void *ptr = NULL;
  bp_status_t status = BP_ERR_OUT_OF_MEMORY;
  if (size) {
    status = a->backend.raw_allocate(a->backend.self, size, &ptr);
    if (status == BP_ERR_OUT_OF_MEMORY && size > rounded) {
      /* The device cannot give the growth size: try the request alone. */
      pthread_mutex_lock(&a->device_mu);
      a->reserved_total -= size - rounded;
      pthread_mutex_unlock(&a->device_mu);
      size = rounded;
      status = a->backend.raw_allocate(a->backend.self, size, &ptr);
    }
    if (status == BP_OK && !ptr)
      status = BP_ERR_OUT_OF_MEMORY;
  }
  pthread_mutex_lock(&a->device_mu);
  if (status != BP_OK)
    a->reserved_total -= size;
  else if (kind == BP_CHUNK_LARGE)
    a->grew_large = true;
  pthread_mutex_unlock(&a->device_mu);
  if (status != BP_OK) {
    free(chunk);
    free(block);
    return status;
  }
  bp_count(&a->num_device_alloc);
  chunk->base = (uintptr_t)ptr;
  chunk->size = size;
  chunk->kind = kind;
  chunk->first = block;
  block->addr = chunk->base;
  block->size = size;
  block->chunk = chunk;
  block->state = BP_BLOCK_FREE;
  *out_chunk = chunk;
  return BP_OK;
}

static void link_chunk(bp_alloc_pool_t *pool, bp_chunk_t *chunk) {
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

void bp_alloc_return_chunk(bp_caching_allocator_t *a, bp_chunk_t *chunk) {
  a->backend.raw_free(a->backend.self, (void *)chunk->base, chunk->size);
  bp_count(&a->num_device_free);
  pthread_mutex_lock(&a->device_mu);
  a->reserved_total -= chunk->size;
  pthread_mutex_unlock(&a->device_mu);
  free(chunk);
}

/* Adds a fresh chunk to `pool` and hands out its front. */
static bp_status_t allocate_from_chunk(bp_caching_allocator_t *a,
                                       bp_alloc_pool_t *pool, bp_chunk_t *chunk,
                                       size_t size, size_t rounded,
                                       bool workspace, void **out_ptr) {
  bp_pool_lock(&pool->mu);
  link_chunk(pool, chunk);
  bp_block_t *b = chunk->first;
  if (chunk->kind != BP_CHUNK_DIRECT)
    carve(a, pool, b, rounded, false);
  bp_status_t status = hand_out(a, pool, b, size, workspace, out_ptr);
  if (status != BP_OK && chunk->kind == BP_CHUNK_DIRECT) {
    bp_alloc_unlink_chunk(pool, chunk);
    bp_pool_unlock(&pool->mu);
    bp_alloc_return_chunk(a, chunk);
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "%s: no host memory to track a device allocation",
                    a->backend.name);
  }
  bp_pool_unlock(&pool->mu);
  return status;
}

static size_t largest_free_block(bp_caching_allocator_t *a) {
  size_t largest = 0;
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p)) {
    bp_pool_lock(&p->mu);
    bp_block_t *small = bp_free_tree_largest(&p->small_free);
    bp_block_t *large = bp_free_tree_largest(&p->large_free);
    if (small && small->size > largest)
      largest = small->size;
    if (large && large->size > largest)
      largest = large->size;
    bp_pool_unlock(&p->mu);
  }
  return largest;
}

static bp_status_t out_of_memory(bp_caching_allocator_t *a, size_t size,
                                 size_t rounded) {
  bp_count(&a->num_ooms);
  bp_memory_stats_t stats;
  bp_caching_allocator_stats(a, &stats);
  size_t total = 0, device_free = 0;
  char free_text[32] = "unknown";
  if (a->backend.memory_info &&
      a->backend.memory_info(a->backend.self, &total, &device_free) == BP_OK)
    snprintf(free_text, sizeof free_text, "%zu", device_free);
  char limit_text[64] = "";
  if (a->config.max_alloc_size != SIZE_MAX)
    snprintf(limit_text, sizeof limit_text, " (max_alloc_size %zu)",
             a->config.max_alloc_size);
  return bp_error(BP_ERR_OUT_OF_MEMORY,
                  "%s: out of memory allocating %zu bytes (%zu after padding "
                  "and alignment): %llu bytes allocated, %llu reserved%s, "
                  "%s free on the device, largest free cached block %zu",
                  a->backend.name, size, rounded,
                  (unsigned long long)stats.allocated_bytes.current,
                  (unsigned long long)stats.reserved_bytes.current, limit_text,
                  free_text, largest_free_block(a));
}

static bp_status_t backend_failure(bp_caching_allocator_t *a,
                                   bp_status_t status, size_t rounded) {
  return bp_error(status, "%s: allocating %zu bytes from the device: %s",
                  a->backend.name, rounded, bp_last_error());
}

/* Memory pressure: wait for pending frees, give idle chunks back, retry. */
static void release_for_retry(bp_caching_allocator_t *a) {
  bp_count(&a->num_alloc_retries);
  bp_alloc_pending_reclaim(a, true);
  bp_alloc_release_idle(a);
}

static bp_status_t allocate_direct(bp_caching_allocator_t *a,
                                   bp_alloc_pool_t *pool, size_t size,
                                   size_t rounded, bool workspace,
                                   void **out_ptr) {
  bp_chunk_t *chunk;
  bp_status_t status = grow(a, rounded, BP_CHUNK_DIRECT, &chunk);
  if (status == BP_ERR_OUT_OF_MEMORY) {
    release_for_retry(a);
    status = grow(a, rounded, BP_CHUNK_DIRECT, &chunk);
  }
  if (status == BP_ERR_OUT_OF_MEMORY)
    return out_of_memory(a, size, rounded);
  if (status != BP_OK)
    return backend_failure(a, status, rounded);
  return allocate_from_chunk(a, pool, chunk, size, rounded, workspace, out_ptr);
}

static bp_status_t allocate_slow(bp_caching_allocator_t *a,
                                 bp_alloc_pool_t *pool, size_t size,
                                 size_t rounded, bool workspace,
                                 void **out_ptr) {
  bp_status_t status;
  if (atomic_load_explicit(&a->pending_count, memory_order_relaxed)) {
    bp_alloc_pending_reclaim(a, false);
    status = allocate_cached(a, pool, size, rounded, false, workspace, out_ptr);
    if (status != BP_ERR_NOT_FOUND)
      return status;
  }
  bool small = rounded <= BP_ALLOC_SMALL_REQUEST;
  bp_chunk_kind_t kind = small ? BP_CHUNK_SMALL : BP_CHUNK_LARGE;
  for (int attempt = 0;; attempt++) {
    bp_chunk_t *chunk;
    status = grow(a, rounded, kind, &chunk);
    if (status == BP_OK)
      return allocate_from_chunk(a, pool, chunk, size, rounded, workspace,
                                 out_ptr);
    if (status != BP_ERR_OUT_OF_MEMORY)
      return backend_failure(a, status, rounded);
    if (small) {
      status =
          allocate_cached(a, pool, size, rounded, true, workspace, out_ptr);
      if (status != BP_ERR_NOT_FOUND)
        return status;
    }
    if (attempt == 1)
      return out_of_memory(a, size, rounded);
    release_for_retry(a);
    status = allocate_cached(a, pool, size, rounded, false, workspace, out_ptr);
    if (status != BP_ERR_NOT_FOUND)
      return status;
  }
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
    return allocate_direct(a, pool, size, rounded, workspace, out_ptr);
  bp_status_t status =
      allocate_cached(a, pool, size, rounded, false, workspace, out_ptr);
  if (status != BP_ERR_NOT_FOUND)
    return status;
  return allocate_slow(a, pool, size, rounded, workspace, out_ptr);
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
    if (in_split_chunk(b))
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
  bp_alloc_pool_t *pool = thread_known_pool(a, stream);
  const bp_alloc_fast_round_t *round = &a->fast_round;
  if (pool && __builtin_expect(size - 1 < round->limit, 1) &&
      allocate_hot(pool, size, (size + round->add) & round->mask, out_ptr))
    return BP_OK;
  return malloc_general(a, size, stream, out_ptr);
}

/* Lookup of live blocks. */

HOT_PATH bool pool_has(bp_alloc_pool_t *pool, uintptr_t addr,
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

bp_alloc_pool_t *bp_alloc_lock_owner(bp_caching_allocator_t *a, uintptr_t addr,
                                     bp_block_t **out_block) {
  /* Newest pools first, the NULL-stream pool last: a chunk moving to it in
   * forget_stream is found either before or after the move. */
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    if (pool_has(p, addr, out_block))
      return p;
  return NULL;
}

bp_alloc_pool_t *bp_alloc_lock_chunk_pool(bp_chunk_t *chunk) {
  for (;;) {
    bp_alloc_pool_t *pool =
        atomic_load_explicit(&chunk->pool, memory_order_acquire);
    bp_pool_lock(&pool->mu);
    if (atomic_load_explicit(&chunk->pool, memory_order_relaxed) == pool)
      return pool;
    bp_pool_unlock(&pool->mu);
  }
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
  if (!hint || !pool_has(hint, (uintptr_t)ptr, &b))
    pool = bp_alloc_lock_owner(a, (uintptr_t)ptr, &b);
  if (!pool)
    return unknown_pointer(a, what, ptr);
  if (b->state == BP_BLOCK_CACHED) { /* freed already: as if not in the map */
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

/* Frees the allocated block `b` of the locked `pool`: into the hot cache
 * when it is idle and fits; unlocks. */
HOT_PATH bp_status_t free_locked(bp_caching_allocator_t *a,
                                 bp_alloc_pool_t *pool, bp_block_t *b) {
  bool direct = b->chunk->kind == BP_CHUNK_DIRECT;
  size_t waits = b->other_stream_count + (direct && pool->stream ? 1 : 0);
  if (waits)
    return free_deferred(a, pool, b, waits);
  count_idle_free(pool, b);
  if (direct)
    return free_uncached(a, pool, b);
  b->chunk->last_free_seq = ++pool->free_seq;
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
  return free_locked(a, pool, b);
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
  bool split = b && in_split_chunk(b);
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
free_general(bp_caching_allocator_t *a, void *ptr, void *stream) {
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
  return free_locked(a, pool, b);
}

bp_status_t bp_caching_allocator_free_on_stream(bp_caching_allocator_t *a,
                                                void *ptr, void *stream) {
  if (!a)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_caching_allocator_free_on_stream: allocator is NULL");
  if (!ptr)
    return BP_OK;
  bp_alloc_pool_t *pool = thread_known_pool(a, stream);
  if (pool && free_hot(pool, ptr))
    return BP_OK;
  return free_general(a, ptr, stream);
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

const char *bp_caching_allocator_name(const bp_caching_allocator_t *a) {
  return a->backend.name;
}

void bp_caching_allocator_config(const bp_caching_allocator_t *a,
                                 bp_allocator_config_t *out_config) {
  *out_config = a->config;
}
