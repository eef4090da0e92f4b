#include "core/handle_pool.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct bp_handle_slot {
  bp_handle_slot_t *next; /* quarantine or reusable list */
  bp_handle_slot_t *all_next;
  alignas(max_align_t) unsigned char object[];
};

static bp_handle_slot_t *slot_of(void *object) {
  return (bp_handle_slot_t *)((unsigned char *)object -
                              offsetof(bp_handle_slot_t, object));
}

void bp_handle_pool_init(bp_handle_pool_t *pool, size_t object_size) {
  *pool = (bp_handle_pool_t){.object_size = object_size};
  pthread_mutex_init(&pool->lock, NULL);
}

void bp_handle_pool_release(bp_handle_pool_t *pool) {
  for (bp_handle_slot_t *s = pool->all; s;) {
    bp_handle_slot_t *next = s->all_next;
    free(s);
    s = next;
  }
  pthread_mutex_destroy(&pool->lock);
  *pool = (bp_handle_pool_t){0};
}

void *bp_handle_pool_take(bp_handle_pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  bp_handle_slot_t *slot = pool->reusable;
  if (slot) {
    pool->reusable = slot->next;
  } else {
    slot = malloc(sizeof *slot + pool->object_size);
    if (slot) {
      slot->all_next = pool->all;
      pool->all = slot;
    }
  }
  pthread_mutex_unlock(&pool->lock);
  if (!slot)
    return NULL;
  slot->next = NULL;
  memset(slot->object, 0, pool->object_size);
  return slot->object;
}

void bp_handle_pool_give(bp_handle_pool_t *pool, void *object) {
  bp_handle_slot_t *slot = slot_of(object);
  slot->next = NULL;
  pthread_mutex_lock(&pool->lock);
  if (pool->newest)
    pool->newest->next = slot;
  else
    pool->oldest = slot;
  pool->newest = slot;
  if (++pool->quarantined > BP_HANDLE_QUARANTINE) {
    bp_handle_slot_t *reuse = pool->oldest;
    pool->oldest = reuse->next;
    pool->quarantined--;
    reuse->next = pool->reusable;
    pool->reusable = reuse;
  }
  pthread_mutex_unlock(&pool->lock);
}
