/* Per-stream workspace arena (internal): LIFO frames bump-allocated from
 * slabs, which are blocks of the stream's data space. Guarded by its own
 * mutex, taken before the pool's lock. */
#ifndef BACKPLANE_ALLOC_WORKSPACE_H_
#define BACKPLANE_ALLOC_WORKSPACE_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Frames are aligned to this many bytes within a slab. */
#define BP_WORKSPACE_ALIGN ((size_t)256)
/* Smallest slab. */
#define BP_WORKSPACE_MIN_SLAB ((size_t)1 << 20)

typedef struct bp_workspace_slab {
  uintptr_t base;
  size_t size;
  size_t used;
} bp_workspace_slab_t;

typedef struct bp_workspace_frame {
  uintptr_t addr;
  uint32_t slab;
  bool freed;
} bp_workspace_frame_t;

typedef struct bp_workspace {
  pthread_mutex_t mu;
  bp_workspace_slab_t *slabs;
  size_t slab_count, slab_capacity;
  bp_workspace_frame_t *frames;
  size_t frame_count, frame_capacity;
  /* Bytes of the frames on the stack (freed ones above the top included
   * until popped), and their largest value since the slabs were last freed. */
  size_t live, peak;
  /* Smallest size of the next slab: BP_WORKSPACE_MIN_SLAB, or the peak of
   * the stack when its slabs were last freed (merged or trimmed), so that a
   * stack that repeats itself needs one slab. Memory held stays within a
   * small multiple of the peak, however often the slabs are freed. */
  size_t next_slab_size;
} bp_workspace_t;

#endif /* BACKPLANE_ALLOC_WORKSPACE_H_ */
