/* Allocator calls for tests that must succeed: each asserts (cmocka) on
 * failure, so a test reads as the sequence of calls it makes. */
#ifndef BACKPLANE_TESTS_ALLOC_ALLOC_TEST_CALLS_H_
#define BACKPLANE_TESTS_ALLOC_ALLOC_TEST_CALLS_H_

#include <stdbool.h>

#include "alloc/caching_allocator.h"
#include "alloc/fake_backend.h"
#include "backplane/allocator.h"

/* An allocator with default hints over `device`, freshly initialised with
 * `capacity` bytes; `events` as in fake_backend(). */
bp_caching_allocator_t *expect_allocator(fake_device_t *device, size_t capacity,
                                         bool events);
/* A non-NULL block of `size` bytes on `stream` (NULL: no stream). */
void *expect_alloc(bp_caching_allocator_t *allocator, size_t size,
                   void *stream);
void expect_free(bp_caching_allocator_t *allocator, void *ptr);
bp_memory_stats_t current_stats(bp_caching_allocator_t *allocator);

#endif /* BACKPLANE_TESTS_ALLOC_ALLOC_TEST_CALLS_H_ */
