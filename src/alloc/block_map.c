#include "alloc/block_map.h"

#include <stdlib.h>

static bp_status_t grow(bp_block_map_t *map) {
  size_t capacity = map->capacity ? map->capacity * 2 : 64;
  bp_block_t **slots = calloc(capacity, sizeof *slots);
  if (!slots)
    return BP_ERR_OUT_OF_MEMORY;
  bp_block_map_t bigger = {slots, capacity, 0};
  for (size_t i = 0; i < map->capacity; i++) {
    bp_block_t *b = map->slots[i];
    if (!b)
      continue;
    size_t s = bp_block_map_slot(&bigger, b->addr);
    while (slots[s])
      s = (s + 1) & (capacity - 1);
    slots[s] = b;
    bigger.count++;
  }
  free(map->slots);
  *map = bigger;
  return BP_OK;
}

bp_status_t bp_block_map_reserve(bp_block_map_t *map, size_t count) {
  while (count * 2 > map->capacity) {
    bp_status_t status = grow(map);
    if (status != BP_OK)
      return status;
  }
  return BP_OK;
}

bp_status_t bp_block_map_insert(bp_block_map_t *map, bp_block_t *block) {
  if ((map->count + 1) * 2 > map->capacity) {
    bp_status_t status = grow(map);
    if (status != BP_OK)
      return status;
  }
  size_t s = bp_block_map_slot(map, block->addr);
  while (map->slots[s])
    s = (s + 1) & (map->capacity - 1);
  map->slots[s] = block;
  map->count++;
  return BP_OK;
}

bp_block_t *bp_block_map_remove(bp_block_map_t *map, uintptr_t addr) {
  if (!map->capacity)
    return NULL;
  size_t mask = map->capacity - 1;
  size_t s = bp_block_map_slot(map, addr);
  while (map->slots[s] && map->slots[s]->addr != addr)
    s = (s + 1) & mask;
  bp_block_t *found = map->slots[s];
  if (!found)
    return NULL;
  /* Backward shift: pull later entries of the probe run into the hole. */
  size_t hole = s;
  for (size_t next = (hole + 1) & mask; map->slots[next];
       next = (next + 1) & mask) {
    size_t home = bp_block_map_slot(map, map->slots[next]->addr);
    /* Move if `home` is not cyclically within (hole, next]. */
    if (((next - home) & mask) >= ((next - hole) & mask)) {
      map->slots[hole] = map->slots[next];
      hole = next;
    }
  }
  map->slots[hole] = NULL;
  map->count--;
  return found;
}

void bp_block_map_destroy(bp_block_map_t *map) {
  free(map->slots);
  map->slots = NULL;
  map->capacity = map->count = 0;
}
