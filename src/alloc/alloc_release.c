/* Giving memory back: idle chunks to the device (empty_cache, memory
 * pressure), and a destroyed stream's memory to the NULL-stream pool. */
#include "alloc/thread_cache.h"
#include "base/status.h"

static bool has_idle_chunk(const bp_alloc_pool_t *pool) {
  for (const bp_chunk_t *c = pool->chunks; c; c = c->next)
    if (bp_chunk_is_idle(c))
      return true;
  return false;
}

/* Releases the idle chunks of `pool`, its hot cache (and for the NULL-stream
 * pool every thread's cache) emptied first. A stream's
 * chunks may still be read by work enqueued before their last free, so an
 * event recorded on the stream (after those frees) must complete first;
 * chunks freed again meanwhile (last_free_seq past the event) wait for the
 * next release, and inside a host callback (no waits) so do they all. */
static size_t release_pool_idle(bp_caching_allocator_t *a,
                                bp_alloc_pool_t *pool) {
  bp_pool_lock(&pool->mu);
  if (pool == a->null_pool)
    bp_thread_cache_drain_all(a, pool);
  bp_alloc_flush_hot(pool);
  bool any = has_idle_chunk(pool);
  uint64_t covered_seq = pool->free_seq;
  bp_pool_unlock(&pool->mu);
  if (!any)
    return 0;
  if (pool->stream) {
    /* Inside a host callback nothing may wait for a stream: keep them. */
    if (bp_caching_allocator_callback_stream())
      return 0;
    void *event = bp_alloc_record_event(a, pool->stream);
    if (!event)
      return 0; /* cannot tell when the stream is done with them */
    bp_alloc_wait_event(a, event);
    bp_alloc_recycle_event(a, event);
  }
  bp_chunk_t *released = NULL;
  bp_pool_lock(&pool->mu);
  for (bp_chunk_t *c = pool->chunks, *next; c; c = next) {
    next = c->next;
    if (!bp_chunk_is_idle(c) ||
        (pool->stream && c->last_free_seq > covered_seq))
      continue;
    bp_alloc_unlink_chunk(pool, c);
    c->next = released;
    released = c;
  }
  bp_pool_unlock(&pool->mu);
  size_t bytes = 0;
  while (released) {
    bp_chunk_t *next = released->next;
    bytes += released->size;
    bp_alloc_return_chunk(a, released);
    released = next;
  }
  return bytes;
}

size_t bp_alloc_release_idle(bp_caching_allocator_t *a) {
  size_t bytes = 0;
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    bytes += release_pool_idle(a, p);
  return bytes;
}

/* Frees the slabs of workspaces that have no live frame. */
static void trim_workspaces(bp_caching_allocator_t *a) {
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    bp_workspace_trim(a, p);
}

bp_status_t bp_caching_allocator_empty_cache(bp_caching_allocator_t *a,
                                             size_t *out_released) {
  if (!a)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_caching_allocator_empty_cache: allocator is NULL");
  trim_workspaces(a);
  bp_alloc_pending_reclaim(a, true);
  size_t bytes = bp_alloc_release_idle(a);
  if (out_released)
    *out_released = bytes;
  return BP_OK;
}

/* Moves every chunk of `from` (a drained, forgotten stream's pool) into the
 * NULL-stream pool, with its free and live blocks and its statistics.
 * Both pools locked; `to`'s map has room for `from`'s live blocks. */
static void move_chunks(bp_alloc_pool_t *from, bp_alloc_pool_t *to) {
  while (from->chunks) {
    bp_chunk_t *c = from->chunks;
    from->chunks = c->next;
    for (bp_block_t *b = c->first; b; b = b->next) {
      if (b->state == BP_BLOCK_FREE) {
        bp_free_tree_t *tree =
            c->kind == BP_CHUNK_SMALL ? &from->small_free : &from->large_free;
        bp_free_tree_remove(tree, b);
        bp_free_tree_insert(
            c->kind == BP_CHUNK_SMALL ? &to->small_free : &to->large_free, b);
      } else {
        bp_block_map_remove(&from->live, b->addr);
        bp_block_map_insert(&to->live, b); /* cannot fail: reserved */
      }
    }
    atomic_store_explicit(&c->pool, to, memory_order_release);
    c->prev = NULL;
    c->next = to->chunks;
    if (to->chunks)
      to->chunks->prev = c;
    to->chunks = c;
  }
  from->recent = NULL; /* its record may be one of the moved chunks' */
  for (int k = 0; k < BP_STAT_COUNT; k++)
    bp_stat_move(from, to, (bp_stat_kind_t)k,
                 bp_stat_current(from, (bp_stat_kind_t)k));
}

void bp_caching_allocator_forget_stream(bp_caching_allocator_t *a,
                                        void *stream) {
  if (!a || !stream)
    return;
  bp_alloc_pool_t *pool = NULL;
  for (bp_alloc_pool_t *p = bp_first_pool(a); p && !pool; p = bp_next_pool(p))
    if (p->stream == stream)
      pool = p;
  bp_alloc_pending_forget_stream(a, stream);
  if (!pool)
    return;
  bp_workspace_release(a, pool);
  bp_pool_lock(&pool->mu);
  bp_alloc_flush_hot(pool);
  bp_pool_lock(&a->null_pool->mu);
  /* Without host memory to move them, the chunks stay with the stream key:
   * still correct (the stream is drained), only not shared. */
  if (bp_block_map_reserve(&a->null_pool->live, a->null_pool->live.count +
                                                    pool->live.count) == BP_OK)
    move_chunks(pool, a->null_pool);
  bp_pool_unlock(&a->null_pool->mu);
  bp_pool_unlock(&pool->mu);
}
