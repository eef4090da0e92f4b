/* Recycled host-callback closures: a closure is never handed to two takers
 * at once, closures given back on other threads are reused, and a thread's
 * own closures come back when it exits. */
#include "core/callback_closures.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "support/runtime_fixture.h"

typedef struct record {
  bp_closure_link_t link;
  uint64_t owner, index;
} record_t;

enum { THREADS = 4, BATCH = 64, ROUNDS = 2000 };

/* Takes a batch, stamps it, checks nobody else wrote it, gives it back. */
static void *churn(void *arg) {
  uint64_t me = (uint64_t)(uintptr_t)arg;
  record_t *held[BATCH];
  for (int round = 0; round < ROUNDS; ++round) {
    for (int i = 0; i < BATCH; ++i) {
      held[i] = bp_callback_closure_take(sizeof(record_t));
      if (!held[i])
        return (void *)1;
      held[i]->owner = me;
      held[i]->index = (uint64_t)i;
    }
    for (int i = 0; i < BATCH; ++i)
      if (held[i]->owner != me || held[i]->index != (uint64_t)i)
        return (void *)2; /* handed to another thread meanwhile */
    for (int i = 0; i < BATCH; ++i)
      bp_callback_closure_give(held[i]);
  }
  return NULL;
}

static void test_never_shared_while_held(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  for (uintptr_t t = 0; t < THREADS; ++t)
    assert_int_equal(pthread_create(&threads[t], NULL, churn, (void *)(t + 1)),
                     0);
  for (int t = 0; t < THREADS; ++t) {
    void *result = (void *)3;
    pthread_join(threads[t], &result);
    assert_null(result);
  }
}

/* Every address a take returned in the second half of the test, to count the
 * distinct ones: once the closures left over from earlier tests are used
 * up, the same few come round again; closures that are lost (not given
 * back, or dropped at a thread's exit) force new ones, and the count grows
 * with the takes instead. */
enum { SEEN_MAX = 1 << 16 };
static uintptr_t seen[SEEN_MAX];
static size_t seen_count;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static record_t *take_seen(void) {
  record_t *r = bp_callback_closure_take(sizeof(record_t));
  pthread_mutex_lock(&seen_lock);
  if (r && seen_count < SEEN_MAX)
    seen[seen_count++] = (uintptr_t)r;
  pthread_mutex_unlock(&seen_lock);
  return r;
}

static int by_address(const void *a, const void *b) {
  uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
  return x < y ? -1 : x > y;
}

static size_t distinct_seen(void) {
  qsort(seen, seen_count, sizeof seen[0], by_address);
  size_t distinct = 0;
  for (size_t i = 0; i < seen_count; ++i)
    distinct += i == 0 || seen[i] != seen[i - 1];
  return distinct;
}

typedef struct hand_off {
  record_t *records[BATCH];
} hand_off_t;

static void *give_all(void *arg) {
  hand_off_t *h = arg;
  for (int i = 0; i < BATCH; ++i)
    bp_callback_closure_give(h->records[i]);
  return NULL;
}

/* Taken on this thread, given back on another, 500 times: the closures are
 * reused, not made anew. */
static void test_reused_across_threads(void **state) {
  (void)state;
  for (int round = 0; round < 500; ++round) {
    if (round == 250)
      seen_count = 0;
    hand_off_t h;
    for (int i = 0; i < BATCH; ++i)
      assert_non_null(h.records[i] = take_seen());
    pthread_t giver;
    assert_int_equal(pthread_create(&giver, NULL, give_all, &h), 0);
    pthread_join(giver, NULL);
  }
  assert_int_equal(seen_count, 250 * BATCH);
  size_t distinct = distinct_seen();
  if (distinct > 2 * BATCH)
    fail_msg("%zu distinct closures in %d takes", distinct, 250 * BATCH);
}

/* Takes every closure in existence (until one has to be made), then gives
 * them all back: the stack then holds all of them, and this thread's own
 * list is empty when it exits. Returns how many it held. */
static void *gather_all(void *arg) {
  size_t *held = arg;
  size_t made = bp_callback_closures_made();
  bp_closure_link_t *list = NULL;
  *held = 0;
  for (;;) {
    bp_closure_link_t *c = bp_callback_closure_take(sizeof(record_t));
    if (!c)
      return (void *)1;
    c->next = list;
    list = c;
    ++*held;
    if (bp_callback_closures_made() != made)
      break; /* that one was new: every other was already held */
  }
  while (list) {
    bp_closure_link_t *next = list->next;
    bp_callback_closure_give(list);
    list = next;
  }
  return NULL;
}

/* Takes one (its first take takes the whole stack onto its own list), gives
 * it back, and exits holding the rest. */
static void *take_one_and_exit(void *arg) {
  (void)arg;
  bp_callback_closure_give(bp_callback_closure_take(sizeof(record_t)));
  return NULL;
}

/* Takes `*count` closures and gives them back. */
static void *take_count(void *arg) {
  size_t count = *(size_t *)arg;
  bp_closure_link_t *list = NULL;
  for (size_t i = 0; i < count; ++i) {
    bp_closure_link_t *c = bp_callback_closure_take(sizeof(record_t));
    if (!c)
      return (void *)1;
    c->next = list;
    list = c;
  }
  while (list) {
    bp_closure_link_t *next = list->next;
    bp_callback_closure_give(list);
    list = next;
  }
  return NULL;
}

static void run_thread(void *(*fn)(void *), void *arg) {
  pthread_t thread;
  void *result = (void *)1;
  assert_int_equal(pthread_create(&thread, NULL, fn, arg), 0);
  pthread_join(thread, &result);
  assert_null(result);
}

/* A thread that exits with closures on its own list gives them back: all of
 * them can be taken again without making one. */
static void test_returned_at_thread_exit(void **state) {
  (void)state;
  size_t all = 0;
  run_thread(gather_all, &all);
  assert_true(all >= 2);
  run_thread(take_one_and_exit, NULL); /* exits holding all - 1 */
  size_t made = bp_callback_closures_made();
  run_thread(take_count, &all);
  assert_int_equal(bp_callback_closures_made(), made);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* First: the closures they count are their own. */
      cmocka_unit_test(test_reused_across_threads),
      cmocka_unit_test(test_returned_at_thread_exit),
      cmocka_unit_test(test_never_shared_while_held),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
