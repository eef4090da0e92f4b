#include "alloc/alloc_test_calls.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

bp_caching_allocator_t *expect_allocator(fake_device_t *device, size_t capacity,
                                         bool events) {
  fake_device_init(device, capacity);
  bp_alloc_backend_t backend = fake_backend(device, events);
  bp_caching_allocator_t *allocator = NULL;
  assert_int_equal(bp_caching_allocator_create(&backend, NULL, &allocator),
                   BP_OK);
  return allocator;
}

void *expect_alloc(bp_caching_allocator_t *allocator, size_t size,
                   void *stream) {
  void *ptr = NULL;
  assert_int_equal(bp_caching_allocator_malloc(allocator, size, stream, &ptr),
                   BP_OK);
  assert_non_null(ptr);
  return ptr;
}

void expect_free(bp_caching_allocator_t *allocator, void *ptr) {
  assert_int_equal(bp_caching_allocator_free(allocator, ptr), BP_OK);
}

bp_memory_stats_t current_stats(bp_caching_allocator_t *allocator) {
  bp_memory_stats_t stats;
  bp_caching_allocator_stats(allocator, &stats);
  return stats;
}
