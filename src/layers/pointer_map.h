/* A map from a pointer (a handle, non-NULL) to a 64-bit value (internal),
 * open addressing with linear probing; removal shifts the following entries
 * back, so there are no tombstones. The trace layer keys its flow arrows
 * (event -> serial of its latest record), its live streams (stream -> 1)
 * and its communicator counters (comm -> its counts) by one each. Not
 * synchronized: the owner holds its lock. */
#ifndef BACKPLANE_LAYERS_POINTER_MAP_H_
#define BACKPLANE_LAYERS_POINTER_MAP_H_

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
void bp_pointer_map_release(bp_pointer_map_t *map);

#endif /* BACKPLANE_LAYERS_POINTER_MAP_H_ */
