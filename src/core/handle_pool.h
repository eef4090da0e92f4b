/* Type-stable storage for stream and event handles (internal).
 *
 * A destroyed bp_stream_t or bp_event_t passed again must be refused with a
 * message, not read back from freed memory. Handles therefore come from a
 * pool owned by the runtime: a destroyed object's memory stays mapped and
 * keeps its `destroyed` mark while it waits in a FIFO quarantine of
 * BP_HANDLE_QUARANTINE objects; only then is it reused for a new handle (a
 * stale handle older than that may alias a new object, as with any
 * pointer-sized handle). Everything is freed at bp_runtime_destroy.
 *
 * Thread-safety: take and give lock the pool; reading a handle's mark needs
 * no lock (the memory is never unmapped while the runtime lives). */
#ifndef BACKPLANE_CORE_HANDLE_POOL_H_
#define BACKPLANE_CORE_HANDLE_POOL_H_

#include <pthread.h>
#include <stddef.h>

#define BP_HANDLE_QUARANTINE 4096

typedef struct bp_handle_slot bp_handle_slot_t;

typedef struct bp_handle_pool {
  pthread_mutex_t lock;
  size_t object_size;
  bp_handle_slot_t *oldest, *newest; /* the quarantine, oldest first */
  size_t quarantined;
  bp_handle_slot_t *reusable; /* past the quarantine */
  bp_handle_slot_t *all;      /* every slot, for release */
} bp_handle_pool_t;

void bp_handle_pool_init(bp_handle_pool_t *pool, size_t object_size);
/* Frees every slot; no handle may be used afterwards. */
void bp_handle_pool_release(bp_handle_pool_t *pool);
/* Zeroed memory for one object; NULL when host memory runs out. */
void *bp_handle_pool_take(bp_handle_pool_t *pool);
/* Quarantines `object` (from take). Its bytes are left as they are, so the
 * caller's destroyed mark stays readable. */
void bp_handle_pool_give(bp_handle_pool_t *pool, void *object);

#endif /* BACKPLANE_CORE_HANDLE_POOL_H_ */
