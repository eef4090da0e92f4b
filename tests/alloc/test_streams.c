/* Stream-ordered reuse with fake events the test completes by hand,
 * forget_stream, empty_cache waiting for a stream, and workspaces. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "alloc/alloc_test_calls.h"
#include "alloc/fake_backend.h"
#include "backplane/status.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static void test_same_stream_reuses_at_once(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {0};
  void *p = expect_alloc(a, 4 * KiB, &s1);
  expect_free(a, p);
  assert_ptr_equal(expect_alloc(a, 4 * KiB, &s1), p);
  assert_int_equal(d.events_created, 0); /* no event on the hot path */
  expect_free(a, p);
  bp_caching_allocator_destroy(a);
}

static void test_other_stream_does_not_reuse(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {0}, s2 = {0};
  void *p = expect_alloc(a, 4 * KiB, &s1);
  expect_free(a, p); /* s1's work may still use p */
  void *q = expect_alloc(a, 4 * KiB, &s2);
  assert_ptr_not_equal(q, p);
  assert_int_equal(d.allocate_calls, 2); /* s2 got its own chunk */
  expect_free(a, q);
  bp_caching_allocator_destroy(a);
}

/* p is used on s2 too (record_stream). Until s2's work at the free is done,
 * handing p out again would let new work overwrite memory s2 still reads. */
static void test_record_stream_defers_reuse(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {0}, s2 = {0};
  void *p = expect_alloc(a, 1 * MiB, &s1); /* two fill a 2 MiB small chunk */
  void *q = expect_alloc(a, 1 * MiB, &s1);
  assert_int_equal(bp_caching_allocator_record_stream(a, p, &s2), BP_OK);
  assert_int_equal(bp_caching_allocator_record_stream(a, p, &s2), BP_OK);
  assert_int_equal(bp_caching_allocator_record_stream(a, p, &s1), BP_OK);
  expect_free(a, p);
  assert_int_equal(s2.recorded, 1); /* one event, on s2, at free time */
  assert_int_equal(s1.recorded, 0);
  assert_int_equal(bp_caching_allocator_free(a, p), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "double free"));
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.allocated_bytes.current, 1 * MiB);
  assert_int_equal(s.active_bytes.current, 2 * MiB); /* p is still active */

  void *r = expect_alloc(a, 1 * MiB, &s1);
  assert_ptr_not_equal(r, p); /* s2 has not finished: p must not come back */
  bp_caching_allocator_process_events(a);
  void *r2 = expect_alloc(a, 1 * MiB, &s1); /* fills r's chunk */
  assert_ptr_not_equal(r2, p);

  fake_stream_complete(&d, &s2);
  size_t calls = d.allocate_calls;
  /* A cache miss reclaims completed pending frees before growing. */
  void *t = expect_alloc(a, 1 * MiB, &s1);
  assert_ptr_equal(t, p);
  assert_int_equal(d.allocate_calls, calls);
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.active_bytes.current, s.allocated_bytes.current);
  expect_free(a, r);
  expect_free(a, r2);
  expect_free(a, t);
  expect_free(a, q);
  bp_caching_allocator_destroy(a);
  assert_int_equal(d.events_created, d.events_destroyed);
}

static void test_direct_free_on_stream_waits(void **state) {
  (void)state;
  fake_device_t d;
  fake_device_init(&d, 1024 * MiB);
  bp_alloc_backend_t backend = fake_backend(&d, true);
  bp_alloc_hints_t hints = {.max_chunk_size = 4 * MiB};
  bp_caching_allocator_t *a = NULL;
  assert_int_equal(bp_caching_allocator_create(&backend, &hints, &a), BP_OK);
  fake_stream_t s1 = {0};
  void *p = expect_alloc(a, 8 * MiB, &s1);
  expect_free(a, p);
  bp_caching_allocator_process_events(a);
  assert_int_equal(fake_live_size(&d, p), 8 * MiB); /* s1 may still use it */
  fake_stream_complete(&d, &s1);
  bp_caching_allocator_process_events(a);
  assert_int_equal(fake_live_size(&d, p), 0);
  assert_int_equal(d.used, 0);
  bp_caching_allocator_destroy(a);
}

static void test_forget_stream_without_events(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, false);
  fake_stream_t s1 = {0}, s2 = {0};
  void *p = expect_alloc(a, 1 * MiB, &s1);
  void *q = expect_alloc(a, 1 * MiB, &s1);
  assert_int_equal(bp_caching_allocator_record_stream(a, p, &s2), BP_OK);
  expect_free(a, p);
  bp_caching_allocator_process_events(a); /* no event: stays pending */
  void *r = expect_alloc(a, 1 * MiB, &s1);
  assert_ptr_not_equal(r, p);
  bp_caching_allocator_forget_stream(a, &s2); /* s2 is gone: p is free */
  expect_free(a, r);
  expect_free(a, q);
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.active_bytes.current, 0);
  /* Forgetting s1 hands its memory to every stream. */
  bp_caching_allocator_forget_stream(a, &s1);
  void *n = expect_alloc(a, 1 * MiB, NULL);
  assert_ptr_equal(n, p);
  expect_free(a, n);
  bp_caching_allocator_destroy(a);
}

static void test_forget_stream_moves_live_blocks(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {0};
  void *p = expect_alloc(a, 64 * KiB, &s1);
  bp_caching_allocator_forget_stream(a, &s1);
  size_t size;
  assert_int_equal(bp_caching_allocator_block_size(a, p, &size), BP_OK);
  assert_int_equal(size, 64 * KiB);
  expect_free(a, p);
  assert_ptr_equal(expect_alloc(a, 64 * KiB, NULL), p);
  expect_free(a, p);
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_int_equal(s.reserved_bytes.current, 2 * MiB);
  bp_caching_allocator_destroy(a);
}

