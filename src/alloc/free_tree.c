#include "alloc/free_tree.h"

static bool key_less(const bp_block_t *a, const bp_block_t *b) {
  return a->size < b->size || (a->size == b->size && a->addr < b->addr);
}

static uint32_t address_priority(uintptr_t addr) {
  uint64_t x = (uint64_t)addr * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(x >> 32);
}

/* Splits `t` into keys below `key` (*left) and the rest (*right). */
static void split(bp_block_t *t, const bp_block_t *key, bp_block_t **left,
                  bp_block_t **right) {
  while (t) {
    if (key_less(t, key)) {
      *left = t;
      left = &t->right;
      t = t->right;
    } else {
      *right = t;
      right = &t->left;
      t = t->left;
    }
  }
  *left = NULL;
  *right = NULL;
}

/* Joins two treaps whose keys are all ordered (every key of `l` < `r`). */
static bp_block_t *merge(bp_block_t *l, bp_block_t *r) {
  bp_block_t *root = NULL;
  bp_block_t **link = &root;
  while (l && r) {
    if (l->priority > r->priority) {
      *link = l;
      link = &l->right;
      l = l->right;
    } else {
      *link = r;
      link = &r->left;
      r = r->left;
    }
  }
  *link = l ? l : r;
  return root;
}

void bp_free_tree_insert(bp_free_tree_t *tree, bp_block_t *block) {
  block->priority = address_priority(block->addr);
  bp_block_t **link = &tree->root;
  while (*link && (*link)->priority >= block->priority)
    link = key_less(block, *link) ? &(*link)->left : &(*link)->right;
  split(*link, block, &block->left, &block->right);
  *link = block;
  tree->count++;
}

void bp_free_tree_remove(bp_free_tree_t *tree, bp_block_t *block) {
  bp_block_t **link = &tree->root;
  while (*link != block)
    link = key_less(block, *link) ? &(*link)->left : &(*link)->right;
  *link = merge(block->left, block->right);
  block->left = block->right = NULL;
  tree->count--;
}

bp_block_t *bp_free_tree_best_fit(const bp_free_tree_t *tree, size_t size) {
  bp_block_t *best = NULL;
  for (bp_block_t *t = tree->root; t;) {
    if (t->size >= size) {
      best = t;
      t = t->left;
    } else {
      t = t->right;
    }
  }
  return best;
}

bp_block_t *bp_free_tree_largest(const bp_free_tree_t *tree) {
  bp_block_t *t = tree->root;
  while (t && t->right)
    t = t->right;
  return t;
}
