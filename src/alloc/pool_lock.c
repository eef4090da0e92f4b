/* The pool lock's slow paths: the spinlock, thread records, revoking and
 * granting the bias (contract in pool_lock.h). */
#include "alloc/pool_lock.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/asymmetric_fence.h"

_Thread_local __attribute__((tls_model("initial-exec")))
bp_lock_owner_t *bp_lock_owner_self;

/* Acquisitions in a row by one thread before the first bias, and the most a
 * pool shared by several threads is made to wait for the next one: a
 * revocation (a membarrier, a few microseconds) then costs at most about a
 * nanosecond per acquisition, however the threads take turns. */
enum { FIRST_BIAS_STREAK = 64, MAX_BIAS_STREAK = 4096 };

/* Thread records: never freed; an exiting thread's goes to a free list. */
static pthread_mutex_t records_mu = PTHREAD_MUTEX_INITIALIZER;
static bp_lock_owner_t *free_records, *all_records; /* records_mu */
static pthread_once_t record_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t record_key;
static bool record_key_ok;

static void release_record(void *record) {
  bp_lock_owner_t *r = record;
  pthread_mutex_lock(&records_mu);
  r->next_free = free_records;
  free_records = r;
  pthread_mutex_unlock(&records_mu);
  /* Other thread-exit destructors may still take locks (thread_cache.c):
   * they must not act under a record a new thread may now hold. */
  bp_lock_owner_self = NULL;
}

static void create_record_key(void) {
  record_key_ok = pthread_key_create(&record_key, release_record) == 0;
}

/* The calling thread's record, made on first need; NULL without host memory
 * (the thread then never gets a bias). */
static bp_lock_owner_t *own_record(void) {
  if (bp_lock_owner_self)
    return bp_lock_owner_self;
  pthread_once(&record_key_once, create_record_key);
  if (!record_key_ok)
    return NULL;
  pthread_mutex_lock(&records_mu);
  bp_lock_owner_t *r = free_records;
  if (r) {
    free_records = r->next_free;
  } else if ((r = aligned_alloc(_Alignof(bp_lock_owner_t), sizeof *r))) {
    memset(r, 0, sizeof *r);
    r->next = all_records;
    all_records = r;
  }
  pthread_mutex_unlock(&records_mu);
  if (r && pthread_setspecific(record_key, r) != 0) {
    release_record(r);
    r = NULL;
  }
  return bp_lock_owner_self = r;
}

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

/* With the spinlock held: takes the bias away from `owner` and waits until
 * it is out. After the membarrier, an owner that had announced itself is
 * seen inside, and one that had not sees the bias gone. */
static void revoke_bias(bp_pool_lock_t *lock, bp_lock_owner_t *owner) {
  atomic_store_explicit(&lock->bias, NULL, memory_order_relaxed);
  bp_fence_heavy();
  unsigned spins = 0;
  while (atomic_load_explicit(&owner->inside, memory_order_acquire) == lock)
    backoff(&spins);
  lock->streak = 0;
  if (streak_to_bias(lock) < MAX_BIAS_STREAK)
    lock->bias_after = 2 * streak_to_bias(lock);
}

void bp_pool_lock_slow(bp_pool_lock_t *lock) {
  take_spinlock(lock);
  bp_lock_owner_t *owner =
      atomic_load_explicit(&lock->bias, memory_order_relaxed);
  /* The owner itself comes this way for a lock nested in another it holds
   * by bias: it keeps the bias. */
  if (owner && owner != bp_lock_owner_self)
    revoke_bias(lock, owner);
  BP_POOL_LOCK_ACQUIRED(lock);
}

void bp_pool_unlock_slow(bp_pool_lock_t *lock) {
  bp_lock_owner_t *me = own_record();
  if (lock->last_holder != me) {
    lock->last_holder = me;
    lock->streak = 0;
  }
  if (me && ++lock->streak >= streak_to_bias(lock) && bp_fence_is_asymmetric())
    atomic_store_explicit(&lock->bias, me, memory_order_release);
  BP_POOL_LOCK_RELEASED(lock);
  atomic_store_explicit(&lock->held, false, memory_order_release);
}
