/* Address -> live block (open addressing, linear probing, backward-shift
 * deletion). Not thread-safe: the pool's lock guards it. */
#ifndef BACKPLANE_ALLOC_BLOCK_MAP_H_
#define BACKPLANE_ALLOC_BLOCK_MAP_H_

#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_block.h"
#include "backplane/status.h"

typedef struct bp_block_map {
  bp_block_t **slots; /* capacity entries, NULL = empty */
  size_t capacity;    /* a power of two, or 0 */
  size_t count;
} bp_block_map_t;

/* BP_ERR_OUT_OF_MEMORY if the table cannot grow (host memory). */
bp_status_t bp_block_map_insert(bp_block_map_t *map, bp_block_t *block);
/* Makes room for `count` blocks, so that inserting up to that many cannot
 * fail. */
bp_status_t bp_block_map_reserve(bp_block_map_t *map, size_t count);

static inline size_t bp_block_map_slot(const bp_block_map_t *map,
                                       uintptr_t addr) {
  uint64_t x = (uint64_t)addr * 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 32) & (map->capacity - 1);
}

/* The block at `addr`, NULL if absent. Inline: every free looks up. */
static inline bp_block_t *bp_block_map_find(const bp_block_map_t *map,
                                            uintptr_t addr) {
  if (!map->capacity)
    return NULL;
  for (size_t s = bp_block_map_slot(map, addr);;
       s = (s + 1) & (map->capacity - 1)) {
    bp_block_t *b = map->slots[s];
    if (!b || b->addr == addr)
      return b;
  }
}
/* Removes and returns the block at `addr`, NULL if absent. */
bp_block_t *bp_block_map_remove(bp_block_map_t *map, uintptr_t addr);
void bp_block_map_destroy(bp_block_map_t *map);

#endif /* BACKPLANE_ALLOC_BLOCK_MAP_H_ */
