/* The pool lock's slow paths: the spinlock, revoking and granting the bias
 * (contract in pool_lock.h). */
#include "alloc/pool_lock.h"

#include <sched.h>

#include "alloc/asymmetric_fence.h"

_Thread_local
    __attribute__((tls_model("initial-exec"))) char bp_pool_lock_token;

/* Acquisitions in a row by one thread before the first bias, and the most a
 * pool shared by several threads is made to wait for the next one: a
 * revocation (a membarrier, a few microseconds) then costs at most about a
 * nanosecond per acquisition, however the threads take turns. */
enum { FIRST_BIAS_STREAK = 64, MAX_BIAS_STREAK = 4096 };

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* One round of waiting: spin a little, then yield the CPU. */
static void backoff(unsigned *spins) {
  if (++*spins < 100)
    cpu_relax();
  else
    sched_yield();
}

static void take_spinlock(bp_pool_lock_t *lock) {
  while (atomic_exchange_explicit(&lock->held, true, memory_order_acquire)) {
    unsigned spins = 0;
    while (atomic_load_explicit(&lock->held, memory_order_relaxed))
      backoff(&spins);
  }
}

/* A zeroed lock has never been revoked. */
static uint32_t streak_to_bias(const bp_pool_lock_t *lock) {
  return lock->bias_after ? lock->bias_after : FIRST_BIAS_STREAK;
}

/* With the spinlock held: takes the bias away from its owner and waits until
 * the owner is out. After the membarrier, an owner that had announced itself
 * is seen inside, and one that had not sees the bias gone. */
static void revoke_bias(bp_pool_lock_t *lock) {
  atomic_store_explicit(&lock->bias, NULL, memory_order_relaxed);
  bp_fence_heavy();
  unsigned spins = 0;
  while (atomic_load_explicit(&lock->inside, memory_order_acquire))
    backoff(&spins);
  lock->streak = 0;
  if (streak_to_bias(lock) < MAX_BIAS_STREAK)
    lock->bias_after = 2 * streak_to_bias(lock);
}

void bp_pool_lock_slow(bp_pool_lock_t *lock) {
  take_spinlock(lock);
  if (atomic_load_explicit(&lock->bias, memory_order_relaxed))
    revoke_bias(lock);
  BP_POOL_LOCK_ACQUIRED(lock);
}

void bp_pool_unlock_slow(bp_pool_lock_t *lock, const void *self) {
  if (lock->last_holder != self) {
    lock->last_holder = self;
    lock->streak = 0;
  }
  if (++lock->streak >= streak_to_bias(lock) && bp_fence_is_asymmetric())
    atomic_store_explicit(&lock->bias, self, memory_order_release);
  BP_POOL_LOCK_RELEASED(lock);
  atomic_store_explicit(&lock->held, false, memory_order_release);
}
