/* The sorted allocation table and the reserved address range. */
#include "allocations.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

bool ocl_allocations_reserve(ocl_allocations_t *map, size_t size) {
  void *range = mmap(NULL, size, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED)
    return false;
  map->range_base = (uintptr_t)range;
  map->range_size = size;
  return true;
}

void ocl_allocations_destroy(ocl_allocations_t *map) {
  if (map->range_size)
    munmap((void *)map->range_base, map->range_size);
  free(map->entries);
  *map = (ocl_allocations_t){0};
}

/* Index of the first entry whose base is > ptr. */
static size_t upper_bound(const ocl_allocations_t *map, uintptr_t ptr) {
  size_t lo = 0, hi = map->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (map->entries[mid].base <= ptr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

bool ocl_allocations_place(const ocl_allocations_t *map, size_t size,
                           size_t align, uintptr_t *out_base) {
  uintptr_t end = map->range_base + map->range_size;
  uintptr_t at = map->range_base;
  for (size_t i = 0; i <= map->count; ++i) {
    at = (at + align - 1) & ~(uintptr_t)(align - 1);
    uintptr_t gap_end = i < map->count ? map->entries[i].base : end;
    if (at <= gap_end && gap_end - at >= size) {
      *out_base = at;
      return true;
    }
    if (i < map->count)
      at = map->entries[i].base + map->entries[i].size;
  }
  return false;
}

bool ocl_allocations_insert(ocl_allocations_t *map, ocl_allocation_t entry) {
  if (map->count == map->capacity) {
    size_t capacity = map->capacity ? map->capacity * 2 : 64;
    ocl_allocation_t *entries =
        realloc(map->entries, capacity * sizeof *entries);
    if (!entries)
      return false;
    map->entries = entries;
    map->capacity = capacity;
  }
  size_t at = upper_bound(map, entry.base);
  memmove(&map->entries[at + 1], &map->entries[at],
          (map->count - at) * sizeof *map->entries);
  map->entries[at] = entry;
  map->count++;
  map->bytes += entry.size;
  return true;
}

ocl_allocation_t *ocl_allocations_at(ocl_allocations_t *map, uintptr_t base) {
  size_t at = upper_bound(map, base);
  if (at == 0 || map->entries[at - 1].base != base)
    return NULL;
  return &map->entries[at - 1];
}

const ocl_allocation_t *ocl_allocations_find(const ocl_allocations_t *map,
                                             uintptr_t ptr, size_t size) {
  size_t at = upper_bound(map, ptr);
  if (at == 0)
    return NULL;
  const ocl_allocation_t *entry = &map->entries[at - 1];
  size_t offset = ptr - entry->base;
  if (offset >= entry->size || (size > entry->size - offset))
    return NULL;
  return entry;
}

void ocl_allocations_remove(ocl_allocations_t *map, ocl_allocation_t *entry) {
  size_t at = (size_t)(entry - map->entries);
  map->bytes -= entry->size;
  memmove(&map->entries[at], &map->entries[at + 1],
          (map->count - at - 1) * sizeof *map->entries);
  map->count--;
}
