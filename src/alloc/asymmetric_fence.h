/* Asymmetric fences: a Dekker-style handshake between a frequent side (a hot
 * path) and a rare side, where the frequent side pays only a compiler
 * barrier and the rare side makes every running thread of the process
 * execute a full memory barrier on its behalf (membarrier(2)).
 *
 * The frequent side stores, calls bp_fence_light(), then loads; the rare
 * side stores, calls bp_fence_heavy(), then loads: at least one of them sees
 * the other's store. Where membarrier is not available both are full fences
 * (bp_fence_is_asymmetric() tells which, so that a hot path can avoid
 * relying on it). Thread-safe; registration happens once, on first use, and
 * survives fork. */
#ifndef BACKPLANE_ALLOC_ASYMMETRIC_FENCE_H_
#define BACKPLANE_ALLOC_ASYMMETRIC_FENCE_H_

#include <stdatomic.h>
#include <stdbool.h>

/* Set once membarrier is registered (bp_fence_is_asymmetric). */
extern atomic_bool bp_fence_asymmetric;

/* Whether bp_fence_light() is only a compiler barrier; registers on the
 * first call. */
bool bp_fence_is_asymmetric(void);

static inline void bp_fence_light(void) {
  if (atomic_load_explicit(&bp_fence_asymmetric, memory_order_relaxed))
    atomic_signal_fence(memory_order_seq_cst);
  else
    atomic_thread_fence(memory_order_seq_cst);
}

void bp_fence_heavy(void);

#endif /* BACKPLANE_ALLOC_ASYMMETRIC_FENCE_H_ */
