/* The resources one check creates, released together at its end: streams
 * first (destroying a stream drains it), then events, device memory,
 * pinned and pageable host memory. Lets a check bail out on the first failure
 * without leaking. A pool belongs to one thread. */
#ifndef BACKPLANE_CLI_CHECK_POOL_H_
#define BACKPLANE_CLI_CHECK_POOL_H_

#include <stddef.h>

#include "backplane/backplane.h"

typedef struct check_pool_entry check_pool_entry_t;

typedef struct check_pool {
  check_pool_entry_t *entries;
  size_t count, capacity;
} check_pool_t; /* zero-initialize before use */

/* Each creates an object and records it; on failure nothing is recorded and
 * the status is returned (host memory: NULL, as malloc). */
bp_status_t check_pool_stream(check_pool_t *pool, bp_device_t *device,
                              bp_stream_t **out_stream);
bp_status_t check_pool_event(check_pool_t *pool, bp_device_t *device,
                             bp_event_t **out_event);
bp_status_t check_pool_device_memory(check_pool_t *pool, bp_device_t *device,
                                     size_t size, void **out_ptr);
void *check_pool_host_memory(check_pool_t *pool, size_t size);
/* Page-locked host memory of `device`'s plugin (bp_host_malloc), for copies
 * that must be asynchronous; BP_ERR_UNSUPPORTED if the plugin has none. */
bp_status_t check_pool_pinned_memory(check_pool_t *pool, bp_device_t *device,
                                     size_t size, void **out_ptr);

/* Releases everything in the pool and empties it. A stream that cannot be
 * destroyed (check_stream_destroy) may still run work that touches the
 * pool's memory and events: they are then left as they are, not freed. */
void check_pool_release(check_pool_t *pool);

/* bp_stream_destroy, tried again while it fails: a failed drain leaves the
 * stream alive with work that may still touch the check's memory, and the
 * failure may be passing (an injected fault). Returns the last status. */
bp_status_t check_stream_destroy(bp_stream_t *stream);

#endif /* BACKPLANE_CLI_CHECK_POOL_H_ */
