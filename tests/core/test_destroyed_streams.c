/* The caching allocator while streams come and go, through the public API
 * on vcpu: empty_cache racing a thread that destroys streams with
 * stream-ordered allocations (it must return, and never touch a destroyed
 * stream), and the memory of destroyed streams reused by the streams after
 * them (reserved memory stays bounded; threads churning streams on a small
 * device never run out of memory; a real out-of-memory error describes the
 * allocator as its statistics do), and blocks recorded on a stream destroyed
 * before their free. Each vcpu device has 64 MiB. */
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

/* Allocates FILL_BLOCK blocks with no stream until the device is full (the
 * churn's idle chunks still cached must be released for it), then checks
 * that the out-of-memory message describes the allocator as its statistics
 * and the device do (explaining free memory it could not use), and that
 * nothing reclaimable was left: every free byte is the split-off rest of an
 * allocated block's chunk. */
#define FILL_BLOCK (5 * MiB)
#define MAX_FILL (DEVICE_MEMORY / FILL_BLOCK + 1)
static void fill_until_out_of_memory(bp_device_t *device) {
  void *blocks[MAX_FILL];
  size_t count = 0;
  bp_status_t status = BP_OK;
  while (count < MAX_FILL &&
         (status = bp_device_malloc_async(device, FILL_BLOCK, NULL,
                                          &blocks[count])) == BP_OK)
    count++;
  assert_int_equal(status, BP_ERR_OUT_OF_MEMORY);
  assert_true(count >= DEVICE_MEMORY / 2 / FILL_BLOCK);
  unsigned long long allocated = 0, reserved = 0, device_free = 0, largest = 0;
  const char *counts = strstr(bp_last_error(), "alignment): ");
  assert_non_null(counts);
  int fields = sscanf(counts,
                      "alignment): %llu bytes allocated, %llu reserved "
                      "(max_alloc_size %*u), %llu free on the device, "
                      "largest free cached block %llu",
                      &allocated, &reserved, &device_free, &largest);
  if (fields != 4)
    fail_msg("unexpected out-of-memory message: %s", bp_last_error());
  bp_memory_stats_t s = stats_of(device);
  size_t total = 0, free_now = 0;
  assert_int_equal(bp_device_memory_info(device, &total, &free_now), BP_OK);
  assert_int_equal(allocated, s.allocated_bytes.current);
  assert_int_equal(reserved, s.reserved_bytes.current);
  assert_int_equal(device_free, free_now);
  assert_int_equal(total - free_now, reserved); /* the device's only user */
  /* The churn's chunks were released between the fill's: the device's free
   * memory may be in pieces, which the message must then say. */
  if (device_free >= FILL_BLOCK)
    assert_error_mentions("fragmented");
  assert_true(largest < FILL_BLOCK);
  assert_int_equal(s.reserved_bytes.current - s.allocated_bytes.current,
                   s.inactive_split_bytes.current);
  assert_int_equal(s.num_ooms, 1);
  for (size_t i = 0; i < count; i++)
    assert_int_equal(bp_device_free_async(device, blocks[i], NULL), BP_OK);
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
  fill_until_out_of_memory(device);
  bp_runtime_destroy(runtime);
}

/* A stream recorded on a block and destroyed before the block's free: the
 * destroyed stream has no work left, so the free completes at once (the
 * plugin's stream is gone: recording on it cannot tell). */
static void blocks_recorded_on_destroyed_streams_are_reclaimed(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  bp_stream_t *stream = NULL;
  void *ptr = NULL;
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_device_malloc_async(device, 4 * KiB, NULL, &ptr), BP_OK);
  assert_int_equal(bp_device_record_stream(device, ptr, stream), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  assert_int_equal(bp_device_free_async(device, ptr, NULL), BP_OK);
  assert_int_equal(bp_device_empty_cache(device), BP_OK);
  bp_memory_stats_t s = stats_of(device);
  assert_int_equal(s.active_bytes.current, 0);
  assert_int_equal(s.reserved_bytes.current, 0);
  bp_runtime_destroy(runtime);
}

int main(void) {
  setenv("BACKPLANE_VCPU_MEMORY", "64M", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(empty_cache_returns_while_streams_are_destroyed),
      cmocka_unit_test(destroyed_streams_chunks_are_reused),
      cmocka_unit_test(churning_threads_never_run_out_of_memory),
      cmocka_unit_test(blocks_recorded_on_destroyed_streams_are_reclaimed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
