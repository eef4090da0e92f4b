/* Pending frees: blocks freed while other streams may still use them wait
 * here for events recorded at free time, then return to their pool. Events
 * are recycled through a spare list. */
#include <sched.h>
#include <stdlib.h>

#include "alloc/alloc_internal.h"

/* The stream whose host callback this thread runs (NULL: none): no waits. */
static _Thread_local void *callback_stream;

void *bp_caching_allocator_enter_callback(void *stream) {
  void *previous = callback_stream;
  callback_stream = stream;
  return previous;
}

void bp_caching_allocator_leave_callback(void *previous) {
  callback_stream = previous;
}

void *bp_caching_allocator_callback_stream(void) {
  return callback_stream;
}

bp_pending_free_t *bp_alloc_pending_new(size_t stream_count) {
  bp_pending_free_t *entry =
      calloc(1, sizeof *entry + 2 * stream_count * sizeof(void *));
  if (!entry)
    return NULL;
  entry->count = stream_count;
  entry->streams = (void **)(entry + 1);
  entry->events = entry->streams + stream_count;
  return entry;
}

/* device_mu held. */
static void push_spare_event(bp_caching_allocator_t *a, void *event) {
  if (a->spare_event_count == a->spare_event_capacity) {
    size_t capacity =
        a->spare_event_capacity ? a->spare_event_capacity * 2 : 16;
    void **events = realloc(a->spare_events, capacity * sizeof *events);
    if (!events) {
      a->backend.event_destroy(a->backend.self, event);
      return;
    }
    a->spare_events = events;
    a->spare_event_capacity = capacity;
  }
  a->spare_events[a->spare_event_count++] = event;
}

void bp_alloc_recycle_event(bp_caching_allocator_t *a, void *event) {
  pthread_mutex_lock(&a->device_mu);
  push_spare_event(a, event);
  pthread_mutex_unlock(&a->device_mu);
}

void *bp_alloc_record_event(bp_caching_allocator_t *a, void *stream) {
  const bp_alloc_backend_t *be = &a->backend;
  if (!be->event_create || !be->event_record || !be->event_query ||
      !be->event_destroy)
    return NULL;
  void *event = NULL;
  pthread_mutex_lock(&a->device_mu);
  if (a->spare_event_count)
    event = a->spare_events[--a->spare_event_count];
  pthread_mutex_unlock(&a->device_mu);
  if (!event && (be->event_create(be->self, &event) != BP_OK || !event))
    return NULL;
  if (be->event_record(be->self, event, stream) != BP_OK) {
    bp_alloc_recycle_event(a, event);
    return NULL;
  }
  return event;
}

void bp_alloc_wait_event(bp_caching_allocator_t *a, void *event) {
  while (a->backend.event_query(a->backend.self, event) == BP_ERR_NOT_READY)
    sched_yield();
}

void bp_alloc_pending_park(bp_caching_allocator_t *a,
                           bp_pending_free_t *entry) {
  for (size_t i = 0; i < entry->count; i++)
    entry->events[i] = bp_alloc_record_event(a, entry->streams[i]);
  pthread_mutex_lock(&a->device_mu);
  entry->next = a->pending;
  a->pending = entry;
  atomic_fetch_add_explicit(&a->pending_count, 1, memory_order_relaxed);
  pthread_mutex_unlock(&a->device_mu);
}

/* Returns the parked block to its pool (its events have completed). */
static void finish(bp_caching_allocator_t *a, bp_pending_free_t *entry) {
  bp_block_t *b = entry->block;
  bp_chunk_t *chunk = b->chunk;
  bp_alloc_pool_t *pool = bp_alloc_lock_chunk_pool(chunk);
  bp_block_map_remove(&pool->live, b->addr);
  bp_stat_sub(pool, BP_STAT_ACTIVE, b->size);
  if (chunk->kind == BP_CHUNK_DIRECT) {
    bp_alloc_unlink_chunk(pool, chunk);
    bp_pool_unlock(&pool->mu);
    bp_alloc_return_chunk(a, chunk);
  } else {
    chunk->last_free_seq = ++pool->free_seq;
    bp_alloc_release_block(pool, b);
    bp_pool_unlock(&pool->mu);
  }
  free(entry);
}

/* Unlinks the completed entries (device_mu held); *out_waiting tells whether
 * an entry is still waiting for an event (rather than for forget_stream). */
static bp_pending_free_t *take_completed(bp_caching_allocator_t *a,
                                         bool *out_waiting) {
  bp_pending_free_t *done = NULL;
  *out_waiting = false;
  for (bp_pending_free_t **link = &a->pending; *link;) {
    bp_pending_free_t *e = *link;
    bool complete = true;
    for (size_t i = 0; i < e->count; i++) {
      if (!e->streams[i])
        continue; /* this stream's part is done */
      if (!e->events[i]) {
        complete = false; /* no event: waits for forget_stream */
        continue;
      }
      if (a->backend.event_query(a->backend.self, e->events[i]) ==
          BP_ERR_NOT_READY) {
        complete = false;
        *out_waiting = true;
        continue;
      }
      push_spare_event(a, e->events[i]);
      e->events[i] = NULL;
      e->streams[i] = NULL;
    }
    if (complete) {
      *link = e->next;
      e->next = done;
      done = e;
      atomic_fetch_sub_explicit(&a->pending_count, 1, memory_order_relaxed);
    } else {
      link = &e->next;
    }
  }
  return done;
}

void bp_alloc_pending_reclaim(bp_caching_allocator_t *a, bool wait) {
  if (callback_stream)
    wait = false; /* see bp_caching_allocator_enter_callback */
  while (atomic_load_explicit(&a->pending_count, memory_order_relaxed)) {
    bool waiting;
    pthread_mutex_lock(&a->device_mu);
    bp_pending_free_t *done = take_completed(a, &waiting);
    pthread_mutex_unlock(&a->device_mu);
    while (done) {
      bp_pending_free_t *next = done->next;
      finish(a, done);
      done = next;
    }
    if (!wait || !waiting)
      return;
    sched_yield();
  }
}

void bp_alloc_pending_forget_stream(bp_caching_allocator_t *a, void *stream) {
  pthread_mutex_lock(&a->device_mu);
  for (bp_pending_free_t *e = a->pending; e; e = e->next)
    for (size_t i = 0; i < e->count; i++)
      if (e->streams[i] == stream) {
        if (e->events[i])
          push_spare_event(a, e->events[i]);
        e->events[i] = NULL;
        e->streams[i] = NULL;
      }
  pthread_mutex_unlock(&a->device_mu);
  bp_alloc_pending_reclaim(a, false);
}

void bp_alloc_pending_destroy(bp_caching_allocator_t *a) {
  for (bp_pending_free_t *e = a->pending, *next; e; e = next) {
    next = e->next;
    for (size_t i = 0; i < e->count; i++)
      if (e->events[i])
        a->backend.event_destroy(a->backend.self, e->events[i]);
    free(e);
  }
  a->pending = NULL;
  for (size_t i = 0; i < a->spare_event_count; i++)
    a->backend.event_destroy(a->backend.self, a->spare_events[i]);
  free(a->spare_events);
  a->spare_events = NULL;
  a->spare_event_count = 0;
}

void bp_caching_allocator_process_events(bp_caching_allocator_t *a) {
  if (a)
    bp_alloc_pending_reclaim(a, false);
}
