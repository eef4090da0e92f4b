/* The hot cache of freed blocks (src/alloc/hot_cache.h): exact-size LIFO
 * reuse, emptied on a miss, by empty_cache, on out-of-memory and by
 * forget_stream; frees of cached blocks refused; statistics and peaks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "alloc/alloc_test_calls.h"
#include "alloc/fake_backend.h"
#include "alloc/hot_cache.h"
#include "backplane/status.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static void test_same_size_reuses_last_freed(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  char *x = expect_alloc(a, 4 * KiB, NULL);
  char *y = expect_alloc(a, 4 * KiB, NULL);
  expect_free(a, x);
  expect_free(a, y);
  /* Last in, first out, at exactly the rounded size (4000 rounds to 4 KiB). */
  assert_ptr_equal(expect_alloc(a, 4000, NULL), y);
  assert_ptr_equal(expect_alloc(a, 4 * KiB, NULL), x);
  size_t size = 0;
  assert_int_equal(bp_caching_allocator_block_size(a, y, &size), BP_OK);
  assert_int_equal(size, 4000);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.allocated_bytes.current, 8 * KiB);
  assert_int_equal(s.requested_bytes.current, 4000 + 4 * KiB);
  assert_int_equal(s.active_bytes.current, 8 * KiB);
  assert_int_equal(s.inactive_split_bytes.current, 2 * MiB - 8 * KiB);
  assert_int_equal(d.allocate_calls, 1);
  expect_free(a, x);
  expect_free(a, y);
  bp_caching_allocator_destroy(a);
}

static void test_cached_block_counts_as_free(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  void *p = expect_alloc(a, 1000, NULL); /* 1024 */
  expect_free(a, p);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_int_equal(s.allocated_bytes.freed, 1024);
  assert_int_equal(s.requested_bytes.current, 0);
  assert_int_equal(s.active_bytes.current, 0);
  /* The block and the rest of its chunk, unmerged. */
  assert_int_equal(s.inactive_split_bytes.current, 2 * MiB);
  assert_int_equal(s.reserved_bytes.current, 2 * MiB);
  bp_caching_allocator_destroy(a);
}

static void test_freeing_a_cached_block_is_refused(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {0};
  void *p = expect_alloc(a, 512, NULL);
  expect_free(a, p);
  bp_memory_stats_t before = current_stats(a);
  assert_int_equal(bp_caching_allocator_free(a, p), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "not a live allocation"));
  assert_int_equal(bp_caching_allocator_free_on_stream(a, p, &s1),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_caching_allocator_record_stream(a, p, &s1),
                   BP_ERR_INVALID_ARGUMENT);
  size_t size;
  assert_int_equal(bp_caching_allocator_block_size(a, p, &size),
                   BP_ERR_INVALID_ARGUMENT);
  bp_memory_stats_t after = current_stats(a);
  assert_memory_equal(&before, &after, sizeof before);
  /* Still cached exactly once: one hit, then a fresh block. */
  void *q = expect_alloc(a, 512, NULL);
  void *r = expect_alloc(a, 512, NULL);
  assert_ptr_equal(q, p);
  assert_ptr_not_equal(r, p);
  expect_free(a, q);
  expect_free(a, r);
  bp_caching_allocator_destroy(a);
}

static void test_miss_sees_merged_blocks(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  char *x = expect_alloc(a, 1 * KiB, NULL);
  char *y = expect_alloc(a, 1 * KiB, NULL);
  char *keep = expect_alloc(a, 1 * KiB, NULL);
  expect_free(a, x);
  expect_free(a, y);
  /* No 2 KiB block is cached: the cache empties into the free tree, x and y
   * merge, and best fit takes the 2 KiB hole. */
  assert_ptr_equal(expect_alloc(a, 2 * KiB, NULL), x);
  assert_int_equal(current_stats(a).inactive_split_bytes.current,
                   2 * MiB - 3 * KiB);
  expect_free(a, x);
  expect_free(a, keep);
  bp_caching_allocator_destroy(a);
}

static void test_bin_depth_is_bounded(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  enum { COUNT = BP_HOT_CACHE_DEPTH + 2 };
  char *p[COUNT];
  for (int i = 0; i < COUNT; i++)
    p[i] = expect_alloc(a, 512, NULL);
  for (int i = 0; i < COUNT; i++)
    expect_free(a, p[i]);
  /* The last two found the bin full and merged with the free rest of the
   * chunk; the others are handed out again newest first. */
  for (int i = BP_HOT_CACHE_DEPTH - 1; i >= 0; i--)
    assert_ptr_equal(expect_alloc(a, 512, NULL), p[i]);
  assert_int_equal(current_stats(a).allocated_bytes.current,
                   BP_HOT_CACHE_DEPTH * 512);
  for (int i = 0; i < BP_HOT_CACHE_DEPTH; i++)
    expect_free(a, p[i]);
  bp_caching_allocator_destroy(a);
}

