/* Free blocks ordered by (size, address): best fit in O(log n) (a treap,
 * priorities hashed from the address). Not thread-safe: the pool's lock
 * guards it. */
#ifndef BACKPLANE_ALLOC_FREE_TREE_H_
#define BACKPLANE_ALLOC_FREE_TREE_H_

#include "alloc/alloc_block.h"

typedef struct bp_free_tree {
  bp_block_t *root;
  size_t count;
} bp_free_tree_t;

void bp_free_tree_insert(bp_free_tree_t *tree, bp_block_t *block);
/* `block` must be in the tree. */
void bp_free_tree_remove(bp_free_tree_t *tree, bp_block_t *block);
/* The smallest block of at least `size` bytes (lowest address among equals),
 * NULL if none. */
bp_block_t *bp_free_tree_best_fit(const bp_free_tree_t *tree, size_t size);
/* The largest block, NULL if empty. */
bp_block_t *bp_free_tree_largest(const bp_free_tree_t *tree);

#endif /* BACKPLANE_ALLOC_FREE_TREE_H_ */
