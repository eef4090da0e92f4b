/* The resources one check creates, released together at its end: streams
 * first (destroying a stream drains it), then events, device memory and host
 * memory. Lets a check bail out on the first failure without leaking. A pool
 * belongs to one thread. */
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

/* Releases everything in the pool and empties it. */
void check_pool_release(check_pool_t *pool);

#endif /* BACKPLANE_CLI_CHECK_POOL_H_ */
