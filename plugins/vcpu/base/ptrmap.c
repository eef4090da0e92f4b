/* Linear probing keyed by a multiplicative hash of the address. */
#include "base/ptrmap.h"

#include <stdlib.h>

static size_t slot_of(const vcpu_ptrmap *map, uintptr_t key) {
  uint64_t hash = (uint64_t)key * 0x9e3779b97f4a7c15ull;
  return (size_t)(hash >> 17) & (map->capacity - 1);
}

void vcpu_ptrmap_clear(vcpu_ptrmap *map) {
  free(map->slots);
  *map = (vcpu_ptrmap){0};
}

static void place(vcpu_ptrmap *map, uintptr_t key, size_t size) {
  size_t slot = slot_of(map, key);
  while (map->slots[slot].key != 0)
    slot = (slot + 1) & (map->capacity - 1);
  map->slots[slot] = (vcpu_ptrmap_entry){key, size};
}

static bool grow(vcpu_ptrmap *map) {
  size_t capacity = map->capacity ? map->capacity * 2 : 64;
  vcpu_ptrmap_entry *slots = calloc(capacity, sizeof *slots);
  if (!slots)
    return false;
  vcpu_ptrmap old = *map;
  map->slots = slots;
  map->capacity = capacity;
  for (size_t i = 0; i < old.capacity; ++i)
    if (old.slots[i].key != 0)
      place(map, old.slots[i].key, old.slots[i].size);
  free(old.slots);
  return true;
}

bool vcpu_ptrmap_insert(vcpu_ptrmap *map, uintptr_t key, size_t size) {
  if ((map->count + 1) * 4 > map->capacity * 3 && !grow(map))
    return false;
  place(map, key, size);
  map->count++;
  map->total_size += size;
  return true;
}

vcpu_ptrmap_entry *vcpu_ptrmap_find(const vcpu_ptrmap *map, uintptr_t key) {
  if (map->capacity == 0 || key == 0)
    return NULL;
  for (size_t slot = slot_of(map, key);;
       slot = (slot + 1) & (map->capacity - 1)) {
    if (map->slots[slot].key == key)
      return &map->slots[slot];
    if (map->slots[slot].key == 0)
      return NULL;
  }
}

void vcpu_ptrmap_remove(vcpu_ptrmap *map, vcpu_ptrmap_entry *entry) {
  size_t mask = map->capacity - 1;
  size_t hole = (size_t)(entry - map->slots);
  map->count--;
  map->total_size -= entry->size;
  map->slots[hole].key = 0;
  /* Shift later members of the probe run back into the hole. */
  for (size_t slot = (hole + 1) & mask; map->slots[slot].key != 0;
       slot = (slot + 1) & mask) {
    size_t home = slot_of(map, map->slots[slot].key);
    /* Movable if the hole lies on the way from its home slot to where it is. */
    if (((slot - home) & mask) >= ((slot - hole) & mask)) {
      map->slots[hole] = map->slots[slot];
      map->slots[slot].key = 0;
      hole = slot;
    }
  }
}
