/* Replays a training-iteration trace (tools/backplane/bench/alloc_trace.c) for
 * many iterations: once the live set stops growing (after the first
 * iteration; after the second when Adam's state is created lazily at the
 * first step), reserved memory stays flat and the device is not called
 * again. Prints the fragmentation at peak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "alloc/fake_backend.h"
#include "alloc_trace.h"
#include "backplane/status.h"

#define MiB ((size_t)1 << 20)
#define ITERATIONS 30

static int allocate(void *context, size_t size, void **out_ptr) {
  return (int)bp_caching_allocator_malloc(context, size, NULL, out_ptr);
}

static int release(void *context, void *ptr) {
  return (int)bp_caching_allocator_free(context, ptr);
}

static void replay(const alloc_trace_shape_t *shape, const char *label,
                   int warmup) {
  alloc_trace_t trace;
  assert_true(alloc_trace_training(shape, &trace));
  fake_device_t d;
  fake_device_init(&d, (size_t)8 << 30);
  bp_alloc_backend_t backend = fake_backend(&d, true);
  bp_caching_allocator_t *a = NULL;
  assert_int_equal(bp_caching_allocator_create(&backend, NULL, &a), BP_OK);
  alloc_trace_target_t target = {a, allocate, release};
  void **slots = calloc(trace.slots, sizeof *slots);
  assert_int_equal(alloc_trace_run(&trace, true, slots, &target), 0);
  bp_memory_stats_t first;
  for (int i = 0; i < warmup; i++) {
    assert_int_equal(alloc_trace_run(&trace, false, slots, &target), 0);
    bp_memory_stats_t now;
    bp_caching_allocator_stats(a, &now);
    if (i > 0) {
      /* Growing live memory may grow the cache by at most one chunk more. */
      assert_true(now.reserved_bytes.current - first.reserved_bytes.current <=
                  now.allocated_bytes.peak - first.allocated_bytes.peak +
                      20 * MiB);
    }
    first = now;
  }
  assert_true(first.reserved_bytes.current > 0);
  for (int i = warmup; i < ITERATIONS; i++) {
    assert_int_equal(alloc_trace_run(&trace, false, slots, &target), 0);
    bp_memory_stats_t now;
    bp_caching_allocator_stats(a, &now);
    assert_int_equal(now.reserved_bytes.current, first.reserved_bytes.current);
    assert_int_equal(now.num_device_alloc, first.num_device_alloc);
    assert_int_equal(now.allocated_bytes.current,
                     first.allocated_bytes.current);
  }
  bp_memory_stats_t s;
  bp_caching_allocator_stats(a, &s);
  printf("replay %s: %zu ops/iteration, peak allocated %.1f MiB, peak "
         "reserved %.1f MiB, fragmentation at peak %.1f MiB (%.1f%%), %llu "
         "device allocations\n",
         label, trace.count - trace.setup_count,
         (double)s.allocated_bytes.peak / MiB,
         (double)s.reserved_bytes.peak / MiB,
         (double)(s.reserved_bytes.peak - s.allocated_bytes.peak) / MiB,
         100.0 * (double)(s.reserved_bytes.peak - s.allocated_bytes.peak) /
             (double)s.reserved_bytes.peak,
         (unsigned long long)s.num_device_alloc);
  assert_true(s.reserved_bytes.peak >= s.allocated_bytes.peak);
  assert_int_equal(alloc_trace_release_all(&trace, slots, &target), 0);
  bp_caching_allocator_stats(a, &s);
  assert_int_equal(s.allocated_bytes.current, 0);
  free(slots);
  bp_caching_allocator_destroy(a);
  assert_int_equal(d.used, 0);
  alloc_trace_destroy(&trace);
}

static void test_small_model(void **state) {
  (void)state;
  alloc_trace_shape_t shape = {.layers = 4,
                               .batch = 4,
                               .sequence = 128,
                               .hidden = 256,
                               .heads = 4,
                               .vocabulary = 8000};
  replay(&shape, "small", 1);
}

static void test_wider_model(void **state) {
  (void)state;
  alloc_trace_shape_t shape = {.layers = 12,
                               .batch = 8,
                               .sequence = 256,
                               .hidden = 768,
                               .heads = 12,
                               .vocabulary = 32000};
  replay(&shape, "wider", 1);
}

static void test_lazy_optimizer_state(void **state) {
  (void)state;
  alloc_trace_shape_t shape = {.layers = 6,
                               .batch = 4,
                               .sequence = 256,
                               .hidden = 512,
                               .heads = 8,
                               .vocabulary = 16000,
                               .lazy_optimizer_state = true};
  replay(&shape, "lazy-adam", 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_model),
      cmocka_unit_test(test_wider_model),
      cmocka_unit_test(test_lazy_optimizer_state),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
