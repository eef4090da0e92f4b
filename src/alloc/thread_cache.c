/* Per-thread caches: the records and their registry (which thread owns
 * which, the thread-exit destructor), lending blocks and taking them back,
 * drains. Contract and hot paths in thread_cache.h. */
#include "alloc/thread_cache.h"

#include <stdlib.h>

_Thread_local __attribute__((tls_model("initial-exec")))
bp_thread_cache_tls_t bp_thread_cache_self;

/* A thread's records, one per allocator it freed into (registry_mu). */
typedef struct bp_thread_caches {
  bp_thread_cache_t *first;
} bp_thread_caches_t;

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t thread_key;
static bool key_ok;
static _Thread_local bp_thread_caches_t *thread_caches;

BP_ALLOC_INLINE uint64_t sub_floor(uint64_t x, uint64_t n) {
  return x > n ? x - n : 0;
}

/* Takes the handed-out `b` back from `t` (pool and cache locked): what the
 * cache counted for it moves to the pool. */
static void take_back_allocated(bp_thread_cache_t *t, bp_alloc_pool_t *pool,
                                bp_block_t *b) {
  bp_block_map_remove(&t->lent, b->addr);
  if (t->recent == b)
    t->recent = NULL;
  bp_counter_move(&t->stats[BP_STAT_ALLOCATED], &pool->stats[BP_STAT_ALLOCATED],
                  b->size);
  bp_counter_move(&t->stats[BP_STAT_ACTIVE], &pool->stats[BP_STAT_ACTIVE],
                  b->size);
  bp_counter_move(&t->stats[BP_STAT_REQUESTED], &pool->stats[BP_STAT_REQUESTED],
                  b->requested);
  if (b->tc_split)
    bp_counter_move(&pool->stats[BP_STAT_INACTIVE_SPLIT],
                    &t->stats[BP_STAT_INACTIVE_SPLIT], b->size);
  pool->use_headroom = pool->split_headroom = 0;
  b->lender = NULL;
  b->state = BP_BLOCK_ALLOCATED;
}

/* Takes every block back from `t` (pool and cache locked): the free ones
 * into the pool's free tree, and with `all`, the handed-out ones as the
 * pool's allocated blocks. */
static void give_back(bp_thread_cache_t *t, bp_alloc_pool_t *pool, bool all) {
  for (bp_block_t *b = bp_hot_cache_take_all(&t->bins), *next; b; b = next) {
    next = b->hot_next;
    b->hot_next = NULL;
    bp_block_map_remove(&t->lent, b->addr);
    b->lender = NULL;
    /* Counted as free (and split) by the pool since its lend. */
    bp_block_map_remove(&pool->live, b->addr);
    if (b->tc_split)
      bp_stat_fall_split(pool, b->size);
    bp_alloc_release_block(pool, b);
  }
  t->recent = NULL;
  bp_store(&t->held_blocks, 0);
  bp_store(&t->held_bytes, 0);
  if (!all)
    return;
  /* Removal shifts later entries back into the emptied slot: look again. */
  for (size_t s = 0; s < t->lent.capacity; s++)
    while (t->lent.slots[s])
      take_back_allocated(t, pool, t->lent.slots[s]);
}

/* At thread exit: every block back to the pool; the record waits for a new
 * thread (its counters stay, so the sums stay exact). */
static void release_thread(void *arg) {
  bp_thread_caches_t *list = arg;
  pthread_mutex_lock(&registry_mu);
  for (bp_thread_cache_t *t = list->first, *next; t; t = next) {
    next = t->thread_next;
    bp_alloc_pool_t *pool = t->allocator->null_pool;
    bp_pool_lock(&pool->mu);
    bp_pool_lock(&t->mu);
    give_back(t, pool, true);
    bp_store(&t->room_bytes, 0);
    bp_store(&t->room_requested, 0);
    bp_store(&t->room_split, 0);
    t->thread = NULL;
    t->thread_prev = t->thread_next = NULL;
    bp_pool_unlock(&t->mu);
    bp_pool_unlock(&pool->mu);
  }
  pthread_mutex_unlock(&registry_mu);
  free(list);
  thread_caches = NULL;
  bp_thread_cache_self.allocator_id = 0;
  bp_thread_cache_self.cache = NULL;
}

static void create_key(void) {
  key_ok = pthread_key_create(&thread_key, release_thread) == 0;
}

/* A record of `a` for the calling thread (registry_mu held): a free one, or
 * a new one appended to the allocator's list. */
static bp_thread_cache_t *take_record(bp_caching_allocator_t *a) {
  for (bp_thread_cache_t *t = bp_thread_cache_first(a); t;
       t = bp_thread_cache_next(t))
    if (!t->thread)
      return t;
  bp_thread_cache_t *t = aligned_alloc(64, sizeof *t);
  if (!t)
    return NULL;
  *t = (bp_thread_cache_t){.allocator = a};
  atomic_store_explicit(&t->next, bp_thread_cache_first(a),
                        memory_order_relaxed);
  atomic_store_explicit(&a->thread_caches, t, memory_order_release);
  return t;
}

