/* The allocator's life and its pools: create, destroy (reporting leaks),
 * pool records, and finding the pool that holds an address or a chunk.
 * Contract in alloc_pools.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/thread_cache.h"
#include "base/log.h"
#include "base/status.h"

static _Atomic uint64_t next_allocator_id = 1;

bp_alloc_pool_t *bp_alloc_pool_create(bp_caching_allocator_t *a, void *stream) {
  bp_alloc_pool_t *pool = aligned_alloc(64, sizeof *pool);
  if (!pool)
    return NULL;
  memset(pool, 0, sizeof *pool);
  pool->stream = stream;
  pool->allocator = a;
  bp_workspace_init(&pool->workspace);
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
  a->null_pool = bp_alloc_pool_create(a, NULL);
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
  bp_thread_cache_destroy_all(a);
  size_t leaked_blocks = 0, leaked_bytes = 0;
  bp_alloc_pool_t *pool = bp_first_pool(a);
  while (pool) {
    bp_alloc_pool_t *next = bp_next_pool(pool);
    for (bp_chunk_t *c = pool->chunks, *cn; c; c = cn) {
      cn = c->next;
      for (bp_block_t *b = c->first, *bn; b; b = bn) {
        bn = b->next;
        bool lent_out = b->state == BP_BLOCK_LENT && !b->tc_free;
        if ((b->state == BP_BLOCK_ALLOCATED && !b->workspace) || lent_out) {
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
    bp_log(BP_LOG_WARN, "alloc",
           "%s: %zu device allocation(s) of %zu bytes were never freed; "
           "released with the allocator",
           a->backend.name, leaked_blocks, leaked_bytes);
  pthread_mutex_destroy(&a->pools_mu);
  pthread_mutex_destroy(&a->device_mu);
  free(a);
}

bp_alloc_pool_t *bp_alloc_lock_owner(bp_caching_allocator_t *a, uintptr_t addr,
                                     bp_block_t **out_block) {
  /* Newest pools first, the NULL-stream pool last: a chunk moving to it in
   * forget_stream is found either before or after the move. */
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    if (bp_alloc_pool_lock_if_live(p, addr, out_block))
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

const char *bp_caching_allocator_name(const bp_caching_allocator_t *a) {
  return a->backend.name;
}

void bp_caching_allocator_config(const bp_caching_allocator_t *a,
                                 bp_allocator_config_t *out_config) {
  *out_config = a->config;
}
