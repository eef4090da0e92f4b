/* The library's one map from a pointer (a handle or an address, non-NULL)
 * to a 64-bit value (internal): open addressing with linear probing;
 * removal shifts the following entries back, so there are no tombstones.
 * The core keys each device's host and unified allocations by it
 * (object_registry.h); the trace layer its flow arrows, live streams and
 * communicator counters. (The caching allocator's block map,
 * src/alloc/block_map.h, is a different structure: intrusive, keyed by the
 * block's own address field, looked up inline on every free.) Not
 * synchronized: the owner holds its lock. */
#ifndef BACKPLANE_BASE_POINTER_MAP_H_
#define BACKPLANE_BASE_POINTER_MAP_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bp_pointer_map_slot {
  uintptr_t key; /* 0: empty */
  uint64_t value;
} bp_pointer_map_slot_t;

typedef struct bp_pointer_map {
  bp_pointer_map_slot_t *slots; /* `capacity` of them, some empty */
  size_t capacity;              /* a power of two, or 0 */
  size_t count;
} bp_pointer_map_t;

/* Sets the value of `key` (non-NULL). False when out of memory. */
bool bp_pointer_map_set(bp_pointer_map_t *map, const void *key, uint64_t value);
/* The value of `key`, or 0 when it has none. */
uint64_t bp_pointer_map_get(const bp_pointer_map_t *map, const void *key);
/* Forgets `key` (e.g. a destroyed handle, whose address may be reused). */
void bp_pointer_map_remove(bp_pointer_map_t *map, const void *key);
/* Removes `key` and writes its value; false (nothing written) when absent.
 * Tells a stored 0 from an absent key, which bp_pointer_map_get cannot. */
bool bp_pointer_map_take(bp_pointer_map_t *map, const void *key,
                         uint64_t *out_value);
/* Any entry (for draining a map), false when empty. */
bool bp_pointer_map_any(const bp_pointer_map_t *map, const void **out_key,
                        uint64_t *out_value);
void bp_pointer_map_release(bp_pointer_map_t *map);

#endif /* BACKPLANE_BASE_POINTER_MAP_H_ */
