/* Asymmetric fences: a Dekker-style handshake between a frequent side (a hot
 * path) and a rare side, where the frequent side pays only a compiler
 * barrier and the rare side makes every running thread of the process
 * execute a full memory barrier on its behalf (membarrier(2)).
 *
 * The frequent side stores, then atomic_signal_fence(memory_order_seq_cst),
 * then loads; the rare side stores, calls bp_fence_heavy(), then loads: at
 * least one of them sees the other's store. This holds only where
 * bp_fence_is_asymmetric() is true; elsewhere (old kernels, seccomp) the
 * frequent side must not rely on it. Thread-safe; registration happens once,
 * on first use, and survives fork. */
#ifndef BACKPLANE_ALLOC_ASYMMETRIC_FENCE_H_
#define BACKPLANE_ALLOC_ASYMMETRIC_FENCE_H_

#include <stdbool.h>

/* Whether the process can use asymmetric fences; registers on first call. */
bool bp_fence_is_asymmetric(void);

/* The rare side's fence (a full fence where membarrier is missing). */
void bp_fence_heavy(void);

#endif /* BACKPLANE_ALLOC_ASYMMETRIC_FENCE_H_ */
