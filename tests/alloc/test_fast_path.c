/* The allocator's hot paths: with no stream, the thread's cache of small
 * blocks (thread_cache.h); on a stream, the stream pool's lock held by the
 * bias. Statistics and peaks stay exact while blocks come and go through
 * them, in step with a model the test keeps of every live allocation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "alloc/alloc_internal.h"
#include "alloc/alloc_test_calls.h"
#include "alloc/fake_backend.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

enum { SLOTS = 8, STEPS = 4000, WARM_UP = 1000 };

typedef struct model {
  void *stream; /* allocated and freed on, NULL: none */
  void *ptr[SLOTS];
  size_t requested[SLOTS];
  uint64_t allocated, requested_total, peak_allocated, peak_requested;
} model_t;

/* The default rounding (min_chunk 512, no padding), computed here. */
static size_t rounded(size_t size) {
  return size ? (size + 511) / 512 * 512 : 512;
}

static void check(bp_caching_allocator_t *a, const model_t *m) {
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.allocated_bytes.current, m->allocated);
  assert_int_equal(s.active_bytes.current, m->allocated);
  assert_int_equal(s.requested_bytes.current, m->requested_total);
  assert_int_equal(s.allocated_bytes.peak, m->peak_allocated);
  assert_int_equal(s.active_bytes.peak, m->peak_allocated);
  assert_int_equal(s.requested_bytes.peak, m->peak_requested);
}

static void model_alloc(bp_caching_allocator_t *a, model_t *m, int slot,
                        size_t size) {
  m->ptr[slot] = expect_alloc(a, size, m->stream);
  m->requested[slot] = size;
  m->allocated += rounded(size);
  m->requested_total += size;
  if (m->allocated > m->peak_allocated)
    m->peak_allocated = m->allocated;
  if (m->requested_total > m->peak_requested)
    m->peak_requested = m->requested_total;
}

static void model_free(bp_caching_allocator_t *a, model_t *m, int slot) {
  assert_int_equal(
      bp_caching_allocator_free_on_stream(a, m->ptr[slot], m->stream), BP_OK);
  m->allocated -= rounded(m->requested[slot]);
  m->requested_total -= m->requested[slot];
  m->ptr[slot] = NULL;
}

static void run_model(void *stream) {
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  model_t m;
  memset(&m, 0, sizeof m);
  m.stream = stream;
  for (int i = 0; i < WARM_UP; i++) {
    model_alloc(a, &m, 0, 512);
    model_free(a, &m, 0);
  }
  if (stream) { /* the stream's pool is this thread's: its hot path */
    bp_alloc_pool_t *pool = bp_alloc_pool_for(a, stream);
    assert_ptr_equal(atomic_load(&pool->mu.bias), bp_lock_owner_self);
  } else { /* the freed block sits in the thread's cache */
    assert_int_equal(current_stats(a).thread_cached_blocks, 1);
    assert_int_equal(current_stats(a).thread_cached_bytes, 512);
  }
  uint32_t seed = 12345;
  for (int step = 0; step < STEPS; step++) {
    seed = seed * 1103515245u + 12345u;
    int slot = (int)((seed >> 16) % SLOTS);
    /* A few sizes, so hot-cache bins hit and miss, with requests both at
     * and below their rounded size. */
    static const size_t sizes[] = {512, 500, 1 * KiB, 1000, 3 * KiB, 1};
    size_t size = sizes[(seed >> 8) % (sizeof sizes / sizeof *sizes)];
    if (m.ptr[slot])
      model_free(a, &m, slot);
    else
      model_alloc(a, &m, slot, size);
    if (step % 997 == 0) {
      bp_caching_allocator_reset_peaks(a);
      m.peak_allocated = m.allocated;
      m.peak_requested = m.requested_total;
    }
    check(a, &m);
  }
  for (int slot = 0; slot < SLOTS; slot++)
    if (m.ptr[slot])
      model_free(a, &m, slot);
  check(a, &m);
  bp_caching_allocator_destroy(a);
}

static void test_stats_and_peaks_stay_exact(void **state) {
  (void)state;
  run_model(NULL);
}

static void test_stats_and_peaks_stay_exact_on_a_stream(void **state) {
  (void)state;
  fake_stream_t s = {.immediate = true};
  run_model(&s);
}

/* The hot path (here the thread's cache) refuses what is not a live block,
 * as the general path does. */
static void test_double_free_through_the_hot_path(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  for (int i = 0; i < WARM_UP; i++)
    expect_free(a, expect_alloc(a, 512, NULL));
  void *p = expect_alloc(a, 512, NULL);
  expect_free(a, p);
  assert_int_equal(current_stats(a).thread_cached_blocks, 1);
  assert_int_equal(bp_caching_allocator_free(a, p), BP_ERR_INVALID_ARGUMENT);
  int dummy;
  assert_int_equal(bp_caching_allocator_free(a, &dummy),
                   BP_ERR_INVALID_ARGUMENT);
  /* Nothing was disturbed: the block comes back once, then a new one. */
  void *q = expect_alloc(a, 512, NULL);
  void *r = expect_alloc(a, 512, NULL);
  assert_ptr_equal(q, p);
  assert_ptr_not_equal(r, p);
  assert_int_equal(current_stats(a).allocated_bytes.current, 1 * KiB);
  expect_free(a, q);
  expect_free(a, r);
  bp_caching_allocator_destroy(a);
}

/* The hot path's memo of the block it handed out last must not outlive the
 * block's chunk in its pool: forget_stream moves the chunk away. */
static void test_free_after_forget_stream(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s = {.immediate = true};
  for (int i = 0; i < WARM_UP; i++)
    assert_int_equal(
        bp_caching_allocator_free_on_stream(a, expect_alloc(a, 512, &s), &s),
        BP_OK);
  void *p = expect_alloc(a, 512, &s); /* by the hot path */
  bp_caching_allocator_forget_stream(a, &s);
  /* Freed on the forgotten stream: found in the pool its chunk went to. */
  assert_int_equal(bp_caching_allocator_free_on_stream(a, p, &s), BP_OK);
  assert_int_equal(bp_caching_allocator_free_on_stream(a, p, &s),
                   BP_ERR_INVALID_ARGUMENT);
  bp_memory_stats_t stats = current_stats(a);
  assert_int_equal(stats.allocated_bytes.current, 0);
  assert_int_equal(stats.allocated_bytes.peak, 512);
  /* The block went back to the pool that owns its chunk now, pending there
   * (freed on a stream that is not that pool's): still active until its
   * event is seen, not cached idle in the stream's pool. */
  assert_int_equal(stats.active_bytes.current, 512);
  void *q = expect_alloc(a, 512, &s);
  assert_int_equal(bp_caching_allocator_free_on_stream(a, q, &s), BP_OK);
  bp_caching_allocator_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stats_and_peaks_stay_exact),
      cmocka_unit_test(test_stats_and_peaks_stay_exact_on_a_stream),
      cmocka_unit_test(test_double_free_through_the_hot_path),
      cmocka_unit_test(test_free_after_forget_stream),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
