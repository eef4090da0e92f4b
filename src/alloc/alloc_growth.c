/* Growth and out-of-memory: new chunks from the backend within the budget,
 * chunks given back, the retry after releasing cached memory, and the error
 * that describes the device's state when memory runs out. Contract in
 * alloc_growth.h. */
#include <stdio.h>
#include <stdlib.h>

#include "alloc/alloc_internal.h"
#include "base/log.h"
#include "base/status.h"

/* A new chunk of `kind` for a `rounded` request, within max_alloc_size.
 * BP_ERR_OUT_OF_MEMORY (message not set) when the budget or the device is
 * exhausted; other backend failures pass through with their message. */
static bp_status_t grow(bp_caching_allocator_t *a, size_t rounded,
                        bp_chunk_kind_t kind, bp_chunk_t **out_chunk) {
  bp_chunk_t *chunk = calloc(1, sizeof *chunk);
  bp_block_t *block = bp_alloc_new_block_record();
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
  bp_alloc_link_chunk(pool, chunk);
  bp_block_t *b = chunk->first;
  if (chunk->kind != BP_CHUNK_DIRECT)
    bp_alloc_carve(a, pool, b, rounded, false);
  bp_status_t status = bp_alloc_hand_out(a, pool, b, size, workspace, out_ptr);
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
  char callback_text[256] = "";
  void *callback = bp_caching_allocator_callback_stream();
  if (callback)
    snprintf(callback_text, sizeof callback_text,
             "; called from a host callback of stream %p, where the allocator "
             "does not wait for stream work (it may wait for the callback): "
             "memory freed on streams that have not reached the free stays "
             "unavailable",
             callback);
  char limit_text[64] = "";
  if (a->config.max_alloc_size != SIZE_MAX)
    snprintf(limit_text, sizeof limit_text, " (max_alloc_size %zu)",
             a->config.max_alloc_size);
  /* Why the free memory the device reports did not serve the request. */
  char refused_text[128] = "";
  if (!callback && device_free >= rounded) {
    bool over_limit =
        stats.reserved_bytes.current > a->config.max_alloc_size ||
        a->config.max_alloc_size - stats.reserved_bytes.current < rounded;
    snprintf(refused_text, sizeof refused_text, "; %s",
             over_limit ? "the request would take reserved memory past "
                          "max_alloc_size"
                        : "the device refused it although it reports that "
                          "much free (fragmented, or freed since)");
  }
  bp_status_t status =
      bp_error(BP_ERR_OUT_OF_MEMORY,
               "%s: out of memory allocating %zu bytes (%zu after padding "
               "and alignment): %llu bytes allocated, %llu reserved%s, "
               "%s free on the device, largest free cached block %zu%s%s",
               a->backend.name, size, rounded,
               (unsigned long long)stats.allocated_bytes.current,
               (unsigned long long)stats.reserved_bytes.current, limit_text,
               free_text, largest_free_block(a), refused_text, callback_text);
  bp_log(BP_LOG_INFO, "alloc", "%s", bp_last_error());
  return status;
}

static bp_status_t backend_failure(bp_caching_allocator_t *a,
                                   bp_status_t status, size_t rounded) {
  return bp_error(status, "%s: allocating %zu bytes from the device: %s",
                  a->backend.name, rounded, bp_last_error());
}

/* Memory pressure: wait for pending frees, give idle chunks back, retry
 * (inside a host callback: only what needs no wait). */
static void release_for_retry(bp_caching_allocator_t *a, size_t rounded) {
  bp_count(&a->num_alloc_retries);
  bp_log(BP_LOG_INFO, "alloc",
         "%s: the device has no %zu bytes more; releasing cached memory and "
         "retrying",
         a->backend.name, rounded);
  bp_alloc_pending_reclaim(a, true);
  bp_alloc_release_idle(a);
}

bp_status_t bp_alloc_allocate_direct(bp_caching_allocator_t *a,
                                     bp_alloc_pool_t *pool, size_t size,
                                     size_t rounded, bool workspace,
                                     void **out_ptr) {
  bp_chunk_t *chunk;
  bp_status_t status = grow(a, rounded, BP_CHUNK_DIRECT, &chunk);
  if (status == BP_ERR_OUT_OF_MEMORY) {
    release_for_retry(a, rounded);
    status = grow(a, rounded, BP_CHUNK_DIRECT, &chunk);
  }
  if (status == BP_ERR_OUT_OF_MEMORY)
    return out_of_memory(a, size, rounded);
  if (status != BP_OK)
    return backend_failure(a, status, rounded);
  return allocate_from_chunk(a, pool, chunk, size, rounded, workspace, out_ptr);
}

bp_status_t bp_alloc_allocate_slow(bp_caching_allocator_t *a,
                                   bp_alloc_pool_t *pool, size_t size,
                                   size_t rounded, bool workspace,
                                   void **out_ptr) {
  bp_status_t status;
  if (atomic_load_explicit(&a->pending_count, memory_order_relaxed)) {
    bp_alloc_pending_reclaim(a, false);
    status = bp_alloc_allocate_cached(a, pool, size, rounded, false, workspace,
                                      out_ptr);
    if (status != BP_ERR_NOT_FOUND)
      return status;
  }
  /* Idle memory nobody uses (a destroyed stream's, say) before more. */
  status =
      bp_alloc_allocate_adopted(a, pool, size, rounded, workspace, out_ptr);
  if (status != BP_ERR_NOT_FOUND)
    return status;
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
      status = bp_alloc_allocate_cached(a, pool, size, rounded, true, workspace,
                                        out_ptr);
      if (status != BP_ERR_NOT_FOUND)
        return status;
    }
    if (attempt == 1)
      return out_of_memory(a, size, rounded);
    release_for_retry(a, rounded);
    status = bp_alloc_allocate_cached(a, pool, size, rounded, false, workspace,
                                      out_ptr);
    if (status != BP_ERR_NOT_FOUND)
      return status;
  }
}
