/* Pointer map (contract in pointer_map.h). */
#include "base/pointer_map.h"

#include <stdlib.h>

static size_t home_of(uintptr_t key, size_t capacity) {
  uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 32) & (capacity - 1);
}

/* The slot holding `key`, or the empty slot where it would go. */
static size_t find(const bp_pointer_map_t *map, uintptr_t key) {
  size_t i = home_of(key, map->capacity);
  while (map->slots[i].key && map->slots[i].key != key)
    i = (i + 1) & (map->capacity - 1);
  return i;
}

static bool grow(bp_pointer_map_t *map) {
  size_t capacity = map->capacity ? map->capacity * 2 : 64;
  bp_pointer_map_t grown = {calloc(capacity, sizeof *grown.slots), capacity,
                            map->count};
  if (!grown.slots)
    return false;
  for (size_t i = 0; i < map->capacity; ++i)
    if (map->slots[i].key)
      grown.slots[find(&grown, map->slots[i].key)] = map->slots[i];
  free(map->slots);
  *map = grown;
  return true;
}

bool bp_pointer_map_set(bp_pointer_map_t *map, const void *key,
                        uint64_t value) {
  if ((map->count + 1) * 2 > map->capacity && !grow(map))
    return false;
  size_t i = find(map, (uintptr_t)key);
  if (!map->slots[i].key)
    map->count++;
  map->slots[i] = (bp_pointer_map_slot_t){(uintptr_t)key, value};
  return true;
}

uint64_t bp_pointer_map_get(const bp_pointer_map_t *map, const void *key) {
  if (!map->capacity)
    return 0;
  return map->slots[find(map, (uintptr_t)key)].value;
}

bool bp_pointer_map_take(bp_pointer_map_t *map, const void *key,
                         uint64_t *out_value) {
  if (!map->capacity)
    return false;
  size_t mask = map->capacity - 1;
  size_t hole = find(map, (uintptr_t)key);
  if (!map->slots[hole].key)
    return false;
  *out_value = map->slots[hole].value;
  map->slots[hole] = (bp_pointer_map_slot_t){0, 0};
  map->count--;
  /* Move back each following entry whose home is not between the hole
   * and its slot (cyclically). */
  for (size_t i = (hole + 1) & mask; map->slots[i].key; i = (i + 1) & mask) {
    size_t home = home_of(map->slots[i].key, map->capacity);
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      map->slots[hole] = map->slots[i];
      map->slots[i] = (bp_pointer_map_slot_t){0, 0};
      hole = i;
    }
  }
  return true;
}

void bp_pointer_map_remove(bp_pointer_map_t *map, const void *key) {
  uint64_t value;
  (void)bp_pointer_map_take(map, key, &value);
}

bool bp_pointer_map_any(const bp_pointer_map_t *map, const void **out_key,
                        uint64_t *out_value) {
  for (size_t i = 0; i < map->capacity; ++i) {
    if (map->slots[i].key) {
      *out_key = (const void *)map->slots[i].key;
      *out_value = map->slots[i].value;
      return true;
    }
  }
  return false;
}

void bp_pointer_map_release(bp_pointer_map_t *map) {
  free(map->slots);
  *map = (bp_pointer_map_t){NULL, 0, 0};
}
