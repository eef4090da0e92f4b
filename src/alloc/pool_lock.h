/* The pool lock: a test-and-test-and-set spinlock that yields the CPU after a
 * short spin. One atomic exchange to take and a plain release store to drop,
 * against two atomic read-modify-writes for a mutex: the allocator's hot
 * path takes it twice per malloc+free. Held only for short bookkeeping,
 * never across a backend call or a wait. */
#ifndef BACKPLANE_ALLOC_POOL_LOCK_H_
#define BACKPLANE_ALLOC_POOL_LOCK_H_

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

static inline void bp_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

typedef struct bp_spinlock {
  atomic_bool held;
} bp_spinlock_t;

static inline void bp_spin_lock(bp_spinlock_t *lock) {
  while (atomic_exchange_explicit(&lock->held, true, memory_order_acquire)) {
    for (unsigned spins = 0;
         atomic_load_explicit(&lock->held, memory_order_relaxed); spins++) {
      if (spins < 100)
        bp_cpu_relax();
      else
        sched_yield();
    }
  }
}

static inline void bp_spin_unlock(bp_spinlock_t *lock) {
  atomic_store_explicit(&lock->held, false, memory_order_release);
}

#endif /* BACKPLANE_ALLOC_POOL_LOCK_H_ */
