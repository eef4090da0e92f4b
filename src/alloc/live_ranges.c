#include "alloc/live_ranges.h"

#include "alloc/thread_cache.h"

/* The verdict for a range starting at `addr` in block `b` (pool locked). */
static bp_range_verdict_t judge(const bp_block_t *b, uintptr_t addr,
                                size_t size, bp_range_block_t *out_block) {
  /* A block lent to a thread cache is live while that cache has handed it
   * out; its requested size is the cache's (thread_cache.h). */
  size_t requested = b->state == BP_BLOCK_ALLOCATED ? b->requested : 0;
  bool live =
      b->state == BP_BLOCK_ALLOCATED ||
      (b->state == BP_BLOCK_LENT && bp_thread_cache_peek(b, &requested));
  *out_block = (bp_range_block_t){b->addr, requested};
  if (!live)
    return BP_RANGE_FREED;
  size_t offset = addr - b->addr;
  return offset < requested && size <= requested - offset ? BP_RANGE_INSIDE
                                                          : BP_RANGE_PAST_END;
}

/* The block of `pool` containing `addr`, by the chunk holding it (pool
 * locked); NULL if no chunk of the pool holds it. */
static const bp_block_t *containing_block(const bp_alloc_pool_t *pool,
                                          uintptr_t addr) {
  for (const bp_chunk_t *c = pool->chunks; c; c = c->next) {
    if (addr < c->base || addr - c->base >= c->size)
      continue;
    for (const bp_block_t *b = c->first; b; b = b->next)
      if (addr - b->addr < b->size)
        return b;
    return NULL;
  }
  return NULL;
}

bp_range_verdict_t
bp_caching_allocator_check_range(bp_caching_allocator_t *a, const void *ptr,
                                 size_t size, bp_range_block_t *out_block) {
  uintptr_t addr = (uintptr_t)ptr;
  bp_block_t *b;
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p)) {
    if (bp_alloc_pool_lock_if_live(p, addr, &b)) {
      bp_range_verdict_t verdict = judge(b, addr, size, out_block);
      bp_pool_unlock(&p->mu);
      return verdict;
    }
  }
  /* Not the start of a block: an interior pointer, or not ours. */
  for (bp_alloc_pool_t *p = bp_first_pool(a); p; p = bp_next_pool(p)) {
    bp_pool_lock(&p->mu);
    const bp_block_t *inside = containing_block(p, addr);
    bp_range_verdict_t verdict =
        inside ? judge(inside, addr, size, out_block) : BP_RANGE_NOT_OURS;
    bp_pool_unlock(&p->mu);
    if (verdict != BP_RANGE_NOT_OURS)
      return verdict;
  }
  return BP_RANGE_NOT_OURS;
}
