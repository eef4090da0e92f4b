/* The caching allocator while streams come and go, through the public API
 * on vcpu: empty_cache racing a thread that destroys streams with
 * stream-ordered allocations (it must return, and never touch a destroyed
 * stream), and the memory of destroyed streams reused by the streams after
 * them (reserved memory stays bounded; threads churning streams on a small
 * device never run out of memory; a real out-of-memory error describes the
 * allocator as its statistics do). Each vcpu device has 64 MiB. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "support/runtime_fixture.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define DEVICE_MEMORY (64 * MiB)
/* The chunks small requests come from (docs/allocator.md). */
#define SMALL_CHUNK (2 * MiB)
#define CHURN_THREADS 8
/* Threads destroying streams while one calls empty_cache. */
#define CLEANER_CHURNERS 2
/* Longest a test waits for its threads before declaring a hang. */
#define HANG_SECONDS 30

/* One thread's stream churn: `iterations` times create a stream, allocate
 * `size` bytes on it, free them on it and destroy it. */
typedef struct churn {
  bp_device_t *device;
  int iterations;
  size_t size;
  bp_status_t status; /* the first failure, BP_OK if none */
  char message[1024];
  atomic_int *running; /* churn threads still going */
} churn_t;

static void churn_fail(churn_t *c, bp_status_t status, const char *what) {
  c->status = status;
  snprintf(c->message, sizeof c->message, "%s: %s", what, bp_last_error());
}

static void *churn_main(void *arg) {
  churn_t *c = arg;
  for (int i = 0; i < c->iterations && c->status == BP_OK; i++) {
    bp_stream_t *stream = NULL;
    void *ptr = NULL;
    bp_status_t status = bp_stream_create(c->device, &stream);
    if (status != BP_OK) {
      churn_fail(c, status, "bp_stream_create");
      break;
    }
    status = bp_device_malloc_async(c->device, c->size, stream, &ptr);
    if (status != BP_OK)
      churn_fail(c, status, "bp_device_malloc_async");
    else if ((status = bp_device_free_async(c->device, ptr, stream)) != BP_OK)
      churn_fail(c, status, "bp_device_free_async");
    if ((status = bp_stream_destroy(stream)) != BP_OK && c->status == BP_OK)
      churn_fail(c, status, "bp_stream_destroy");
  }
  atomic_fetch_sub(c->running, 1);
  return NULL;
}

/* Joins `thread`; a hang ends the test program (a thread stuck in the
 * allocator cannot be stopped, so teardown would hang too). */
static void join_or_fail(pthread_t thread, const char *what) {
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += HANG_SECONDS;
  int rc = pthread_timedjoin_np(thread, NULL, &deadline);
  if (rc == ETIMEDOUT) {
    fprintf(stderr, "FAIL: %s did not return within %d s (hang)\n", what,
            HANG_SECONDS);
    _exit(1);
  }
  assert_int_equal(rc, 0);
}

static bp_memory_stats_t stats_of(bp_device_t *device) {
  bp_memory_stats_t stats;
  assert_int_equal(bp_device_memory_stats(device, &stats), BP_OK);
  return stats;
}

static void assert_churn_ok(const churn_t *c) {
  if (c->status != BP_OK)
    fail_msg("churning thread failed with %d: %s", (int)c->status, c->message);
}

/* Calls bp_device_empty_cache until the churning threads are done. */
typedef struct cleaner {
  bp_device_t *device;
  atomic_int *running;
  int calls;
  bp_status_t status;
} cleaner_t;

static void *cleaner_main(void *arg) {
  cleaner_t *c = arg;
  while (atomic_load(c->running) && c->status == BP_OK) {
    c->status = bp_device_empty_cache(c->device);
    c->calls++;
  }
  return NULL;
}

/* empty_cache records an event on every stream that holds idle chunks and
 * waits for it: a stream destroyed meanwhile must neither be recorded on
 * (its worker is gone: the wait would never end) nor read once freed. */
static void empty_cache_returns_while_streams_are_destroyed(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  atomic_int running = CLEANER_CHURNERS;
  churn_t churn[CLEANER_CHURNERS];
  pthread_t churners[CLEANER_CHURNERS], cleaning;
  cleaner_t cleaner = {.device = device, .running = &running, .status = BP_OK};
  assert_int_equal(pthread_create(&cleaning, NULL, cleaner_main, &cleaner), 0);
  for (int i = 0; i < CLEANER_CHURNERS; i++) {
    churn[i] = (churn_t){.device = device,
                         .iterations = 100,
                         .size = 4 * KiB,
                         .status = BP_OK,
                         .running = &running};
    assert_int_equal(pthread_create(&churners[i], NULL, churn_main, &churn[i]),
                     0);
  }
  for (int i = 0; i < CLEANER_CHURNERS; i++)
    join_or_fail(churners[i], "a churning thread");
  join_or_fail(cleaning, "bp_device_empty_cache");
  for (int i = 0; i < CLEANER_CHURNERS; i++)
    assert_churn_ok(&churn[i]);
  assert_int_equal(cleaner.status, BP_OK);
  assert_true(cleaner.calls > 0);
  assert_int_equal(bp_device_empty_cache(device), BP_OK);
  bp_memory_stats_t s = stats_of(device);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_int_equal(s.reserved_bytes.current, 0);
  bp_runtime_destroy(runtime);
}

/* The chunk a stream allocated from is idle once the stream is destroyed:
 * the next stream takes it instead of growing, so a create / allocate /
 * free / destroy loop holds one chunk however long it runs. */
static void destroyed_streams_chunks_are_reused(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  atomic_int running = 1;
  churn_t churn = {.device = device,
                   .iterations = 100,
                   .size = 4 * KiB,
                   .status = BP_OK,
                   .running = &running};
  churn_main(&churn);
  assert_churn_ok(&churn);
  bp_memory_stats_t s = stats_of(device);
  /* 100 streams, one 4 KiB block each: had each grown its own chunk, the
   * peak would be the whole device. */
  assert_true(s.reserved_bytes.peak <= 2 * SMALL_CHUNK);
  assert_int_equal(s.num_ooms, 0);
  assert_int_equal(s.allocated_bytes.current, 0);
  bp_runtime_destroy(runtime);
}

/* Eight threads churning streams need at most a chunk or two each at any
 * time: on a 64 MiB device none may see out-of-memory. */
static void churning_threads_never_run_out_of_memory(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  atomic_int running = CHURN_THREADS;
  churn_t churn[CHURN_THREADS];
  pthread_t threads[CHURN_THREADS];
  for (int i = 0; i < CHURN_THREADS; i++) {
    churn[i] = (churn_t){.device = device,
                         .iterations = 40,
                         .size = 4 * KiB,
                         .status = BP_OK,
                         .running = &running};
    assert_int_equal(pthread_create(&threads[i], NULL, churn_main, &churn[i]),
                     0);
  }
  for (int i = 0; i < CHURN_THREADS; i++)
    join_or_fail(threads[i], "a churning thread");
  for (int i = 0; i < CHURN_THREADS; i++)
    assert_churn_ok(&churn[i]);
  bp_memory_stats_t s = stats_of(device);
  assert_int_equal(s.num_ooms, 0);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_true(s.reserved_bytes.peak <= 2 * CHURN_THREADS * SMALL_CHUNK);
  bp_runtime_destroy(runtime);
}

int main(int argc, char **argv) {
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  setenv("BACKPLANE_VCPU_MEMORY", "64M", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(empty_cache_returns_while_streams_are_destroyed),
      cmocka_unit_test(destroyed_streams_chunks_are_reused),
      cmocka_unit_test(churning_threads_never_run_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
