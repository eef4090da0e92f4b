/* Streams and events (internal).
 *
 * A bp_stream_t wraps the plugin's C_Stream; NULL means the plugin has no
 * streams (or returned none): the stream is then the device's single queue,
 * so work on it takes the synchronous path after synchronize_device.
 * A bp_event_t wraps a C_Event the same way; its state says whether the
 * plugin holds the captured work (RECORDED) or it was already waited for on
 * the host (HOST_COMPLETE).
 *
 * Both live in the runtime's handle pools (core/handle_pool.h): once
 * destroyed, a handle keeps `destroyed` set, so every entry point refuses it
 * with one load (bp_stream_check, bp_event_check) instead of reading freed
 * memory. */
#ifndef BACKPLANE_CORE_STREAM_INTERNAL_H_
#define BACKPLANE_CORE_STREAM_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>

#include "backplane/stream.h"
#include "core/device_table.h"

enum bp_event_state {
  BP_EVENT_NEVER_RECORDED = 0,
  BP_EVENT_HOST_COMPLETE = 1, /* recorded by draining on the host */
  BP_EVENT_RECORDED = 2,      /* record_event handed it to the plugin */
};

struct bp_event {
  bp_registry_node_t node; /* in device->events when `registered` */
  bp_device_t *device;
  const C_DeviceInterface *dispatch; /* &device->plugin->dispatch */
  C_Event native;
  atomic_int state; /* enum bp_event_state */
  atomic_bool destroyed;
  bool registered;
  struct bp_event *next_retired; /* see bp_stream_t.retired */
};

struct bp_stream {
  bp_registry_node_t node; /* in device->streams */
  bp_device_t *device;
  C_Stream native;
  atomic_bool destroyed;
  /* Internal events of bp_stream_sync_from_to that a wait enqueued on this
   * stream may still reference; destroyed once the stream has been seen idle
   * after they were enqueued. Guarded by device->lock. */
  bp_event_t *retired;
  size_t retired_count;
};

/* BP_ERR_INVALID_ARGUMENT naming `function` and the destroyed handle. */
__attribute__((cold)) bp_status_t
bp_destroyed_stream_error(const char *function, const bp_stream_t *stream);
__attribute__((cold)) bp_status_t
bp_destroyed_event_error(const char *function, const bp_event_t *event);

/* BP_OK for NULL or a live handle; the error above for a destroyed one. */
static inline bp_status_t bp_stream_check(const char *function,
                                          const bp_stream_t *stream) {
  if (__builtin_expect(
          stream != NULL &&
              atomic_load_explicit(&stream->destroyed, memory_order_relaxed),
          0))
    return bp_destroyed_stream_error(function, stream);
  return BP_OK;
}
static inline bp_status_t bp_event_check(const char *function,
                                         const bp_event_t *event) {
  if (__builtin_expect(
          event != NULL &&
              atomic_load_explicit(&event->destroyed, memory_order_relaxed),
          0))
    return bp_destroyed_event_error(function, event);
  return BP_OK;
}

/* Events the core uses itself (the allocator, sync_from_to): like the public
 * ones but not in the leak registry. */
bp_status_t bp_event_create_internal(bp_device_t *device,
                                     bp_event_t **out_event);
void bp_event_destroy_internal(bp_event_t *event);
/* `stream` may be NULL: the device's queue (records by draining it). */
bp_status_t bp_event_record_internal(bp_event_t *event, bp_stream_t *stream);

/* bp_event_query and bp_event_synchronize for the core's own use: never a
 * slice of the trace (core/observer.h). */
bp_status_t bp_event_query_internal(bp_event_t *event);
bp_status_t bp_event_synchronize_internal(bp_event_t *event);

/* Waits for all work on `stream` (the device's when stream->native is NULL). */
bp_status_t bp_stream_drain(bp_stream_t *stream);

/* Whether `native` is the C_Stream of a live stream of one of `plugin`'s
 * devices. A stream is live from its creation's return to the start of its
 * destruction (after it drained). Takes each device's lock in turn; not
 * after bp_runtime_destroy began. */
bool bp_plugin_owns_stream(const bp_plugin_t *plugin, const void *native);

/* Releases a stream or event the caller leaked (bp_runtime_destroy). The
 * device has been synchronized; the device lock is not held. */
void bp_stream_release_leaked(bp_stream_t *stream);
void bp_event_release_leaked(bp_event_t *event);

#endif /* BACKPLANE_CORE_STREAM_INTERNAL_H_ */
