/* Address -> live block (open addressing, linear probing, backward-shift
 * deletion). Not thread-safe: the pool's lock guards it. */
#ifndef BACKPLANE_ALLOC_BLOCK_MAP_H_
#define BACKPLANE_ALLOC_BLOCK_MAP_H_

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
bp_block_t *bp_block_map_find(const bp_block_map_t *map, uintptr_t addr);
/* Removes and returns the block at `addr`, NULL if absent. */
bp_block_t *bp_block_map_remove(bp_block_map_t *map, uintptr_t addr);
void bp_block_map_destroy(bp_block_map_t *map);

#endif /* BACKPLANE_ALLOC_BLOCK_MAP_H_ */
