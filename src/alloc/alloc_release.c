/* Chunks changing hands: idle chunks back to the device (empty_cache,
 * memory pressure), a destroyed stream's chunks to the NULL-stream pool, and
 * idle chunks of the NULL-stream pool to stream pools that would grow. */
#include <sched.h>

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
 * next release, and inside a host callback (no waits) so do they all. The
 * stream may be destroyed concurrently: the decision to record is taken
 * under the pool's lock, where forget_stream takes the chunks away, and
 * forget_stream waits for the record (see stream_recorders). */
static size_t release_pool_idle(bp_caching_allocator_t *a,
                                bp_alloc_pool_t *pool) {
  /* Inside a host callback nothing may wait for a stream. */
  bool may_wait = !bp_caching_allocator_callback_stream();
  bp_pool_lock(&pool->mu);
  if (pool == a->null_pool)
    bp_thread_cache_drain_all(a, pool);
  bp_alloc_flush_hot(pool);
  bool any = has_idle_chunk(pool);
  uint64_t covered_seq = pool->free_seq;
  void *stream = pool->stream;
  bool record = any && stream && may_wait;
  if (record)
    atomic_fetch_add_explicit(&pool->stream_recorders, 1, memory_order_relaxed);
  bp_pool_unlock(&pool->mu);
  if (!any || (stream && !record))
    return 0;
  if (record) {
    void *event = bp_alloc_record_event(a, stream);
    /* Enqueued (or failed): the stream may be destroyed from here on. */
    atomic_fetch_sub_explicit(&pool->stream_recorders, 1, memory_order_release);
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

static bp_free_tree_t *free_tree_of(bp_alloc_pool_t *pool,
                                    const bp_chunk_t *chunk) {
  return chunk->kind == BP_CHUNK_SMALL ? &pool->small_free : &pool->large_free;
}

/* Moves chunk `c` of `from`, with its free and live blocks, to `to`; the
 * caller moves the statistics. Both pools locked; `to`'s map has room for
 * the chunk's live blocks. */
static void move_chunk(bp_alloc_pool_t *from, bp_alloc_pool_t *to,
                       bp_chunk_t *c) {
  for (bp_block_t *b = c->first; b; b = b->next) {
    if (b->state == BP_BLOCK_FREE) {
      bp_free_tree_remove(free_tree_of(from, c), b);
      bp_free_tree_insert(free_tree_of(to, c), b);
    } else {
      bp_block_map_remove(&from->live, b->addr);
      bp_block_map_insert(&to->live, b); /* cannot fail: reserved */
    }
    if (from->recent == b)
      from->recent = NULL; /* the hint is always a record of its pool */
  }
  if (c->prev)
    c->prev->next = c->next;
  else
    from->chunks = c->next;
  if (c->next)
    c->next->prev = c->prev;
  atomic_store_explicit(&c->pool, to, memory_order_release);
  c->prev = NULL;
  c->next = to->chunks;
  if (to->chunks)
    to->chunks->prev = c;
  to->chunks = c;
  /* Free sequences are per pool: the chunk has not been freed in `to`. */
  c->last_free_seq = 0;
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
  bp_alloc_pool_t *null_pool = a->null_pool;
  bp_pool_lock(&null_pool->mu);
  /* Without host memory to move them, the chunks stay with the stream key:
   * still correct (the stream is drained), only not shared. */
  if (bp_block_map_reserve(&null_pool->live,
                           null_pool->live.count + pool->live.count) == BP_OK) {
    while (pool->chunks)
      move_chunk(pool, null_pool, pool->chunks);
    for (int k = 0; k < BP_STAT_COUNT; k++)
      bp_stat_move(pool, null_pool, (bp_stat_kind_t)k,
                   bp_stat_current(pool, (bp_stat_kind_t)k));
  }
  bp_pool_unlock(&null_pool->mu);
  bp_pool_unlock(&pool->mu);
  /* A release that saw the chunks before they moved may still be recording
   * on the stream, which the caller is about to destroy. */
  while (atomic_load_explicit(&pool->stream_recorders, memory_order_acquire))
    sched_yield();
}

/* An idle chunk of the NULL-stream pool for a `rounded` request of the
 * `kind` pool: the best fit if it is a whole chunk, else the largest free
 * block if that is one (NULL-stream pool locked). */
static bp_chunk_t *idle_null_chunk(bp_alloc_pool_t *null_pool,
                                   bp_chunk_kind_t kind, size_t rounded) {
  bp_free_tree_t *tree =
      kind == BP_CHUNK_SMALL ? &null_pool->small_free : &null_pool->large_free;
  bp_block_t *b = bp_free_tree_best_fit(tree, rounded);
  if (b && bp_block_in_split_chunk(b))
    b = bp_free_tree_largest(tree);
  return b && !bp_block_in_split_chunk(b) && b->size >= rounded ? b->chunk
                                                                : NULL;
}

bp_status_t bp_alloc_allocate_adopted(bp_caching_allocator_t *a,
                                      bp_alloc_pool_t *pool, size_t size,
                                      size_t rounded, bool workspace,
                                      void **out_ptr) {
  bp_alloc_pool_t *null_pool = a->null_pool;
  if (pool == null_pool)
    return BP_ERR_NOT_FOUND;
  bp_chunk_kind_t kind =
      rounded <= BP_ALLOC_SMALL_REQUEST ? BP_CHUNK_SMALL : BP_CHUNK_LARGE;
  bp_pool_lock(&pool->mu);
  bp_pool_lock(&null_pool->mu);
  /* An idle chunk is one free block: no live block, no split bytes. */
  bp_chunk_t *chunk = idle_null_chunk(null_pool, kind, rounded);
  if (chunk) {
    move_chunk(null_pool, pool, chunk);
    bp_stat_move(null_pool, pool, BP_STAT_RESERVED, chunk->size);
  }
  bp_pool_unlock(&null_pool->mu);
  bp_status_t status = BP_ERR_NOT_FOUND;
  if (chunk) {
    bp_alloc_carve(a, pool, chunk->first, rounded, true);
    status = bp_alloc_hand_out(a, pool, chunk->first, size, workspace, out_ptr);
  }
  bp_pool_unlock(&pool->mu);
  return status;
}
