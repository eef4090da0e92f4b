/* Threads allocating and freeing at once, on their own streams and on the
 * shared NULL stream, freeing each other's blocks, with record_stream,
 * empty_cache, snapshots and stats running beside them. Every pointer handed
 * out must be unique among live ones; at the end nothing is allocated. Run
 * under ThreadSanitizer (label concurrency). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "alloc/fake_backend.h"
#include "backplane/status.h"

#define THREADS 4
#define ROUNDS 20000
#define SLOTS 32
#define LIVE_MAX (THREADS * SLOTS + THREADS * 4)

typedef struct shared {
  fake_device_t device;
  bp_caching_allocator_t *allocator;
  fake_stream_t streams[THREADS];
  /* Live pointers, to catch one handed out twice. */
  pthread_mutex_t live_mu;
  uintptr_t live[LIVE_MAX];
  /* A one-slot mailbox per thread for blocks another thread frees. */
  _Atomic(void *) mailbox[THREADS];
  atomic_int failures;
  atomic_bool done;
} shared_t;

static void live_add(shared_t *s, void *p) {
  pthread_mutex_lock(&s->live_mu);
  int free_slot = -1;
  for (int i = 0; i < LIVE_MAX; i++) {
    if (s->live[i] == (uintptr_t)p)
      atomic_fetch_add(&s->failures, 1); /* handed out twice */
    if (!s->live[i] && free_slot < 0)
      free_slot = i;
  }
  if (free_slot < 0)
    atomic_fetch_add(&s->failures, 1);
  else
    s->live[free_slot] = (uintptr_t)p;
  pthread_mutex_unlock(&s->live_mu);
}

static void live_remove(shared_t *s, void *p) {
  pthread_mutex_lock(&s->live_mu);
  int found = 0;
  for (int i = 0; i < LIVE_MAX; i++)
    if (s->live[i] == (uintptr_t)p) {
      s->live[i] = 0;
      found = 1;
    }
  pthread_mutex_unlock(&s->live_mu);
  if (!found)
    atomic_fetch_add(&s->failures, 1);
}

typedef struct worker {
  shared_t *shared;
  int index;
} worker_t;

static size_t pick_size(unsigned *seed) {
  static const size_t sizes[] = {1,       512,     4000,    65536,
                                 1000000, 1 << 21, 3 << 20, 24 << 20};
  return sizes[rand_r(seed) % 8];
}

static void drop(shared_t *s, void *p) {
  live_remove(s, p);
  if (bp_caching_allocator_free(s->allocator, p) != BP_OK)
    atomic_fetch_add(&s->failures, 1);
}

static void *work(void *arg) {
  worker_t *w = arg;
  shared_t *s = w->shared;
  unsigned seed = (unsigned)w->index * 7919u + 1;
  /* Even threads use their own stream, odd ones share the NULL stream. */
  void *stream = w->index % 2 ? NULL : &s->streams[w->index];
  void *slots[SLOTS] = {0};
  for (int round = 0; round < ROUNDS; round++) {
    int i = rand_r(&seed) % SLOTS;
    if (slots[i]) {
      if (rand_r(&seed) % 8 == 0) {
        /* Used on a neighbour's stream too, or handed to it to free. */
        int other = (w->index + 1) % THREADS;
        bp_caching_allocator_record_stream(s->allocator, slots[i],
                                           &s->streams[other]);
        void *expected = NULL;
        if (atomic_compare_exchange_strong(&s->mailbox[other], &expected,
                                           slots[i])) {
          slots[i] = NULL;
          continue;
        }
      }
      drop(s, slots[i]);
      slots[i] = NULL;
    } else {
      void *p = NULL;
      bp_status_t status = bp_caching_allocator_malloc(
          s->allocator, pick_size(&seed), stream, &p);
      if (status == BP_OK) {
        live_add(s, p);
        slots[i] = p;
      } else if (status != BP_ERR_OUT_OF_MEMORY) {
        atomic_fetch_add(&s->failures, 1);
      }
    }
    void *mail = atomic_exchange(&s->mailbox[w->index], NULL);
    if (mail)
      drop(s, mail);
    if (round % 64 == 0) {
      void *ws = NULL;
      if (bp_caching_allocator_workspace_alloc(s->allocator, 4096, stream,
                                               &ws) == BP_OK &&
          bp_caching_allocator_workspace_free(s->allocator, stream, ws) !=
              BP_OK)
        atomic_fetch_add(&s->failures, 1);
    }
  }
  for (int i = 0; i < SLOTS; i++)
    if (slots[i])
      drop(s, slots[i]);
  return NULL;
}

static void *observe(void *arg) {
  shared_t *s = arg;
  while (!atomic_load(&s->done)) {
    bp_memory_stats_t stats;
    bp_caching_allocator_stats(s->allocator, &stats);
    char *json = NULL;
    if (bp_caching_allocator_snapshot_json(s->allocator, &json) == BP_OK)
      free(json);
    bp_caching_allocator_empty_cache(s->allocator, NULL);
  }
  return NULL;
}

static void test_threads_share_the_allocator(void **state) {
  (void)state;
  shared_t *s = calloc(1, sizeof *s);
  fake_device_init(&s->device, (size_t)256 << 20); /* tight: OOM paths run */
  pthread_mutex_init(&s->live_mu, NULL);
  for (int i = 0; i < THREADS; i++)
    s->streams[i].immediate = true;
  bp_alloc_backend_t backend = fake_backend(&s->device, true);
  assert_int_equal(bp_caching_allocator_create(&backend, NULL, &s->allocator),
                   BP_OK);
  pthread_t threads[THREADS], observer;
  worker_t workers[THREADS];
  assert_int_equal(pthread_create(&observer, NULL, observe, s), 0);
  for (int i = 0; i < THREADS; i++) {
    workers[i] = (worker_t){s, i};
    assert_int_equal(pthread_create(&threads[i], NULL, work, &workers[i]), 0);
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(threads[i], NULL);
  atomic_store(&s->done, true);
  pthread_join(observer, NULL);
  for (int i = 0; i < THREADS; i++) {
    void *mail = atomic_exchange(&s->mailbox[i], NULL);
    if (mail)
      drop(s, mail);
  }
  assert_int_equal(atomic_load(&s->failures), 0);
  /* Workspace slabs stay allocated until empty_cache trims them (the
   * observer may or may not have run after a thread's last frame). */
  assert_int_equal(bp_caching_allocator_empty_cache(s->allocator, NULL), BP_OK);
  bp_memory_stats_t stats;
  bp_caching_allocator_stats(s->allocator, &stats);
  assert_int_equal(stats.allocated_bytes.current, 0);
  assert_int_equal(stats.requested_bytes.current, 0);
  assert_int_equal(stats.active_bytes.current, 0);
  assert_int_equal(stats.inactive_split_bytes.current, 0);
  assert_int_equal(stats.reserved_bytes.current, 0);
  assert_int_equal(s->device.used, 0);
  bp_caching_allocator_destroy(s->allocator);
  assert_int_equal(s->device.events_created, s->device.events_destroyed);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_share_the_allocator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
