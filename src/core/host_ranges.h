/* A set of disjoint address ranges (internal): which host memory came from
 * a device's host_memory_allocate (bp_host_malloc), so a copy can tell
 * pinned memory from pageable memory by any address inside it; and which
 * device memory the caching allocator released (core/released_ranges.h).
 *
 * A sorted array searched by bisection. Not synchronized: the owner (the
 * device) holds its lock around every call; `count` may be read without it
 * as a hint that the set is empty. */
#ifndef BACKPLANE_CORE_HOST_RANGES_H_
#define BACKPLANE_CORE_HOST_RANGES_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/status.h"

typedef struct bp_host_range {
  uintptr_t start;
  uintptr_t end; /* one past the last byte */
} bp_host_range_t;

typedef struct bp_host_ranges {
  bp_host_range_t *ranges; /* sorted by start, disjoint */
  atomic_size_t count;
  size_t capacity;
} bp_host_ranges_t;

void bp_host_ranges_init(bp_host_ranges_t *set);
void bp_host_ranges_release(bp_host_ranges_t *set);
/* Adds [ptr, ptr + size); size > 0, disjoint from every range present.
 * BP_ERR_OUT_OF_MEMORY if the array cannot grow. */
bp_status_t bp_host_ranges_insert(bp_host_ranges_t *set, const void *ptr,
                                  size_t size);
/* Removes the range starting at `ptr`; no-op if there is none. */
void bp_host_ranges_remove(bp_host_ranges_t *set, const void *ptr);
/* Removes every range that overlaps [ptr, ptr + size); size > 0. */
void bp_host_ranges_remove_overlapping(bp_host_ranges_t *set, const void *ptr,
                                       size_t size);
/* Whether [ptr, ptr + size) lies inside one range. */
bool bp_host_ranges_contain(const bp_host_ranges_t *set, const void *ptr,
                            size_t size);

#endif /* BACKPLANE_CORE_HOST_RANGES_H_ */
