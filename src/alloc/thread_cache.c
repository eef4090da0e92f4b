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

/* After the cache's free blocks went back to the pool (none left, so its
 * claim is its current values): rooms of an older epoch are dropped and the
 * cache takes the current one (cache locked). */
static void renew_epoch(bp_thread_cache_t *t) {
  uint64_t epoch =
      atomic_load_explicit(&t->allocator->tc_epoch, memory_order_relaxed);
  if (bp_load(&t->epoch) != epoch) {
    bp_store(&t->room_requested, 0);
    bp_store(&t->epoch, epoch);
  }
}

/* Takes the handed-out `b` back from `t` (pool and cache locked): what the
 * cache counted for it moves to the pool, and the pool stops counting it
 * as inactive split bytes (thread_cache.h). */
static void take_back_allocated(bp_thread_cache_t *t, bp_alloc_pool_t *pool,
                                bp_block_t *b) {
  bp_block_map_remove(&t->lent, b->addr);
  if (t->recent == b)
    t->recent = NULL;
  bp_store(&t->bytes.moved, bp_load(&t->bytes.moved) - b->size);
  bp_stat_counter_t *allocated = &pool->stats[BP_STAT_ALLOCATED],
                    *active = &pool->stats[BP_STAT_ACTIVE],
                    *split = &pool->stats[BP_STAT_INACTIVE_SPLIT];
  bp_store(&allocated->moved, bp_load(&allocated->moved) + b->size);
  bp_store(&active->moved, bp_load(&active->moved) + b->size);
  bp_store(&split->moved, bp_load(&split->moved) - b->size);
  bp_counter_move(&t->requested, &pool->stats[BP_STAT_REQUESTED], b->requested);
  pool->use_headroom = pool->split_headroom = 0;
  b->lender = NULL;
  b->state = BP_BLOCK_ALLOCATED;
}

/* Takes every block back from `t` (pool and cache locked): the free ones
 * into the pool's free tree, and with `all`, the handed-out ones as the
 * pool's allocated blocks. */
static void give_back(bp_thread_cache_t *t, bp_alloc_pool_t *pool, bool all) {
  uint64_t left = bp_thread_cache_held_blocks(t);
  for (size_t i = 0; i < BP_THREAD_CACHE_BINS && left; i++) {
    bp_thread_cache_bin_t *bin = &t->bins[i];
    left -= bin->count;
    for (bp_block_t *b = bin->top, *next; b; b = next) {
      next = b->hot_next;
      b->hot_next = NULL;
      bp_block_map_remove(&t->lent, b->addr);
      b->lender = NULL;
      /* Counted as free and split by the pool since its lend. */
      bp_block_map_remove(&pool->live, b->addr);
      bp_stat_fall_split(pool, b->size);
      bp_alloc_release_block(pool, b);
    }
    *bin = (bp_thread_cache_bin_t){NULL, 0};
  }
  t->recent = NULL;
  bp_store(&t->held, 0);
  renew_epoch(t);
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
    bp_store(&t->room_requested, 0);
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
  /* The sizes the hit serves: the allocator's fast rounding (min_chunk a
   * power of two), up to BP_THREAD_CACHE_MAX_BLOCK and the bins once
   * rounded. */
  const bp_alloc_fast_round_t *round = &a->fast_round;
  size_t unit = ~round->mask + 1, pad = round->add - (unit - 1);
  size_t top = BP_THREAD_CACHE_MAX_BLOCK & round->mask;
  if (round->limit && top / unit > BP_THREAD_CACHE_BINS)
    top = BP_THREAD_CACHE_BINS * unit;
  if (round->limit && top > pad) {
    t->size_limit = top - pad < round->limit ? top - pad : round->limit;
    t->bin_add = pad - 1; /* modulo 2^64: size >= 1 */
    t->max_block = top;
    t->shift = (unsigned)__builtin_ctzll(unit);
  }
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
  /* Only blocks of split chunks: the pool counts them as inactive split
   * bytes while lent (thread_cache.h). */
  if (b->size > t->max_block || b->workspace || !bp_block_in_split_chunk(b))
    return false;
  bp_pool_lock(&t->mu);
  if (!bp_thread_cache_current(t->allocator, t))
    give_back(t, pool, false); /* its rooms are outdated */
  bp_thread_cache_bin_t *bin = bp_thread_cache_bin_of(t, b->size);
  bool lent =
      bp_thread_cache_held_bytes(t) + b->size <= BP_THREAD_CACHE_MAX_BYTES &&
      bin->count < BP_THREAD_CACHE_DEPTH &&
      bp_block_map_insert(&t->lent, b) == BP_OK;
  if (lent) {
    b->hot_next = bin->top;
    bin->top = b;
    bin->count++;
    b->state = BP_BLOCK_LENT;
    b->lender = t;
    b->tc_free = true;
    bp_stat_add(pool, BP_STAT_INACTIVE_SPLIT, b->size);
    bp_alloc_note_increase(pool, BP_STAT_INACTIVE_SPLIT);
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
    bp_store(&t->room_requested, bp_load(&t->room_requested) + b->requested);
    bp_store(&t->held, bp_load(&t->held) + bp_thread_cache_held_one(b->size));
  }
  bp_pool_unlock(&t->mu);
  return lent;
}

bool bp_thread_cache_malloc(bp_thread_cache_t *t, size_t size, void **out_ptr) {
  if (size - 1 >= t->size_limit)
    return false;
  bp_pool_lock(&t->mu);
  bp_block_t *b = bp_thread_cache_pop(t->allocator, t, size);
  if (b)
    *out_ptr = (void *)b->addr;
  bp_pool_unlock(&t->mu);
  return b != NULL;
}

bool bp_thread_cache_free(bp_thread_cache_t *t, void *ptr) {
  bp_pool_lock(&t->mu);
  bool hit = bp_thread_cache_push(t->allocator, t, ptr);
  bp_pool_unlock(&t->mu);
  return hit;
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
  if (!bp_load(&t->held))
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

void bp_thread_cache_shares(bp_thread_cache_t *t,
                            bp_thread_cache_share_t out[BP_STAT_COUNT]) {
  bool current = bp_thread_cache_current(t->allocator, t);
  uint64_t held = bp_thread_cache_held_bytes(t);
  bp_stat_counter_t *bytes = &t->bytes, *requested = &t->requested;
  uint64_t out_bytes = bp_counter_current(bytes);
  uint64_t out_requested = bp_counter_current(requested);
  bp_thread_cache_share_t use = {out_bytes, bp_load(&bytes->allocated),
                                 bp_load(&bytes->freed),
                                 out_bytes + (current ? held : 0)};
  out[BP_STAT_ALLOCATED] = out[BP_STAT_ACTIVE] = use;
  out[BP_STAT_RESERVED] = (bp_thread_cache_share_t){0, 0, 0, 0};
  out[BP_STAT_REQUESTED] = (bp_thread_cache_share_t){
      out_requested, bp_load(&requested->allocated), bp_load(&requested->freed),
      out_requested + (current ? bp_load(&t->room_requested) : 0)};
  /* Inactive split bytes fall by what is handed out; free hits may take
   * them back up to 0. */
  uint64_t split = 0 - out_bytes;
  out[BP_STAT_INACTIVE_SPLIT] = (bp_thread_cache_share_t){
      split, use.freed, use.allocated, current ? 0 : split};
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
