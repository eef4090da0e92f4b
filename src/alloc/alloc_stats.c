/* Statistics: per-pool counters summed on demand; device-wide peaks
 * (computed only when an increase may make a new one, see alloc_internal.h). */
#include "alloc/alloc_internal.h"

static uint64_t total_current(bp_caching_allocator_t *a, bp_stat_kind_t kind) {
  uint64_t total = 0;
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    total += bp_stat_current(p, kind);
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
  uint64_t totals[BP_STAT_COUNT] = {0};
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p))
    for (int k = 0; k < BP_STAT_COUNT; k++)
      totals[k] += bp_stat_current(p, (bp_stat_kind_t)k);
  /* Until another pool computes the peaks, the others only decrease, so this
   * pool may grow up to the peak minus their totals now. */
  uint64_t room[BP_STAT_COUNT];
  for (int k = 0; k < BP_STAT_COUNT; k++) {
    uint64_t mine = bp_stat_current(pool, (bp_stat_kind_t)k);
    pool->peak_marks[k] =
        raise_peak(a, (bp_stat_kind_t)k, totals[k]) - (totals[k] - mine);
    room[k] = pool->peak_marks[k] - mine;
  }
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

static void fill(bp_caching_allocator_t *a, bp_stat_kind_t kind,
                 bp_memory_stat_t *out) {
  out->current = out->allocated = out->freed = 0;
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p)) {
    out->current += bp_stat_current(p, kind);
    out->allocated += bp_load(&p->stats[kind].allocated);
    out->freed += bp_load(&p->stats[kind].freed);
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
}

void bp_caching_allocator_reset_peaks(bp_caching_allocator_t *a) {
  for (int k = 0; k < BP_STAT_COUNT; k++)
    bp_store(&a->peaks[k], total_current(a, (bp_stat_kind_t)k));
  /* The pools' marks may be above the new peaks: the next increase of any
   * pool computes them again. */
  atomic_store_explicit(&a->peaks_walker, NULL, memory_order_relaxed);
}
