/* Splitting, coalescing, best fit, small/large pools, empty_cache, OOM and
 * retry, statistics, and bad frees. */
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

static void test_split_and_coalesce(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  char *x = expect_alloc(a, 1 * KiB, NULL);
  char *y = expect_alloc(a, 1 * KiB, NULL);
  char *z = expect_alloc(a, 1 * KiB, NULL);
  assert_ptr_equal(y, x + 1 * KiB); /* split from one chunk, in order */
  assert_ptr_equal(z, y + 1 * KiB);
  assert_int_equal(d.allocate_calls, 1);
  assert_int_equal(current_stats(a).inactive_split_bytes.current,
                   2 * MiB - 3 * KiB);
  expect_free(a, y);
  assert_int_equal(current_stats(a).inactive_split_bytes.current,
                   2 * MiB - 2 * KiB);
  expect_free(a, x); /* merges with y's block */
  /* Best fit: the 2 KiB hole, not the big rest of the chunk. */
  char *w = expect_alloc(a, 2 * KiB, NULL);
  assert_ptr_equal(w, x);
  expect_free(a, w);
  expect_free(a,
              z); /* both kept whole in the hot cache: the chunk stays split */
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.inactive_split_bytes.current, 2 * MiB);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_int_equal(s.reserved_bytes.current, 2 * MiB);
  /* A miss empties the hot cache first: z merges with both neighbours, the
   * chunk is one whole free block again and the request takes its front. */
  char *all = expect_alloc(a, 1 * MiB, NULL);
  assert_ptr_equal(all, x);
  assert_int_equal(current_stats(a).inactive_split_bytes.current, 1 * MiB);
  expect_free(a, all);
  size_t released = 0;
  assert_int_equal(bp_caching_allocator_empty_cache(a, &released), BP_OK);
  assert_int_equal(released, 2 * MiB); /* idle once the cache is emptied */
  assert_int_equal(current_stats(a).inactive_split_bytes.current, 0);
  bp_caching_allocator_destroy(a);
}

static void test_best_fit_picks_smallest_hole(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  void *p[6];
  size_t sizes[] = {4 * KiB, 1 * KiB, 2 * KiB, 1 * KiB, 3 * KiB, 1 * KiB};
  for (int i = 0; i < 6; i++)
    p[i] = expect_alloc(a, sizes[i], NULL);
  expect_free(a, p[0]); /* 4 KiB hole */
  expect_free(a, p[2]); /* 2 KiB hole */
  expect_free(a, p[4]); /* 3 KiB hole */
  assert_ptr_equal(expect_alloc(a, 2 * KiB, NULL), p[2]);
  assert_ptr_equal(expect_alloc(a, 3 * KiB, NULL), p[4]);
  assert_ptr_equal(expect_alloc(a, 3 * KiB, NULL),
                   p[0]); /* the 4 KiB hole, split */
  for (int i = 0; i < 6; i++)
    expect_free(a, p[i]);
  assert_int_equal(current_stats(a).allocated_bytes.current, 0);
  bp_caching_allocator_destroy(a);
}

static bool within(const void *p, const void *base, size_t size) {
  return (uintptr_t)p >= (uintptr_t)base &&
         (uintptr_t)p < (uintptr_t)base + size;
}

static void test_small_requests_use_their_own_chunks(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  void *large = expect_alloc(a, 4 * MiB, NULL);
  assert_int_equal(d.last_allocate_size, 20 * MiB);
  void *small = expect_alloc(a, 512, NULL);
  assert_int_equal(d.allocate_calls, 2);
  assert_int_equal(d.last_allocate_size, 2 * MiB);
  assert_false(within(small, large, 20 * MiB));
  /* A large request does not take small-pool memory either. */
  expect_free(a, small);
  void *large2 = expect_alloc(a, (size_t)(1.5 * MiB), NULL);
  assert_true(within(large2, large, 20 * MiB));
  expect_free(a, large2);
  expect_free(a, large);
  bp_caching_allocator_destroy(a);
}

