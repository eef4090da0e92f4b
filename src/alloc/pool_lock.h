/* The pool lock: a spinlock biased towards the thread that uses the pool.
 *
 * Frameworks mostly allocate on a stream from one thread, so each pool is
 * usually taken by the same thread again and again. After a streak of
 * acquisitions by one thread (with no other thread in between) the lock is
 * biased to it: that thread then takes and drops the lock with plain loads
 * and stores, no atomic read-modify-write. Any other thread wanting the lock
 * revokes the bias first: it clears the bias, makes every running thread of
 * the process execute a full memory barrier (membarrier(2), one system call,
 * microseconds) and waits until the owner is out. The owner side and the
 * revoker side form a Dekker pair whose store-load ordering the membarrier
 * supplies on the owner's behalf, so the owner's fast path needs only a
 * compiler barrier. Each revocation doubles the streak needed to bias the
 * lock again, so a pool that several threads share settles on the plain
 * spinlock (one atomic exchange to take, a release store to drop). Without
 * membarrier (old kernels, seccomp) the lock is never biased.
 *
 * Held only for short bookkeeping, never across a backend call or a wait.
 * Not recursive. Thread tokens are addresses of a thread-local variable: a
 * new thread may reuse a dead owner's token, which is harmless since the dead
 * one holds nothing. */
#ifndef BACKPLANE_ALLOC_POOL_LOCK_H_
#define BACKPLANE_ALLOC_POOL_LOCK_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bp_pool_lock {
  atomic_bool held; /* the spinlock of holders without the bias */
  /* The thread the lock is biased to, or NULL; set only by a spinlock
   * holder for itself, cleared only by a spinlock holder revoking it. */
  _Atomic(const void *) bias;
  /* The biased owner's token while it holds the lock by its bias. */
  _Atomic(const void *) inside;
  /* Guarded by `held`: who took the spinlock last, how many times in a row,
   * and the streak at which the lock biases to that thread (0: the first
   * streak, FIRST_BIAS_STREAK in pool_lock.c). */
  const void *last_holder;
  uint32_t streak, bias_after;
} bp_pool_lock_t;

/* The calling thread's token is the address of this variable (one
 * definition, pool_lock.c). Initial-exec TLS: computed from the thread
 * pointer, no call; it costs one byte of the static TLS surplus that glibc
 * keeps for dlopen'ed libraries. */
extern _Thread_local
    __attribute__((tls_model("initial-exec"))) char bp_pool_lock_token;
static inline const void *bp_pool_lock_self(void) {
  return &bp_pool_lock_token;
}

/* ThreadSanitizer does not see the ordering membarrier gives the owner's
 * fast path, so the lock tells it about each hand-over as a mutex would. */
#if defined(__SANITIZE_THREAD__)
#define BP_POOL_LOCK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BP_POOL_LOCK_TSAN 1
#endif
#endif
#ifdef BP_POOL_LOCK_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define BP_POOL_LOCK_ACQUIRED(lock) __tsan_acquire(lock)
#define BP_POOL_LOCK_RELEASED(lock) __tsan_release(lock)
#else
#define BP_POOL_LOCK_ACQUIRED(lock) ((void)(lock))
#define BP_POOL_LOCK_RELEASED(lock) ((void)(lock))
#endif

void bp_pool_lock_slow(bp_pool_lock_t *lock);
void bp_pool_unlock_slow(bp_pool_lock_t *lock, const void *self);

/* Takes and drops the lock for the thread whose token is `self`
 * (bp_pool_lock_self(); hot paths compute it once for both). */
static inline void bp_pool_lock_as(bp_pool_lock_t *lock, const void *self) {
  if (__builtin_expect(
          atomic_load_explicit(&lock->bias, memory_order_relaxed) == self, 1)) {
    atomic_store_explicit(&lock->inside, self, memory_order_relaxed);
    /* Pairs with the revoker's bp_fence_heavy (asymmetric_fence.h): biased
     * locks exist only where this is a compiler barrier. */
    atomic_signal_fence(memory_order_seq_cst);
    if (__builtin_expect(
            atomic_load_explicit(&lock->bias, memory_order_acquire) == self,
            1)) {
      BP_POOL_LOCK_ACQUIRED(lock);
      return;
    }
    atomic_store_explicit(&lock->inside, NULL, memory_order_release);
  }
  bp_pool_lock_slow(lock);
}

static inline void bp_pool_unlock_as(bp_pool_lock_t *lock, const void *self) {
  /* Only the owner writes its token there, and it holds the lock by its
   * bias exactly while the token is there. */
  if (__builtin_expect(
          atomic_load_explicit(&lock->inside, memory_order_relaxed) == self,
          1)) {
    BP_POOL_LOCK_RELEASED(lock);
    atomic_store_explicit(&lock->inside, NULL, memory_order_release);
    return;
  }
  bp_pool_unlock_slow(lock, self);
}

static inline void bp_pool_lock(bp_pool_lock_t *lock) {
  bp_pool_lock_as(lock, bp_pool_lock_self());
}
static inline void bp_pool_unlock(bp_pool_lock_t *lock) {
  bp_pool_unlock_as(lock, bp_pool_lock_self());
}

/* Takes the lock only if the calling thread holds its bias: true if taken
 * (drop it with bp_pool_unlock_biased), false if not (nothing taken). For
 * hot paths that fall back to a general path rather than wait. */
static inline bool bp_pool_try_lock_biased(bp_pool_lock_t *lock) {
  const void *self = bp_pool_lock_self();
  if (atomic_load_explicit(&lock->bias, memory_order_relaxed) != self)
    return false;
  atomic_store_explicit(&lock->inside, self, memory_order_relaxed);
  atomic_signal_fence(memory_order_seq_cst); /* see bp_pool_lock_as */
  if (__builtin_expect(
          atomic_load_explicit(&lock->bias, memory_order_acquire) == self, 1)) {
    BP_POOL_LOCK_ACQUIRED(lock);
    return true;
  }
  atomic_store_explicit(&lock->inside, NULL, memory_order_release);
  return false;
}
static inline void bp_pool_unlock_biased(bp_pool_lock_t *lock) {
  BP_POOL_LOCK_RELEASED(lock);
  atomic_store_explicit(&lock->inside, NULL, memory_order_release);
}

#endif /* BACKPLANE_ALLOC_POOL_LOCK_H_ */
