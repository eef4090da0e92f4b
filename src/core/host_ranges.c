#include "core/host_ranges.h"

#include <stdlib.h>
#include <string.h>

void bp_host_ranges_init(bp_host_ranges_t *set) {
  set->ranges = NULL;
  atomic_init(&set->count, 0);
  set->capacity = 0;
}

void bp_host_ranges_release(bp_host_ranges_t *set) {
  free(set->ranges);
  bp_host_ranges_init(set);
}

/* The index of the first range whose start is above `address`. */
static size_t upper_bound(const bp_host_ranges_t *set, uintptr_t address) {
  size_t low = 0,
         high = atomic_load_explicit(&set->count, memory_order_relaxed);
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (set->ranges[middle].start <= address)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

bp_status_t bp_host_ranges_insert(bp_host_ranges_t *set, const void *ptr,
                                  size_t size) {
  size_t count = atomic_load_explicit(&set->count, memory_order_relaxed);
  if (count == set->capacity) {
    size_t capacity = set->capacity ? 2 * set->capacity : 16;
    bp_host_range_t *grown = realloc(set->ranges, capacity * sizeof *grown);
    if (!grown)
      return BP_ERR_OUT_OF_MEMORY;
    set->ranges = grown;
    set->capacity = capacity;
  }
  uintptr_t start = (uintptr_t)ptr;
  size_t at = upper_bound(set, start);
  memmove(&set->ranges[at + 1], &set->ranges[at],
          (count - at) * sizeof *set->ranges);
  set->ranges[at] = (bp_host_range_t){start, start + size};
  atomic_store_explicit(&set->count, count + 1, memory_order_relaxed);
  return BP_OK;
}

void bp_host_ranges_remove(bp_host_ranges_t *set, const void *ptr) {
  size_t count = atomic_load_explicit(&set->count, memory_order_relaxed);
  size_t at = upper_bound(set, (uintptr_t)ptr);
  if (at == 0 || set->ranges[at - 1].start != (uintptr_t)ptr)
    return;
  memmove(&set->ranges[at - 1], &set->ranges[at],
          (count - at) * sizeof *set->ranges);
  atomic_store_explicit(&set->count, count - 1, memory_order_relaxed);
}

void bp_host_ranges_remove_overlapping(bp_host_ranges_t *set, const void *ptr,
                                       size_t size) {
  uintptr_t start = (uintptr_t)ptr;
  uintptr_t end = size > UINTPTR_MAX - start ? UINTPTR_MAX : start + size;
  size_t count = atomic_load_explicit(&set->count, memory_order_relaxed);
  /* Ranges are disjoint and sorted: the overlapping ones are consecutive,
   * from the last starting at or below `start` (if it reaches past it). */
  size_t first = upper_bound(set, start);
  if (first > 0 && set->ranges[first - 1].end > start)
    --first;
  size_t last = first;
  while (last < count && set->ranges[last].start < end)
    ++last;
  if (first == last)
    return;
  memmove(&set->ranges[first], &set->ranges[last],
          (count - last) * sizeof *set->ranges);
  atomic_store_explicit(&set->count, count - (last - first),
                        memory_order_relaxed);
}

bool bp_host_ranges_contain(const bp_host_ranges_t *set, const void *ptr,
                            size_t size) {
  uintptr_t start = (uintptr_t)ptr;
  size_t at = upper_bound(set, start);
  if (at == 0)
    return false;
  const bp_host_range_t *range = &set->ranges[at - 1];
  return start < range->end && size <= range->end - start;
}
