/* Several threads using one runtime at once: lazy device initialization
 * races, streams, events, allocations and copies from every thread (vcpu
 * with jitter, so ordering bugs surface as wrong data), and the allocator's
 * per-thread caches seen through bp_device_memory_stats. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "plugins/corpus/stub_plugin.h"
#include "support/runtime_fixture.h"

enum { THREADS = 4, ROUNDS = 20, N = 8192 };

typedef struct worker {
  bp_runtime_t *runtime;
  int index;
  int failures;
} worker_t;

static pthread_barrier_t start_line;

static void *first_use(void *arg) {
  worker_t *w = arg;
  pthread_barrier_wait(&start_line);
  for (size_t d = 0; d < bp_device_count(w->runtime); ++d) {
    bp_device_t *device;
    if (bp_device_at(w->runtime, d, &device) != BP_OK ||
        bp_device_synchronize(device) != BP_OK)
      w->failures++;
  }
  return NULL;
}

/* init_device runs exactly once per device however many threads race. */
static void lazy_init_races(void **state) {
  (void)state;
  void *handle = dlopen(STUB_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(handle);
  void *symbol = dlsym(handle, "stub_counters");
  stub_counters_fn counters_fn;
  memcpy(&counters_fn, &symbol, sizeof counters_fn);
  stub_counters_t *counters = counters_fn();
  size_t before = counters->init_device;
  bp_runtime_t *runtime = fixture_runtime(STUB_PLUGIN);
  pthread_t threads[THREADS];
  worker_t workers[THREADS];
  pthread_barrier_init(&start_line, NULL, THREADS);
  for (int i = 0; i < THREADS; ++i) {
    workers[i] = (worker_t){runtime, i, 0};
    assert_int_equal(pthread_create(&threads[i], NULL, first_use, &workers[i]),
                     0);
  }
  for (int i = 0; i < THREADS; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(workers[i].failures, 0);
  }
  pthread_barrier_destroy(&start_line);
  assert_int_equal(counters->init_device, before + STUB_DEVICE_COUNT);
  bp_runtime_destroy(runtime);
  dlclose(handle);
}

static int round_trip(bp_device_t *a, bp_device_t *b, unsigned seed) {
  unsigned char src[N], dst[N];
  for (int i = 0; i < N; ++i)
    src[i] = (unsigned char)(i * 7u + seed);
  memset(dst, 0, N);
  bp_stream_t *sa = NULL, *sb = NULL;
  bp_event_t *event = NULL;
  void *da = NULL, *db = NULL;
  int ok = bp_stream_create(a, &sa) == BP_OK &&
           bp_stream_create(b, &sb) == BP_OK &&
           bp_event_create(a, &event) == BP_OK &&
           bp_device_malloc(a, N, &da) == BP_OK &&
           bp_device_malloc(b, N, &db) == BP_OK &&
           bp_copy(a, da, NULL, src, N, sa) == BP_OK &&
           bp_event_record(event, sa) == BP_OK &&
           bp_stream_wait_event(sb, event) == BP_OK &&
           bp_copy(b, db, a, da, N, sb) == BP_OK &&
           bp_stream_sync_from_to(sb, sa) == BP_OK &&
           bp_copy(NULL, dst, b, db, N, sb) == BP_OK &&
           bp_stream_synchronize(sb) == BP_OK && memcmp(src, dst, N) == 0;
  ok &= bp_stream_synchronize(sa) == BP_OK;
  ok &= bp_device_free(a, da) == BP_OK && bp_device_free(b, db) == BP_OK;
  ok &= bp_event_destroy(event) == BP_OK;
  ok &= bp_stream_destroy(sa) == BP_OK && bp_stream_destroy(sb) == BP_OK;
  return ok;
}

static void *traffic(void *arg) {
  worker_t *w = arg;
  size_t count = bp_device_count(w->runtime);
  pthread_barrier_wait(&start_line);
  for (int r = 0; r < ROUNDS; ++r) {
    bp_device_t *a, *b;
    if (bp_device_at(w->runtime, (size_t)(w->index + r) % count, &a) != BP_OK ||
        bp_device_at(w->runtime, (size_t)(w->index + r + 1) % count, &b) !=
            BP_OK ||
        !round_trip(a, b, (unsigned)(w->index * 100 + r)))
      w->failures++;
  }
  return NULL;
}

static void streams_and_copies_from_many_threads(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN ":" STUB_PLUGIN);
  assert_int_equal(bp_runtime_plugin_count(runtime), 2);
  pthread_t threads[THREADS];
  worker_t workers[THREADS];
  pthread_barrier_init(&start_line, NULL, THREADS);
  for (int i = 0; i < THREADS; ++i) {
    workers[i] = (worker_t){runtime, i, 0};
    assert_int_equal(pthread_create(&threads[i], NULL, traffic, &workers[i]),
                     0);
  }
  for (int i = 0; i < THREADS; ++i) {
    pthread_join(threads[i], NULL);
    if (workers[i].failures)
      fail_msg("thread %d: %d failed rounds; last error: %s", i,
               workers[i].failures, bp_last_error());
  }
  pthread_barrier_destroy(&start_line);
  bp_runtime_destroy(runtime);
}