static void test_empty_cache_returns_cached_chunks(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {.immediate = true};
  /* The stream first: a stream pool that misses would take the NULL pool's
   * idle chunk instead of growing its own. */
  expect_free(a, expect_alloc(a, 64 * KiB, &s1));
  expect_free(a, expect_alloc(a, 512, NULL));
  expect_free(a, expect_alloc(a, 3 * MiB, NULL));
  assert_int_equal(d.used, 2 * MiB + 20 * MiB + 2 * MiB);
  size_t released = 0;
  assert_int_equal(bp_caching_allocator_empty_cache(a, &released), BP_OK);
  assert_int_equal(released, 2 * MiB + 20 * MiB + 2 * MiB);
  assert_int_equal(d.used, 0);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.reserved_bytes.current, 0);
  assert_int_equal(s.inactive_split_bytes.current, 0);
  bp_caching_allocator_destroy(a);
}

static void test_out_of_memory_empties_the_cache(void **state) {
  (void)state;
  fake_device_t d;
  /* max_alloc_size is the device's 2 MiB: s1's small chunk takes it all. */
  bp_caching_allocator_t *a = expect_allocator(&d, 2 * MiB, true);
  fake_stream_t s1 = {.immediate = true};
  void *p = expect_alloc(a, 512, &s1);
  assert_int_equal(bp_caching_allocator_free_on_stream(a, p, &s1), BP_OK);
  /* A large request needs a chunk of its own: s1's cached block must go back
   * to its free tree so that the idle chunk can be released. */
  void *big = expect_alloc(a, (size_t)(1.5 * MiB), NULL);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.num_alloc_retries, 1);
  assert_int_equal(s.num_ooms, 0);
  assert_int_equal(s.num_device_free, 1);
  assert_int_equal(s.reserved_bytes.current, 2 * MiB);
  assert_false(fake_live_size(&d, p)); /* s1's chunk went back */
  expect_free(a, big);
  bp_caching_allocator_destroy(a);
}

static void test_cache_belongs_to_the_stream(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {0}, s2 = {0};
  void *p = expect_alloc(a, 4 * KiB, &s1);
  assert_int_equal(bp_caching_allocator_free_on_stream(a, p, &s1), BP_OK);
  /* s1's queued work may still use p: no other stream gets it. */
  void *q = expect_alloc(a, 4 * KiB, &s2);
  void *n = expect_alloc(a, 4 * KiB, NULL);
  assert_ptr_not_equal(q, p);
  assert_ptr_not_equal(n, p);
  assert_ptr_equal(expect_alloc(a, 4 * KiB, &s1), p); /* s1 at once */
  expect_free(a, p);
  expect_free(a, n);
  /* Forgetting s1 empties its cache: p's memory is everyone's. */
  bp_caching_allocator_forget_stream(a, &s1);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.allocated_bytes.current, 4 * KiB); /* q */
  assert_int_equal(s.inactive_split_bytes.current, 2 * (2 * MiB) - 4 * KiB);
  /* The NULL stream's cache empties too: of its two whole free chunks, best
   * fit takes the lower one, s1's. */
  void *m = expect_alloc(a, 1 * MiB, NULL);
  assert_ptr_equal(m, p);
  expect_free(a, m);
  expect_free(a, q);
  bp_caching_allocator_destroy(a);
}

/* The peaks are checked after a free: a peak below the current total would
 * be hidden, since stats report at least the current value. */
static size_t peak_allocated(bp_caching_allocator_t *a) {
  return current_stats(a).allocated_bytes.peak;
}

static void test_peaks_with_two_pools(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  fake_stream_t s1 = {.immediate = true};
  void *p = expect_alloc(a, 1 * KiB, &s1);
  assert_int_equal(bp_caching_allocator_free_on_stream(a, p, &s1), BP_OK);
  void *n = expect_alloc(a, 1 * KiB, NULL);
  assert_int_equal(peak_allocated(a), 1 * KiB);
  /* s1 grows back to its own earlier value, a cache hit, but the NULL stream
   * holds 1 KiB now: the device-wide total is a new peak. */
  p = expect_alloc(a, 1 * KiB, &s1);
  expect_free(a, p);
  assert_int_equal(peak_allocated(a), 2 * KiB);
  assert_int_equal(current_stats(a).requested_bytes.peak, 2 * KiB);
  assert_int_equal(current_stats(a).active_bytes.peak, 2 * KiB);
  /* After a reset, the same pool growing to its earlier value is a new peak
   * again. */
  bp_caching_allocator_reset_peaks(a);
  assert_int_equal(peak_allocated(a), 1 * KiB);
  p = expect_alloc(a, 1 * KiB, &s1);
  expect_free(a, p);
  assert_int_equal(peak_allocated(a), 2 * KiB);
  bp_caching_allocator_reset_peaks(a);
  p = expect_alloc(a, 1 * KiB, &s1);
  expect_free(a, p);
  assert_int_equal(peak_allocated(a), 2 * KiB);
  expect_free(a, n);
  bp_caching_allocator_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_size_reuses_last_freed),
      cmocka_unit_test(test_cached_block_counts_as_free),
      cmocka_unit_test(test_freeing_a_cached_block_is_refused),
      cmocka_unit_test(test_miss_sees_merged_blocks),
      cmocka_unit_test(test_bin_depth_is_bounded),
      cmocka_unit_test(test_empty_cache_returns_cached_chunks),
      cmocka_unit_test(test_out_of_memory_empties_the_cache),
      cmocka_unit_test(test_cache_belongs_to_the_stream),
      cmocka_unit_test(test_peaks_with_two_pools),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
