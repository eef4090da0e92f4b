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
#include <stdint.h>

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
  /* Where the last record_event put it: the stream's id and submission
   * ticket (bp_stream_t.submitted), so that a wait from a host callback can
   * tell whether the event lies behind that callback. 0: none. */
  _Atomic uint32_t recorded_stream_id;
  atomic_uint_fast64_t recorded_ticket;
};

struct bp_stream {
  bp_registry_node_t node; /* in device->streams */
  bp_device_t *device;
  C_Stream native;
  uint64_t serial;         /* process-unique: tells a new stream at a reused
                              address from a destroyed active one */
  bool is_default;         /* the device's (bp_stream_get_default) */
  atomic_bool ever_active; /* set by bp_stream_set_active */
  /* Set by src/kernel before a launch or notify wait is enqueued, and by
   * bp_stream_fail: only then can the stream hold a sticky error, so queries
   * of other streams skip asking. */
  atomic_bool may_have_failed;
  /* The failure bp_stream_fail left: state 0 none, 1 being written, 2 set
   * (status and message readable). Cleared by bp_stream_reset. */
  atomic_int host_failure_state;
  bp_status_t host_failure_status;
  char host_failure_message[384];
  atomic_bool destroyed;
  uint32_t id; /* "vcpu:0/s3" in messages: unique within the device, from 1 */
  /* Tickets of what was handed to the plugin in stream order (callbacks,
   * event records): each takes the next value. */
  atomic_uint_fast64_t submitted;
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

/* Waits from inside a host callback (callbacks.c). The core's trampoline
 * marks the thread as running a callback of its stream for as long as the
 * callback runs. A wait that cannot finish before that callback returns is
 * refused at once with BP_ERR_INVALID_ARGUMENT, a message naming `function`,
 * the callback's stream and why, and (when `function` is a framework-face
 * call) a refusal reported to the observer (bp_api_refused):
 * - the callback's own stream (synchronize, destroy, a drain before a
 *   synchronous copy or memset);
 * - the whole device of that stream (bp_device_synchronize, a queue-less
 *   stream's drain);
 * - an event recorded on that stream after the callback was added.
 * Everything else (other streams and devices, events recorded before the
 * callback) waits as usual. Only direct dependencies are seen: work on
 * another stream made to wait for the callback (bp_stream_wait_event) is
 * not. `function` NULL: a wait of the core's own (nothing reported). */
bp_status_t bp_check_wait_stream(const char *function, bp_stream_t *stream);
bp_status_t bp_check_wait_device(const char *function, bp_device_t *device);
bp_status_t bp_check_wait_event(const char *function, bp_event_t *event);

/* Events the core uses itself (the allocator, sync_from_to): like the public
 * ones but not in the leak registry. */
bp_status_t bp_event_create_internal(bp_device_t *device,
                                     bp_event_t **out_event);
void bp_event_destroy_internal(bp_event_t *event);
/* `stream` may be NULL: the device's queue (records by draining it).
 * `function` names the caller for a refused wait (bp_check_wait_stream). */
bp_status_t bp_event_record_internal(const char *function, bp_event_t *event,
                                     bp_stream_t *stream);

/* bp_event_query and bp_event_synchronize for the core's own use: never a
 * slice of the trace (core/observer.h). */
bp_status_t bp_event_query_internal(bp_event_t *event);
bp_status_t bp_event_synchronize_internal(bp_event_t *event);

/* The device's default stream, created on first use (core/stream.c). */
bp_status_t bp_stream_default_internal(bp_device_t *device,
                                       bp_stream_t **out_stream);

/* Waits for all work on `stream` (the device's when stream->native is NULL);
 * refused inside a host callback that the wait would wait for
 * (bp_check_wait_stream, with `function`). */
bp_status_t bp_stream_drain(const char *function, bp_stream_t *stream);

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
