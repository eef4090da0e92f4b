/* Host buffers are the caller's again when bp_copy returns (internal).
 *
 * A copy on a stream between a device and pageable host memory must not
 * touch the host buffer after the call: host->device data is captured into
 * pinned staging buffers before bp_copy returns (or copied on the caller's
 * thread when the stream is idle and the copy fits one chunk), and
 * device->host returns once the data is in the buffer. Memory from
 * bp_host_malloc (any device of the plugin) keeps the asynchronous path.
 *
 * Each device has one pool of staging buffers of BP_COPY_STAGING_CHUNK
 * bytes, at most BP_STAGING_BUFFERS of them, created on demand. A buffer
 * goes back to the pool once the stream has passed the copy that read it
 * (an event recorded after the copy); when all are in flight, the copy waits
 * for the oldest. Thread-safe: `lock` guards the lists, never held while
 * waiting for a stream. */
#ifndef BACKPLANE_CORE_STAGING_H_
#define BACKPLANE_CORE_STAGING_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "backplane/memory.h"

/* Per device: BP_STAGING_BUFFERS * BP_COPY_STAGING_CHUNK bytes at most. */
#define BP_STAGING_BUFFERS 8

typedef struct bp_staging_buffer bp_staging_buffer_t;

typedef struct bp_staging_pool {
  pthread_mutex_t lock;
  bp_staging_buffer_t *idle;
  /* Released to a stream, oldest first; each back in `idle` once its event
   * has completed. */
  bp_staging_buffer_t *in_flight, *in_flight_tail;
  /* Handed to a stream that could be neither recorded nor drained: never
   * reused, freed at teardown. */
  bp_staging_buffer_t *held;
  size_t created;
} bp_staging_pool_t;

void bp_staging_pool_init(bp_staging_pool_t *pool);
/* Frees every buffer; the device has been synchronized (teardown). */
void bp_staging_pool_release(bp_device_t *device);

/* Whether [ptr, ptr + size) is inside memory from bp_host_malloc on
 * `device` or another device of its plugin. */
bool bp_host_memory_pinned(bp_device_t *device, const void *ptr, size_t size);

/* Host->device on `stream` (which has a plugin stream and belongs to
 * `device`) from pageable memory: `src` is read only before the return. */
bp_status_t bp_staged_copy_h2d(bp_device_t *device, bp_stream_t *stream,
                               void *dst, const void *src, size_t size);
/* Device->host on `stream` into pageable memory: ordered after the work
 * already on `stream`, complete when the call returns. */
bp_status_t bp_waited_copy_d2h(bp_device_t *device, bp_stream_t *stream,
                               void *dst, const void *src, size_t size);

#endif /* BACKPLANE_CORE_STAGING_H_ */
