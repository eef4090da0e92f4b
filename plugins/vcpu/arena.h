/* One virtual device's memory: a shareable arena of `capacity` bytes backed by
 * a memfd (so another process can map it, given the fd and an offset), carved
 * into page-granular allocations by best fit with coalescing free ranges.
 *
 * Every returned pointer is VCPU_ARENA_PAGE aligned. Frees of at least
 * VCPU_ARENA_PUNCH_MIN bytes give their pages back to the kernel
 * (FALLOC_FL_PUNCH_HOLE); smaller ones stay resident for reuse.
 * All functions except create/destroy are thread-safe (one mutex per arena).
 */
#ifndef BACKPLANE_VCPU_ARENA_H_
#define BACKPLANE_VCPU_ARENA_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "backplane/device_ext.h"
#include "base/ptrmap.h"

#define VCPU_ARENA_PAGE 4096u
#define VCPU_ARENA_PUNCH_MIN ((size_t)1 << 20)

typedef struct vcpu_range {
  size_t offset, length; /* bytes, page multiples */
} vcpu_range;

typedef struct vcpu_arena {
  int memfd;
  char *base;
  size_t capacity; /* a page multiple */
  pthread_mutex_t lock;
  vcpu_range *free_ranges; /* sorted by offset, never adjacent */
  size_t free_count, free_capacity;
  vcpu_ptrmap live; /* address -> requested size */
  size_t used;      /* page-rounded bytes of live allocations */
} vcpu_arena;

/* Creates the memfd and maps it. Returns 0 or an errno value; on failure the
 * arena holds nothing. `name` labels the memfd (/proc/<pid>/fd). */
int vcpu_arena_create(vcpu_arena *arena, size_t capacity, const char *name);

/* Unmaps and closes. Live allocations are dropped without a word: the caller
 * reports them first (vcpu_arena_usage). */
void vcpu_arena_destroy(vcpu_arena *arena);

/* size > 0. C_SUCCESS with *out set, C_FAILED when no free range fits (the
 * device is out of memory) or bookkeeping memory runs out. */
C_Status vcpu_arena_allocate(vcpu_arena *arena, size_t size, void **out);

/* C_ERROR (arena unchanged) if `ptr` is not a live allocation or `size` is not
 * the size it was allocated with. */
C_Status vcpu_arena_free(vcpu_arena *arena, void *ptr, size_t size);

/* Frees every live allocation and punches the whole arena. */
void vcpu_arena_reset(vcpu_arena *arena);

typedef struct vcpu_arena_usage_info {
  size_t used;       /* page-rounded bytes */
  size_t live_count; /* allocations */
  size_t live_bytes; /* requested bytes */
} vcpu_arena_usage_info;

vcpu_arena_usage_info vcpu_arena_usage(vcpu_arena *arena);

/* Whether [ptr, ptr + size) lies inside the arena's mapping (no lock). */
static inline bool vcpu_arena_contains(const vcpu_arena *arena, const void *ptr,
                                       size_t size) {
  const char *p = (const char *)ptr;
  return p >= arena->base && size <= arena->capacity &&
         (size_t)(p - arena->base) <= arena->capacity - size;
}

#endif /* BACKPLANE_VCPU_ARENA_H_ */
