/* Blocks and chunks of the caching allocator (internal).
 *
 * A chunk is one piece of device memory from the backend; its blocks tile it
 * in address order (prev/next). A free block sits in its pool's free tree; an
 * allocated, pending or cached one in its pool's block map (a cached one also
 * in a hot cache bin). All fields are guarded by the lock of the pool owning
 * the chunk. */
#ifndef BACKPLANE_ALLOC_ALLOC_BLOCK_H_
#define BACKPLANE_ALLOC_ALLOC_BLOCK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bp_alloc_pool bp_alloc_pool_t;
typedef struct bp_chunk bp_chunk_t;
typedef struct bp_thread_cache bp_thread_cache_t;

typedef enum bp_block_state {
  BP_BLOCK_FREE,
  BP_BLOCK_ALLOCATED,
  /* Freed by the user, waiting for events of the streams that used it. */
  BP_BLOCK_PENDING_FREE,
  /* Freed by the user and idle, kept whole in its pool's hot cache
   * (hot_cache.h) for reuse at exactly its size; still in the block map. */
  BP_BLOCK_CACHED,
  /* Lent to a thread's cache (thread_cache.h), free there or handed out by
   * it (tc_free); still in the block map, never merged. */
  BP_BLOCK_LENT,
} bp_block_state_t;

typedef enum bp_chunk_kind {
  BP_CHUNK_SMALL,
  BP_CHUNK_LARGE,
  /* One request above max_chunk_size, straight from the backend. */
  BP_CHUNK_DIRECT,
} bp_chunk_kind_t;

typedef struct bp_block {
  uintptr_t addr;
  size_t size;
  size_t requested;
  bp_chunk_t *chunk;
  struct bp_block *prev, *next;  /* neighbours in the chunk */
  struct bp_block *left, *right; /* free tree */
  struct bp_block *hot_next;     /* hot cache bin (state CACHED) */
  uint32_t priority;             /* free tree (treap) */
  uint8_t state;                 /* bp_block_state_t */
  bool workspace;                /* a workspace slab */
  /* State LENT: the cache, written with the pool's and its lock held;
   * whether it is free there, under the cache's lock. */
  bp_thread_cache_t *lender;
  bool tc_free;
  /* Streams that used the block besides its pool's stream (record_stream). */
  void **other_streams;
  uint32_t other_stream_count, other_stream_capacity;
  /* Cache-line aligned (bp_alloc_new_block_record): the records of blocks
   * that different threads allocate and free share no line. */
} __attribute__((aligned(64))) bp_block_t;

struct bp_chunk {
  uintptr_t base;
  size_t size;
  bp_chunk_kind_t kind;
  bp_alloc_pool_t *_Atomic pool; /* changes only in forget_stream */
  bp_block_t *first;
  struct bp_chunk *prev, *next; /* the pool's chunk list */
  /* Value of the pool's free sequence when a block of this chunk was last
   * freed: an event recorded on the stream later covers that use. */
  uint64_t last_free_seq;
};

/* Whether `b` shares its chunk with other blocks (its bytes count as
 * inactive split bytes while it is free or cached). On the hot path. */
static inline __attribute__((always_inline)) bool
bp_block_in_split_chunk(const bp_block_t *b) {
  return b->prev || b->next;
}

/* A chunk that is one whole free block, i.e. idle and releasable. */
static inline bool bp_chunk_is_idle(const bp_chunk_t *chunk) {
  const bp_block_t *b = chunk->first;
  return chunk->kind != BP_CHUNK_DIRECT && b->state == BP_BLOCK_FREE &&
         !b->next;
}

#endif /* BACKPLANE_ALLOC_ALLOC_BLOCK_H_ */
