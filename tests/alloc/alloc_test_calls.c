#include "alloc/alloc_test_calls.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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
