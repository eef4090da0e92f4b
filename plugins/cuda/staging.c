/* The staging pool. */
#include "staging.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

cu_staging_block_t *cu_staging_acquire(cu_staging_pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  cu_staging_block_t *block = pool->idle;
  if (block)
    pool->idle = block->next;
  bool room = !block && pool->count < pool->max_blocks;
  if (room)
    pool->count++; /* reserved: allocated outside the lock */
  pthread_mutex_unlock(&pool->lock);
  if (room) {
    block = calloc(1, sizeof *block);
    void *memory = block ? pool->allocate(pool->block_size) : NULL;
    pthread_mutex_lock(&pool->lock);
    if (memory) {
      block->memory = memory;
      block->pool = pool;
      block->created = pool->blocks;
      pool->blocks = block;
    } else {
      pool->count--;
    }
    pthread_mutex_unlock(&pool->lock);
    if (!memory) {
      free(block);
      return NULL;
    }
  }
  if (block) {
    block->dst = NULL;
    block->size = 0;
    block->next = NULL;
  }
  return block;
}

void cu_staging_give_back(cu_staging_block_t *chain) {
  if (!chain)
    return;
  cu_staging_block_t *last = chain;
  while (last->next)
    last = last->next;
  cu_staging_pool_t *pool = chain->pool;
  pthread_mutex_lock(&pool->lock);
  last->next = pool->idle;
  pool->idle = chain;
  pthread_mutex_unlock(&pool->lock);
}

void cu_staging_deliver(void *chain) {
  for (cu_staging_block_t *block = chain; block; block = block->next)
    if (block->dst)
      memcpy(block->dst, block->memory, block->size);
  cu_staging_give_back(chain);
}

void cu_staging_pool_destroy(cu_staging_pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  cu_staging_block_t *blocks = pool->blocks;
  pool->blocks = NULL;
  pool->idle = NULL;
  pool->count = 0;
  pthread_mutex_unlock(&pool->lock);
  while (blocks) {
    cu_staging_block_t *next = blocks->created;
    pool->release(blocks->memory);
    free(blocks);
    blocks = next;
  }
}