static void test_small_falls_back_to_large_when_device_full(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 20 * MiB, true);
  void *large = expect_alloc(a, 4 * MiB, NULL); /* takes the whole device */
  void *small = expect_alloc(a, 512, NULL);
  assert_true(within(small, large, 20 * MiB));
  expect_free(a, small);
  expect_free(a, large);
  bp_caching_allocator_destroy(a);
}

static void test_empty_cache_returns_idle_chunks(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  void *keep = expect_alloc(a, 512, NULL);
  void *small = expect_alloc(a, 3 * MiB, NULL); /* a large chunk of 20 MiB */
  void *direct = expect_alloc(a, 30 * MiB, NULL);
  expect_free(a, small);
  expect_free(a, direct);
  assert_int_equal(d.used, 2 * MiB + 20 * MiB + 30 * MiB);
  size_t released = 0;
  assert_int_equal(bp_caching_allocator_empty_cache(a, &released), BP_OK);
  assert_int_equal(released, 20 * MiB + 30 * MiB);
  assert_int_equal(d.used, 2 * MiB); /* the chunk still in use stays */
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.reserved_bytes.current, 2 * MiB);
  assert_int_equal(s.num_device_free, 2);
  expect_free(a, keep);
  assert_int_equal(bp_caching_allocator_empty_cache(a, &released), BP_OK);
  assert_int_equal(released, 2 * MiB);
  assert_int_equal(d.used, 0);
  assert_int_equal(current_stats(a).num_device_free,
                   current_stats(a).num_device_alloc);
  bp_caching_allocator_destroy(a);
}

static void test_oom_releases_idle_and_retries(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 30 * MiB, true);
  expect_free(
      a, expect_alloc(a, 15 * MiB, NULL)); /* leaves an idle 20 MiB chunk */
  void *big = expect_alloc(a, 25 * MiB, NULL);
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.num_alloc_retries, 1);
  assert_int_equal(s.num_ooms, 0);
  assert_int_equal(s.reserved_bytes.current, 25 * MiB);
  assert_int_equal(d.used, 25 * MiB);
  void *more = NULL;
  assert_int_equal(bp_caching_allocator_malloc(a, 10 * MiB, NULL, &more),
                   BP_ERR_OUT_OF_MEMORY);
  assert_null(more);
  const char *message = bp_last_error();
  assert_non_null(strstr(message, "fake:0"));
  assert_non_null(strstr(message, "allocating 10485760 bytes"));
  assert_non_null(strstr(message, "26214400 bytes allocated"));
  assert_non_null(strstr(message, "26214400 reserved"));
  assert_non_null(strstr(message, "5242880 free on the device"));
  assert_non_null(strstr(message, "largest free cached block 0"));
  s = current_stats(a);
  assert_int_equal(s.num_alloc_retries, 2);
  assert_int_equal(s.num_ooms, 1);
  expect_free(a, big);
  bp_caching_allocator_destroy(a);
}

