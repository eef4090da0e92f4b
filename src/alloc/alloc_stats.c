/* Statistics: per-pool counters summed on demand; device-wide peaks
 * (computed only when an increase may make a new one, see alloc_internal.h). */
#include "alloc/thread_cache.h"

static uint64_t total_current(bp_caching_allocator_t *a, bp_stat_kind_t kind) {
  uint64_t total = 0;
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    total += bp_stat_current(p, kind);
  for (bp_thread_cache_t *t = bp_thread_cache_first(a); t;
       t = bp_thread_cache_next(t)) {
    bp_thread_cache_share_t shares[BP_STAT_COUNT];
    bp_thread_cache_shares(t, shares);
    total += shares[kind].current;
  }
  return total;
}

/* Raises the peak of `kind` to `value`; returns the peak (>= value). */
static uint64_t raise_peak(bp_caching_allocator_t *a, bp_stat_kind_t kind,
                           uint64_t value) {
  uint64_t peak = bp_load(&a->peaks[kind]);
  while (value > peak && !atomic_compare_exchange_weak_explicit(
                             &a->peaks[kind], &peak, value,
                             memory_order_relaxed, memory_order_relaxed)) {
  }
  return value > peak ? value : peak;
}

/* A peak is the largest device-wide total seen after an increase. With one
 * stream at a time it is exact; with concurrent streams each increase reads
 * the other pools' totals without their locks. */
void bp_alloc_walk_peaks(bp_alloc_pool_t *pool) {
  bp_caching_allocator_t *a = pool->allocator;
  uint64_t pools[BP_STAT_COUNT] = {0}, caches[BP_STAT_COUNT] = {0},
           claims[BP_STAT_COUNT] = {0};
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    for (int k = 0; k < BP_STAT_COUNT; k++)
      pools[k] += bp_stat_current(p, (bp_stat_kind_t)k);
  for (bp_thread_cache_t *t = bp_thread_cache_first(a); t;
       t = bp_thread_cache_next(t)) {
    bp_thread_cache_share_t shares[BP_STAT_COUNT];
    bp_thread_cache_shares(t, shares);
    for (int k = 0; k < BP_STAT_COUNT; k++) {
      caches[k] += shares[k].current;
      claims[k] += shares[k].claim;
    }
  }
  /* Until another pool computes the peaks, the other pools only decrease
   * and the thread caches stay within their claims, so this pool may grow
   * up to the peak minus the others' totals and claims now. When the claims
   * no longer fit under the peak, the caches lose their rooms (a new
   * epoch). */
  uint64_t room[BP_STAT_COUNT];
  bool over = false;
  for (int k = 0; k < BP_STAT_COUNT; k++) {
    uint64_t mine = bp_stat_current(pool, (bp_stat_kind_t)k);
    uint64_t peak = raise_peak(a, (bp_stat_kind_t)k, pools[k] + caches[k]);
    uint64_t others = pools[k] - mine + claims[k];
    over |= others + mine > peak;
    pool->peak_marks[k] = peak > others ? peak - others : 0;
    room[k] = pool->peak_marks[k] > mine ? pool->peak_marks[k] - mine : 0;
  }
  if (over)
    atomic_fetch_add_explicit(&a->tc_epoch, 1, memory_order_relaxed);
  uint64_t use = room[BP_STAT_ALLOCATED];
  if (room[BP_STAT_ACTIVE] < use)
    use = room[BP_STAT_ACTIVE];
  if (room[BP_STAT_REQUESTED] < use)
    use = room[BP_STAT_REQUESTED];
  pool->use_headroom = use;
  pool->split_headroom = room[BP_STAT_INACTIVE_SPLIT];
  if (atomic_load_explicit(&a->peaks_walker, memory_order_relaxed) != pool)
    atomic_store_explicit(&a->peaks_walker, pool, memory_order_relaxed);
}

static void add_counter(bp_stat_counter_t *c, bp_memory_stat_t *out) {
  out->current += bp_counter_current(c);
  out->allocated += bp_load(&c->allocated);
  out->freed += bp_load(&c->freed);
}

static void fill(bp_caching_allocator_t *a, bp_stat_kind_t kind,
                 bp_memory_stat_t *out) {
  out->current = out->allocated = out->freed = 0;
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    add_counter(&p->stats[kind], out);
  for (bp_thread_cache_t *t = bp_thread_cache_first(a); t;
       t = bp_thread_cache_next(t)) {
    bp_thread_cache_share_t shares[BP_STAT_COUNT];
    bp_thread_cache_shares(t, shares);
    out->current += shares[kind].current;
    out->allocated += shares[kind].allocated;
    out->freed += shares[kind].freed;
  }
  out->peak = bp_load(&a->peaks[kind]);
  if (out->peak < out->current)
    out->peak = out->current;
}

void bp_caching_allocator_stats(bp_caching_allocator_t *a,
                                bp_memory_stats_t *out) {
  fill(a, BP_STAT_ALLOCATED, &out->allocated_bytes);
  fill(a, BP_STAT_RESERVED, &out->reserved_bytes);
  fill(a, BP_STAT_ACTIVE, &out->active_bytes);
  fill(a, BP_STAT_INACTIVE_SPLIT, &out->inactive_split_bytes);
  fill(a, BP_STAT_REQUESTED, &out->requested_bytes);
  out->num_alloc_retries = bp_load(&a->num_alloc_retries);
  out->num_ooms = bp_load(&a->num_ooms);
  out->num_device_alloc = bp_load(&a->num_device_alloc);
  out->num_device_free = bp_load(&a->num_device_free);
  out->thread_cached_blocks = out->thread_cached_bytes = 0;
  for (bp_thread_cache_t *t = bp_thread_cache_first(a); t;
       t = bp_thread_cache_next(t)) {
    uint64_t held = bp_load(&t->held); /* one read: the two agree */
    out->thread_cached_blocks += held >> 32;
    out->thread_cached_bytes += held & UINT32_MAX;
  }
}

void bp_caching_allocator_reset_peaks(bp_caching_allocator_t *a) {
  for (int k = 0; k < BP_STAT_COUNT; k++)
    bp_store(&a->peaks[k], total_current(a, (bp_stat_kind_t)k));
  /* The pools' marks may be above the new peaks: the next increase of any
   * pool computes them again. */
  atomic_store_explicit(&a->peaks_walker, NULL, memory_order_relaxed);
  atomic_fetch_add_explicit(&a->tc_epoch, 1, memory_order_relaxed);
}
