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
 * supplies on the owner's behalf (asymmetric_fence.h), so the owner's fast
 * path needs only a compiler barrier. Each revocation doubles the streak
 * needed to bias the lock again (up to a bound), so a pool that several
 * threads share settles on the plain spinlock (one atomic exchange to take,
 * a release store to drop). Without membarrier (old kernels, seccomp) the
 * lock is never biased.
 *
 * The owner announces that it is inside in its own thread record, which
 * only it writes: a former owner running late cannot overwrite the
 * announcement of the current one. Records are never freed (a revoker may
 * read the record of a thread that has exited); an exiting thread's record
 * goes to the next new thread, which thereby inherits any bias the dead one
 * had (harmless: the dead one holds nothing).
 *
 * Held only for short bookkeeping, never across a backend call or a wait.
 * Not recursive. A thread holds at most one lock by its bias at a time: a
 * lock taken inside another is taken the plain way. */
#ifndef BACKPLANE_ALLOC_POOL_LOCK_H_
#define BACKPLANE_ALLOC_POOL_LOCK_H_

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bp_pool_lock bp_pool_lock_t;

/* A thread's record: the identity a bias names. */
typedef struct bp_lock_owner {
  /* The lock the thread holds by its bias, if any; written only by the
   * thread. */
  _Atomic(bp_pool_lock_t *) inside;
  struct bp_lock_owner *next_free; /* records of exited threads */
  struct bp_lock_owner *next;      /* every record, for leak checkers */
  /* Each on its own cache line: every biased acquisition writes `inside`,
   * and threads must not share that line. */
} __attribute__((aligned(64))) bp_lock_owner_t;

struct bp_pool_lock {
  atomic_bool held; /* the spinlock of holders without the bias */
  /* The record the lock is biased to, or NULL; set only by a spinlock
   * holder for itself, cleared only by a spinlock holder revoking it. */
  _Atomic(bp_lock_owner_t *) bias;
  /* Guarded by `held`: who took the spinlock last, how many times in a row,
   * and the streak at which the lock biases to that thread (0: the first
   * streak, FIRST_BIAS_STREAK in pool_lock.c). */
  const bp_lock_owner_t *last_holder;
  uint32_t streak, bias_after;
};

/* The calling thread's record, NULL until its first slow acquisition (one
 * definition, pool_lock.c). Initial-exec TLS: one load from the thread
 * pointer, no call; it costs 8 bytes of the static TLS surplus that glibc
 * keeps for dlopen'ed libraries. */
extern _Thread_local __attribute__((tls_model("initial-exec")))
bp_lock_owner_t *bp_lock_owner_self;

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
void bp_pool_unlock_slow(bp_pool_lock_t *lock);

/* The owner's side of the Dekker pair with a revoker: announces `me` inside
 * `lock`, then takes it if the bias is still `me` (true); otherwise
 * withdraws (false). */
static inline bool bp_pool_enter_biased(bp_pool_lock_t *lock,
                                        bp_lock_owner_t *me) {
  atomic_store_explicit(&me->inside, lock, memory_order_relaxed);
  /* Pairs with the revoker's bp_fence_heavy: biased locks exist only where
   * a compiler barrier is enough here. */
  atomic_signal_fence(memory_order_seq_cst);
  if (__builtin_expect(
          atomic_load_explicit(&lock->bias, memory_order_acquire) == me, 1)) {
    BP_POOL_LOCK_ACQUIRED(lock);
    return true;
  }
  atomic_store_explicit(&me->inside, NULL, memory_order_release);
  return false;
}

/* Takes the lock only if the calling thread holds its bias: true if taken
 * (drop it with bp_pool_unlock_biased), false if not (nothing taken). For
 * hot paths that fall back to a general path rather than wait. */
static inline bool bp_pool_try_lock_biased(bp_pool_lock_t *lock) {
  bp_lock_owner_t *me = bp_lock_owner_self;
  if (!me || atomic_load_explicit(&me->inside, memory_order_relaxed))
    return false; /* no record yet, or inside another lock by its bias */
  return bp_pool_enter_biased(lock, me);
}

/* bp_pool_try_lock_biased for a thread that holds no lock by its bias (at
 * an entry point of the allocator, where no pool lock is ever held): the
 * one-lock-at-a-time check is left out. */
static inline bool bp_pool_try_lock_biased_outermost(bp_pool_lock_t *lock) {
  bp_lock_owner_t *me = bp_lock_owner_self;
  if (!me)
    return false;
  assert(!atomic_load_explicit(&me->inside, memory_order_relaxed));
  return bp_pool_enter_biased(lock, me);
}

/* Whether the lock is biased to the calling thread (a hint: another thread
 * may revoke the bias at any time). */
static inline bool bp_pool_biased_to_me(bp_pool_lock_t *lock) {
  bp_lock_owner_t *me = bp_lock_owner_self;
  return me && atomic_load_explicit(&lock->bias, memory_order_relaxed) == me;
}

/* Drops a lock taken by bp_pool_try_lock_biased. */
static inline void bp_pool_unlock_biased(bp_pool_lock_t *lock) {
  BP_POOL_LOCK_RELEASED(lock);
  atomic_store_explicit(&bp_lock_owner_self->inside, NULL,
                        memory_order_release);
}

static inline void bp_pool_lock(bp_pool_lock_t *lock) {
  if (!bp_pool_try_lock_biased(lock))
    bp_pool_lock_slow(lock);
}

static inline void bp_pool_unlock(bp_pool_lock_t *lock) {
  bp_lock_owner_t *me = bp_lock_owner_self;
  /* Only this thread writes its record: whether it holds the lock by the
   * bias is exactly whether the lock is there. */
  if (me && atomic_load_explicit(&me->inside, memory_order_relaxed) == lock)
    bp_pool_unlock_biased(lock);
  else
    bp_pool_unlock_slow(lock);
}

#endif /* BACKPLANE_ALLOC_POOL_LOCK_H_ */