/* Each cacher allocates and frees through the framework face (after a
 * warm-up the thread cache's inlined hits), parks at the barrier with its
 * blocks freed into its cache, then does it again and exits. */
enum { CACHERS = 4, PAIRS = 2000, KEPT = 3 };

typedef struct cacher {
  bp_device_t *device;
  pthread_barrier_t *barrier;
  uint64_t allocated_bytes; /* rounded, as the allocator counts them */
  int failures;
} cacher_t;

static void cacher_round(cacher_t *c) {
  for (int i = 0; i < PAIRS; ++i) {
    void *p = NULL;
    if (bp_device_malloc(c->device, 500, &p) != BP_OK ||
        bp_device_free(c->device, p) != BP_OK)
      c->failures++;
    c->allocated_bytes += 512;
  }
  void *kept[KEPT] = {NULL};
  for (int i = 0; i < KEPT; ++i) {
    if (bp_device_malloc(c->device, 1000, &kept[i]) != BP_OK)
      c->failures++;
    c->allocated_bytes += 1024;
  }
  for (int i = 0; i < KEPT; ++i)
    if (bp_device_free(c->device, kept[i]) != BP_OK)
      c->failures++;
}

static void *cache_and_park(void *arg) {
  cacher_t *c = arg;
  cacher_round(c);
  pthread_barrier_wait(c->barrier); /* the main thread looks */
  pthread_barrier_wait(c->barrier);
  cacher_round(c);
  return NULL;
}

static bp_memory_stats_t stats_of(bp_device_t *device) {
  bp_memory_stats_t s;
  memset(&s, 0, sizeof s);
  assert_int_equal(bp_device_memory_stats(device, &s), BP_OK);
  return s;
}

/* Nothing live: the counters balance, and what the threads' caches hold is
 * within their bound (16 blocks per size, 1 MiB per thread). */
static void expect_idle(bp_device_t *device, uint64_t allocated) {
  bp_memory_stats_t s = stats_of(device);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_int_equal(s.active_bytes.current, 0);
  assert_int_equal(s.requested_bytes.current, 0);
  assert_int_equal(s.allocated_bytes.allocated, allocated);
  assert_int_equal(s.allocated_bytes.freed, allocated);
  /* At least one thread's kept blocks, at most every thread's at once. */
  assert_true(s.allocated_bytes.peak >= KEPT * 1024);
  assert_true(s.allocated_bytes.peak <= CACHERS * (KEPT * 1024 + 512));
  assert_true(s.thread_cached_blocks <= CACHERS * (1 + KEPT));
  assert_true(s.thread_cached_bytes <= CACHERS * (512 + KEPT * 1024));
  /* Free blocks of split chunks, cached or not, are inactive split bytes;
   * nothing is allocated, so every chunk is free: split or whole. */
  assert_true(s.inactive_split_bytes.current <= s.reserved_bytes.current);
}

/* Blocks in the threads' caches go back to the pool on bp_device_empty_cache
 * while the threads live and when they exit: every chunk is then idle and
 * released to the device. */
static void thread_caches_drained_by_empty_cache_and_exit(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(STUB_PLUGIN);
  bp_device_t *device;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, CACHERS + 1);
  pthread_t threads[CACHERS];
  cacher_t cachers[CACHERS];
  for (int i = 0; i < CACHERS; ++i) {
    cachers[i] = (cacher_t){device, &barrier, 0, 0};
    assert_int_equal(
        pthread_create(&threads[i], NULL, cache_and_park, &cachers[i]), 0);
  }
  pthread_barrier_wait(&barrier);
  uint64_t allocated = 0;
  for (int i = 0; i < CACHERS; ++i)
    allocated += cachers[i].allocated_bytes;
  expect_idle(device, allocated);
  assert_true(stats_of(device).thread_cached_blocks > 0);
  assert_int_equal(bp_device_empty_cache(device), BP_OK);
  bp_memory_stats_t s = stats_of(device);
  assert_int_equal(s.thread_cached_blocks, 0);
  assert_int_equal(s.thread_cached_bytes, 0);
  assert_int_equal(s.reserved_bytes.current, 0);
  assert_int_equal(s.inactive_split_bytes.current, 0);
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < CACHERS; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(cachers[i].failures, 0);
  }
  allocated = 0;
  for (int i = 0; i < CACHERS; ++i)
    allocated += cachers[i].allocated_bytes;
  expect_idle(device, allocated);
  s = stats_of(device);
  assert_int_equal(s.thread_cached_blocks, 0); /* returned at thread exit */
  assert_int_equal(s.thread_cached_bytes, 0);
  assert_int_equal(bp_device_empty_cache(device), BP_OK);
  assert_int_equal(stats_of(device).reserved_bytes.current, 0);
  pthread_barrier_destroy(&barrier);
  bp_runtime_destroy(runtime);
}

int main(void) {
  setenv("BACKPLANE_VCPU_JITTER_US", "20", 1);
  setenv("BACKPLANE_VCPU_MEMORY", "64M", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lazy_init_races),
      cmocka_unit_test(streams_and_copies_from_many_threads),
      cmocka_unit_test(thread_caches_drained_by_empty_cache_and_exit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