static void test_stats_track_every_key(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  void *p = expect_alloc(a, 1000, NULL); /* 1024 */
  void *q = expect_alloc(a, 3000, NULL); /* 3072 */
  bp_memory_stats_t s = current_stats(a);
  assert_int_equal(s.allocated_bytes.current, 4096);
  assert_int_equal(s.requested_bytes.current, 4000);
  assert_int_equal(s.active_bytes.current, 4096);
  assert_int_equal(s.reserved_bytes.current, 2 * MiB);
  assert_int_equal(s.num_device_alloc, 1);
  expect_free(a, p);
  s = current_stats(a);
  assert_int_equal(s.allocated_bytes.current, 3072);
  assert_int_equal(s.allocated_bytes.peak, 4096);
  assert_int_equal(s.allocated_bytes.allocated, 4096);
  assert_int_equal(s.allocated_bytes.freed, 1024);
  assert_int_equal(s.requested_bytes.current, 3000);
  assert_int_equal(s.requested_bytes.peak, 4000);
  assert_int_equal(s.active_bytes.current, 3072);
  assert_int_equal(s.inactive_split_bytes.current, 2 * MiB - 3072);
  bp_caching_allocator_reset_peaks(a);
  s = current_stats(a);
  assert_int_equal(s.allocated_bytes.peak, 3072);
  assert_int_equal(s.requested_bytes.peak, 3000);
  assert_int_equal(s.reserved_bytes.peak, 2 * MiB);
  assert_int_equal(s.allocated_bytes.allocated, 4096); /* not reset */
  expect_free(a, q);
  s = current_stats(a);
  assert_int_equal(s.allocated_bytes.current, 0);
  assert_int_equal(s.allocated_bytes.freed, 4096);
  assert_int_equal(s.active_bytes.current, 0);
  assert_int_equal(s.requested_bytes.current, 0);
  /* p and q sit in the hot cache, unmerged: the chunk is still split. */
  assert_int_equal(s.inactive_split_bytes.current, 2 * MiB);
  assert_int_equal(bp_caching_allocator_empty_cache(a, NULL), BP_OK);
  assert_int_equal(current_stats(a).inactive_split_bytes.current, 0);
  bp_caching_allocator_destroy(a);
}

static void test_bad_frees_change_nothing(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  char *p = expect_alloc(a, 4096, NULL);
  char *q = expect_alloc(a, 4096, NULL);
  expect_free(a, p);
  bp_memory_stats_t before = current_stats(a);
  assert_int_equal(bp_caching_allocator_free(a, p), BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "not a live allocation"));
  assert_int_equal(bp_caching_allocator_free(a, q + 8),
                   BP_ERR_INVALID_ARGUMENT);
  int on_stack;
  assert_int_equal(bp_caching_allocator_free(a, &on_stack),
                   BP_ERR_INVALID_ARGUMENT);
  size_t size;
  assert_int_equal(bp_caching_allocator_block_size(a, p, &size),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_caching_allocator_record_stream(a, p, &on_stack),
                   BP_ERR_INVALID_ARGUMENT);
  bp_memory_stats_t after = current_stats(a);
  assert_memory_equal(&before, &after, sizeof before);
  /* q still works, and p's memory is reused normally. */
  assert_ptr_equal(expect_alloc(a, 4096, NULL), p);
  expect_free(a, p);
  expect_free(a, q);
  assert_int_equal(bp_caching_allocator_free(a, NULL), BP_OK);
  assert_int_equal(bp_caching_allocator_free(NULL, q), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_caching_allocator_malloc(a, 1, NULL, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  bp_caching_allocator_destroy(a);
}

static void test_zero_size_is_unique(void **state) {
  (void)state;
  fake_device_t d;
  bp_caching_allocator_t *a = expect_allocator(&d, 1024 * MiB, true);
  void *p = expect_alloc(a, 0, NULL);
  void *q = expect_alloc(a, 0, NULL);
  assert_ptr_not_equal(p, q);
  size_t size = 1;
  assert_int_equal(bp_caching_allocator_block_size(a, p, &size), BP_OK);
  assert_int_equal(size, 0);
  expect_free(a, p);
  expect_free(a, q);
  assert_int_equal(current_stats(a).requested_bytes.current, 0);
  bp_caching_allocator_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split_and_coalesce),
      cmocka_unit_test(test_best_fit_picks_smallest_hole),
      cmocka_unit_test(test_small_requests_use_their_own_chunks),
      cmocka_unit_test(test_small_falls_back_to_large_when_device_full),
      cmocka_unit_test(test_empty_cache_returns_idle_chunks),
      cmocka_unit_test(test_oom_releases_idle_and_retries),
      cmocka_unit_test(test_stats_track_every_key),
      cmocka_unit_test(test_bad_frees_change_nothing),
      cmocka_unit_test(test_zero_size_is_unique),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