bp_thread_cache_t *bp_thread_cache_get(bp_caching_allocator_t *a) {
  if (bp_thread_cache_self.allocator_id == a->id)
    return bp_thread_cache_self.cache;
  pthread_once(&key_once, create_key);
  if (!key_ok)
    return NULL;
  if (!thread_caches) {
    bp_thread_caches_t *list = calloc(1, sizeof *list);
    if (!list)
      return NULL;
    if (pthread_setspecific(thread_key, list) != 0) {
      free(list);
      return NULL;
    }
    thread_caches = list;
  }
  pthread_mutex_lock(&registry_mu);
  bp_thread_cache_t *t = thread_caches->first;
  while (t && t->allocator != a)
    t = t->thread_next;
  if (!t && (t = take_record(a))) {
    t->thread = thread_caches;
    t->thread_prev = NULL;
    t->thread_next = thread_caches->first;
    if (t->thread_next)
      t->thread_next->thread_prev = t;
    thread_caches->first = t;
  }
  pthread_mutex_unlock(&registry_mu);
  if (t) {
    bp_thread_cache_self.allocator_id = a->id;
    bp_thread_cache_self.cache = t;
  }
  return t;
}

bool bp_thread_cache_lend(bp_thread_cache_t *t, bp_alloc_pool_t *pool,
                          bp_block_t *b) {
  if (b->size > BP_THREAD_CACHE_MAX_BLOCK || b->workspace)
    return false;
  bp_pool_lock(&t->mu);
  bp_thread_cache_check_epoch(t);
  bool lent = bp_load(&t->held_bytes) + b->size <= BP_THREAD_CACHE_MAX_BYTES &&
              bp_block_map_insert(&t->lent, b) == BP_OK;
  if (lent && !bp_hot_cache_push(&t->bins, b)) {
    bp_block_map_remove(&t->lent, b->addr);
    lent = false;
  }
  if (lent) {
    b->state = BP_BLOCK_LENT;
    b->lender = t;
    b->tc_free = true;
    b->tc_split = bp_block_in_split_chunk(b);
    if (b->tc_split) { /* free in the pool's eyes, like a cached block */
      bp_stat_add(pool, BP_STAT_INACTIVE_SPLIT, b->size);
      bp_alloc_note_increase(pool, BP_STAT_INACTIVE_SPLIT);
    }
    /* The room this free made moves from the pool to the cache: the pool
     * may no longer grow into it. */
    pool->use_headroom = sub_floor(pool->use_headroom, b->size);
    if (bp_is_peaks_walker(pool)) {
      uint64_t *marks = pool->peak_marks;
      marks[BP_STAT_ALLOCATED] = sub_floor(marks[BP_STAT_ALLOCATED], b->size);
      marks[BP_STAT_ACTIVE] = sub_floor(marks[BP_STAT_ACTIVE], b->size);
      marks[BP_STAT_REQUESTED] =
          sub_floor(marks[BP_STAT_REQUESTED], b->requested);
    }
    bp_store(&t->room_bytes, bp_load(&t->room_bytes) + b->size);
    bp_store(&t->room_requested, bp_load(&t->room_requested) + b->requested);
    bp_store(&t->held_blocks, bp_load(&t->held_blocks) + 1);
    bp_store(&t->held_bytes, bp_load(&t->held_bytes) + b->size);
  }
  bp_pool_unlock(&t->mu);
  return lent;
}

bool bp_thread_cache_reclaim(bp_alloc_pool_t *pool, bp_block_t *b) {
  bp_thread_cache_t *t = b->lender;
  bp_pool_lock(&t->mu);
  bool handed_out = !b->tc_free;
  if (handed_out)
    take_back_allocated(t, pool, b);
  bp_pool_unlock(&t->mu);
  return handed_out;
}

bool bp_thread_cache_peek(const bp_block_t *b, size_t *out_requested) {
  bp_thread_cache_t *t = b->lender;
  bp_pool_lock(&t->mu);
  bool handed_out = !b->tc_free;
  *out_requested = handed_out ? b->requested : 0;
  bp_pool_unlock(&t->mu);
  return handed_out;
}

static void drain(bp_thread_cache_t *t, bp_alloc_pool_t *pool) {
  if (!bp_load(&t->held_blocks))
    return;
  bp_pool_lock(&t->mu);
  give_back(t, pool, false);
  bp_pool_unlock(&t->mu);
}

void bp_thread_cache_drain_own(bp_caching_allocator_t *a,
                               bp_alloc_pool_t *pool) {
  if (bp_thread_cache_self.allocator_id == a->id)
    drain(bp_thread_cache_self.cache, pool);
}

void bp_thread_cache_drain_all(bp_caching_allocator_t *a,
                               bp_alloc_pool_t *pool) {
  for (bp_thread_cache_t *t = bp_thread_cache_first(a); t;
       t = bp_thread_cache_next(t))
    drain(t, pool);
}

uint64_t bp_thread_cache_room(bp_thread_cache_t *t, bp_stat_kind_t kind) {
  if (bp_load(&t->epoch) !=
      atomic_load_explicit(&t->allocator->tc_epoch, memory_order_relaxed))
    return 0;
  switch (kind) {
  case BP_STAT_ALLOCATED:
  case BP_STAT_ACTIVE:
    return bp_load(&t->room_bytes);
  case BP_STAT_REQUESTED:
    return bp_load(&t->room_requested);
  case BP_STAT_INACTIVE_SPLIT:
    return bp_load(&t->room_split);
  default:
    return 0;
  }
}

void bp_thread_cache_destroy_all(bp_caching_allocator_t *a) {
  pthread_mutex_lock(&registry_mu);
  for (bp_thread_cache_t *t = bp_thread_cache_first(a), *next; t; t = next) {
    next = bp_thread_cache_next(t);
    if (t->thread) {
      if (t->thread_prev)
        t->thread_prev->thread_next = t->thread_next;
      else
        t->thread->first = t->thread_next;
      if (t->thread_next)
        t->thread_next->thread_prev = t->thread_prev;
    }
    bp_block_map_destroy(&t->lent);
    free(t);
  }
  pthread_mutex_unlock(&registry_mu);
}
