/* A bounded pool of host blocks for staged copies (staged_copy.c), kept
 * apart from CUDA so that its rules are tested without a GPU.
 *
 * Blocks of `block_size` bytes come from `allocate` on demand, at most
 * `max_blocks` of them, and are reused; `release` frees them only in
 * cu_staging_pool_destroy. cu_staging_acquire never waits: it returns NULL
 * when every block is in use and the pool is full. A copy chains the blocks
 * it staged through (`next`), and cu_staging_deliver hands the chain back
 * in one call: it is the host function a stream runs after the copy's
 * transfers, so it copies each device-to-host block into its destination
 * and touches nothing but the pool's lock (no CUDA call). Thread-safe:
 * acquire, give back and deliver may run on any threads at once. */
#ifndef BACKPLANE_CUDA_STAGING_H_
#define BACKPLANE_CUDA_STAGING_H_

#include <pthread.h>
#include <stddef.h>

typedef struct cu_staging_pool cu_staging_pool_t;

typedef struct cu_staging_block {
  void *memory; /* block_size bytes */
  void *dst;    /* device-to-host: where cu_staging_deliver copies; or NULL */
  size_t size;  /* the bytes staged in `memory` */
  struct cu_staging_block *next;    /* the idle list, or a copy's chain */
  struct cu_staging_block *created; /* every block of the pool */
  cu_staging_pool_t *pool;
} cu_staging_block_t;

struct cu_staging_pool {
  size_t block_size, max_blocks;
  void *(*allocate)(size_t size); /* NULL when out of memory */
  void (*release)(void *memory);
  pthread_mutex_t lock; /* everything below */
  cu_staging_block_t *idle;
  cu_staging_block_t *blocks; /* every block, through `created` */
  size_t count;               /* blocks created or being created */
};

/* A static initializer. */
#define CU_STAGING_POOL_INIT(block_bytes, blocks, allocate_fn, release_fn)     \
  {                                                                            \
    .block_size = (block_bytes), .max_blocks = (blocks),                       \
    .allocate = (allocate_fn), .release = (release_fn),                        \
    .lock = PTHREAD_MUTEX_INITIALIZER                                          \
  }

/* An idle block (size 0, dst NULL, alone in its chain), allocating one when
 * none is idle and the pool has room; NULL when it has none (or `allocate`
 * failed). */
cu_staging_block_t *cu_staging_acquire(cu_staging_pool_t *pool);

/* Returns a chain of blocks of one pool to it. */
void cu_staging_give_back(cu_staging_block_t *chain);

/* Copies every block of the chain that has a `dst` into it, then gives the
 * chain back. Signature of cudaHostFn_t. */
void cu_staging_deliver(void *chain);

/* Frees every block, those in use included (their streams have drained);
 * the pool stays usable. */
void cu_staging_pool_destroy(cu_staging_pool_t *pool);

#endif /* BACKPLANE_CUDA_STAGING_H_ */