/* A stream pool that misses takes an idle chunk of the NULL pool (here a
 * forgotten stream's) before it grows; a chunk with a live block stays. */
static void test_streams_adopt_idle_null_pool_chunks(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {0}, s2 = {0}, s3 = {0};
  void *p = expect_alloc(a, 64 * KiB, &s1);
  expect_free(a, p);
  bp_caching_allocator_forget_stream(a, &s1);
  void *q = expect_alloc(a, 4 * KiB, &s2);
  assert_ptr_equal(q, p); /* the front of s1's chunk */
  assert_int_equal(d.allocate_calls, 1);
  void *n = expect_alloc(a, 512, NULL); /* a new chunk of the NULL pool */
  assert_int_equal(d.allocate_calls, 2);
  void *r = expect_alloc(a, 4 * KiB, &s3); /* not from n's chunk */
  assert_int_equal(d.allocate_calls, 3);
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.reserved_bytes.current, 3 * 2 * MiB);
  assert_int_equal(s.allocated_bytes.current, 4 * KiB + 512 + 4 * KiB);
  expect_free(a, r);
  expect_free(a, n);
  expect_free(a, q);
  bp_caching_allocator_destroy(a);
}

typedef struct empty_cache_call {
  bp_caching_allocator_t *allocator;
  size_t released;
} empty_cache_call_t;

static void *run_empty_cache(void *arg) {
  empty_cache_call_t *call = arg;
  bp_caching_allocator_empty_cache(call->allocator, &call->released);
  return NULL;
}

static size_t recorded(fake_device_t *d, fake_stream_t *s) {
  pthread_mutex_lock(&d->mu);
  size_t n = s->recorded;
  pthread_mutex_unlock(&d->mu);
  return n;
}

static size_t used(fake_device_t *d) {
  pthread_mutex_lock(&d->mu);
  size_t n = d->used;
  pthread_mutex_unlock(&d->mu);
  return n;
}

/* An idle chunk of s1 goes back to the device only after s1's work is done:
 * the device could hand it to someone else while s1 still writes to it. */
static void test_empty_cache_waits_for_the_stream(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {0};
  expect_free(a, expect_alloc(a, 4 * KiB, &s1));
  empty_cache_call_t call = {a, 0};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, run_empty_cache, &call), 0);
  while (recorded(&d, &s1) == 0)
    sched_yield();
  assert_int_equal(used(&d), 2 * MiB); /* still waiting on s1 */
  fake_stream_complete(&d, &s1);
  pthread_join(thread, NULL);
  assert_int_equal(call.released, 2 * MiB);
  assert_int_equal(used(&d), 0);
  bp_caching_allocator_destroy(a);
}

static void test_workspaces_are_lifo_scratch(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {0};
  char *w[3];
  for (int i = 0; i < 3; i++)
    assert_int_equal(
        bp_caching_allocator_workspace_alloc(a, 1000, &s1, (void **)&w[i]),
        BP_OK);
  assert_ptr_equal(w[1], w[0] + 1024); /* bump, 256-byte aligned */
  assert_ptr_equal(w[2], w[1] + 1024);
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.allocated_bytes.current, 1 * MiB); /* one slab */
  /* Out of order: w[1] is reclaimed once w[2] is freed. */
  assert_int_equal(bp_caching_allocator_workspace_free(a, &s1, w[1]), BP_OK);
  assert_int_equal(bp_caching_allocator_workspace_free(a, &s1, w[1]),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_caching_allocator_workspace_free(a, &s1, w[2]), BP_OK);
  char *again;
  assert_int_equal(
      bp_caching_allocator_workspace_alloc(a, 10, &s1, (void **)&again), BP_OK);
  assert_ptr_equal(again, w[1]);
  /* A slab is not freed by the data-space call, nor by another stream. */
  assert_int_equal(bp_caching_allocator_free(a, w[0]), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_caching_allocator_workspace_free(a, NULL, w[0]),
                   BP_ERR_INVALID_ARGUMENT);
  /* Too big for the slab: a second slab; once the stack empties, the two
   * merge into one of the stack's peak (1024 + 256 + 3 MiB bytes of frames,
   * rounded to the 512-byte minimum block). */
  char *big;
  assert_int_equal(
      bp_caching_allocator_workspace_alloc(a, 3 * MiB, &s1, (void **)&big),
      BP_OK);
  assert_int_equal(bp_caching_allocator_workspace_free(a, &s1, big), BP_OK);
  assert_int_equal(bp_caching_allocator_workspace_free(a, &s1, again), BP_OK);
  assert_int_equal(bp_caching_allocator_workspace_free(a, &s1, w[0]), BP_OK);
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_int_equal(
      bp_caching_allocator_workspace_alloc(a, 10, &s1, (void **)&again), BP_OK);
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.allocated_bytes.current, 3 * MiB + 1536);
  /* Destroying the stream releases its workspaces. */
  bp_caching_allocator_forget_stream(a, &s1);
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.allocated_bytes.current, 0);
  bp_caching_allocator_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_stream_reuses_at_once),
      cmocka_unit_test(test_other_stream_does_not_reuse),
      cmocka_unit_test(test_record_stream_defers_reuse),
      cmocka_unit_test(test_direct_free_on_stream_waits),
      cmocka_unit_test(test_forget_stream_without_events),
      cmocka_unit_test(test_forget_stream_moves_live_blocks),
      cmocka_unit_test(test_streams_adopt_idle_null_pool_chunks),
      cmocka_unit_test(test_empty_cache_waits_for_the_stream),
      cmocka_unit_test(test_workspaces_are_lifo_scratch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
