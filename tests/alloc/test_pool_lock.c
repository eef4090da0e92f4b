/* The biased pool lock (src/alloc/pool_lock.h): the bias is granted after a
 * streak of one thread, taken away by any other thread, and mutual exclusion
 * holds across grants and revocations (run under TSan in CI). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "alloc/pool_lock.h"

/* More than any streak the lock asks for before its first bias. */
enum { LONG_STREAK = 1000 };

static void lock_times(bp_pool_lock_t *lock, int times) {
  for (int i = 0; i < times; i++) {
    bp_pool_lock(lock);
    bp_pool_unlock(lock);
  }
}

static void test_a_streak_earns_the_bias(void **state) {
  (void)state;
  bp_pool_lock_t lock;
  memset(&lock, 0, sizeof lock);
  assert_false(bp_pool_try_lock_biased(&lock));
  lock_times(&lock, LONG_STREAK);
  bp_lock_owner_t *me = bp_lock_owner_self;
  assert_non_null(me);
  assert_ptr_equal(atomic_load(&lock.bias), me);
  assert_true(bp_pool_try_lock_biased(&lock));
  /* Held by the bias: the spinlock itself stays free, the thread's record
   * says it is inside. */
  assert_false(atomic_load(&lock.held));
  assert_ptr_equal(atomic_load(&me->inside), &lock);
  /* A lock taken inside it is taken the plain way, even when biased. */
  bp_pool_lock_t other;
  memset(&other, 0, sizeof other);
  lock_times(&other, LONG_STREAK);
  assert_ptr_equal(atomic_load(&other.bias), me);
  assert_false(bp_pool_try_lock_biased(&other));
  bp_pool_lock(&other);
  assert_true(atomic_load(&other.held));
  bp_pool_unlock(&other);
  assert_ptr_equal(atomic_load(&me->inside), &lock);
  bp_pool_unlock_biased(&lock);
  assert_null(atomic_load(&me->inside));
  /* The ordinary calls take the biased way too. */
  bp_pool_lock(&lock);
  assert_false(atomic_load(&lock.held));
  bp_pool_unlock(&lock);
}

static void *lock_once(void *arg) {
  bp_pool_lock(arg);
  /* Inside, the former owner's bias is gone. */
  bool revoked = atomic_load(&((bp_pool_lock_t *)arg)->bias) == NULL;
  bp_pool_unlock(arg);
  return revoked ? arg : NULL;
}

static void test_another_thread_revokes_the_bias(void **state) {
  (void)state;
  bp_pool_lock_t lock;
  memset(&lock, 0, sizeof lock);
  lock_times(&lock, LONG_STREAK);
  assert_ptr_equal(atomic_load(&lock.bias), bp_lock_owner_self);
  pthread_t other;
  void *revoked = NULL;
  assert_int_equal(pthread_create(&other, NULL, lock_once, &lock), 0);
  assert_int_equal(pthread_join(other, &revoked), 0);
  assert_ptr_equal(revoked, &lock);
  assert_false(bp_pool_try_lock_biased(&lock));
  /* A revoked lock asks for a longer streak before it biases again. */
  assert_true(lock.bias_after > 64);
  lock_times(&lock, (int)lock.bias_after + 1);
  assert_ptr_equal(atomic_load(&lock.bias), bp_lock_owner_self);
}

typedef struct shared {
  bp_pool_lock_t lock;
  uint64_t counter; /* guarded by lock, deliberately not atomic */
  int bursts, burst_length;
} shared_t;

/* Bursts long enough to earn the bias, so the others keep revoking it. */
static void *count(void *arg) {
  shared_t *s = arg;
  for (int burst = 0; burst < s->bursts; burst++) {
    for (int i = 0; i < s->burst_length; i++) {
      if (i % 2 && bp_pool_try_lock_biased(&s->lock)) {
        s->counter++;
        bp_pool_unlock_biased(&s->lock);
        continue;
      }
      bp_pool_lock(&s->lock);
      s->counter++;
      bp_pool_unlock(&s->lock);
    }
  }
  return NULL;
}

static void test_mutual_exclusion_across_revocations(void **state) {
  (void)state;
  enum { THREADS = 3 };
  shared_t s;
  memset(&s, 0, sizeof s);
  s.bursts = 20;
  s.burst_length = 3 * LONG_STREAK;
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++)
    assert_int_equal(pthread_create(&threads[t], NULL, count, &s), 0);
  for (int t = 0; t < THREADS; t++)
    assert_int_equal(pthread_join(threads[t], NULL), 0);
  assert_int_equal(s.counter,
                   (uint64_t)THREADS * (uint64_t)s.bursts * s.burst_length);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_streak_earns_the_bias),
      cmocka_unit_test(test_another_thread_revokes_the_bias),
      cmocka_unit_test(test_mutual_exclusion_across_revocations),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
