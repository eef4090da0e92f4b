/* Events: points in a stream, their queries and timing. Each entry point is
 * a slice of the trace when traced (core/observer.h). */
#include <stdio.h>
#include <stdlib.h>

#include "base/status.h"
#include "core/active.h"
#include "core/observer.h"
#include "core/runtime_internal.h"
#include "core/stream_internal.h"

bp_status_t bp_destroyed_event_error(const char *function,
                                     const bp_event_t *event) {
  bp_status_t status = bp_error(
      BP_ERR_INVALID_ARGUMENT, "%s: event %p of %s was destroyed already",
      function, (const void *)event, event->device->name);
  bp_api_refused(event->device, function);
  return status;
}

static bp_handle_pool_t *event_handles(const bp_device_t *device) {
  return &device->plugin->runtime->event_handles;
}

bp_status_t bp_event_create_internal(bp_device_t *device,
                                     bp_event_t **out_event) {
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  bp_event_t *event = bp_handle_pool_take(event_handles(device));
  if (!event)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_event_create on %s: out of memory", device->name);
  event->device = device;
  event->dispatch = &device->plugin->dispatch;
  atomic_init(&event->state, BP_EVENT_NEVER_RECORDED);
  C_Event native = NULL;
  C_Status result = event->dispatch->create_event(&device->c_device, &native);
  if (!BP_C_OK(result)) {
    atomic_store(&event->destroyed, true);
    bp_handle_pool_give(event_handles(device), event);
    return bp_plugin_call_error(device, "create_event", result);
  }
  event->native = native;
  *out_event = event;
  return BP_OK;
}

void bp_event_destroy_internal(bp_event_t *event) {
  if (event->native && bp_device_enter(event->device) == BP_OK)
    event->dispatch->destroy_event(&event->device->c_device, event->native);
  atomic_store(&event->destroyed, true);
  bp_handle_pool_give(event_handles(event->device), event);
}

bp_status_t bp_event_record_internal(const char *function, bp_event_t *event,
                                     bp_stream_t *stream) {
  bp_device_t *device = event->device;
  if (!stream || !stream->native || !event->native) {
    /* No plugin object to capture the work in: wait for it now. */
    bp_status_t status;
    if (stream) {
      status = bp_stream_drain(function, stream);
    } else {
      status = bp_check_wait_device(function, device);
      if (status == BP_OK)
        status = bp_device_enter(device);
      C_Status result =
          status == BP_OK
              ? event->dispatch->synchronize_device(&device->c_device)
              : C_SUCCESS;
      if (!BP_C_OK(result))
        status = bp_plugin_call_error(device, "synchronize_device", result);
    }
    if (status == BP_OK)
      atomic_store_explicit(&event->state, BP_EVENT_HOST_COMPLETE,
                            memory_order_release);
    return status;
  }
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  uint64_t ticket = atomic_fetch_add(&stream->submitted, 1) + 1;
  C_Status result = event->dispatch->record_event(
      &device->c_device, stream->native, event->native);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, "record_event", result);
  atomic_store_explicit(&event->recorded_stream_id, stream->id,
                        memory_order_relaxed);
  atomic_store_explicit(&event->recorded_ticket, ticket, memory_order_relaxed);
  atomic_store_explicit(&event->state, BP_EVENT_RECORDED, memory_order_release);
  return BP_OK;
}

BP_API_BODY bp_status_t event_create(bp_device_t *device,
                                     bp_event_t **out_event) {
  if (!device || !out_event)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_event_create: device or out_event is NULL");
  bp_event_t *event;
  bp_status_t status = bp_event_create_internal(device, &event);
  if (status != BP_OK)
    return status;
  event->registered = true;
  pthread_mutex_lock(&device->lock);
  bp_registry_insert(&device->events, &event->node);
  pthread_mutex_unlock(&device->lock);
  *out_event = event;
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_event_create(bp_device_t *device, bp_event_t **out_event) {
  BP_TRACE_CALL(device, "bp_event_create", event_create(device, out_event),
                ",\"event\":\"%p\"",
                status == BP_OK ? (void *)*out_event : NULL);
}

BP_API bp_status_t bp_event_create(bp_device_t *device,
                                   bp_event_t **out_event) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_event_create(device, out_event);
  return event_create(device, out_event);
}

BP_API_BODY bp_status_t event_destroy(bp_event_t *event) {
  if (!event)
    return BP_OK;
  /* A refused wait leaves the event as it was. */
  bp_status_t status = bp_event_check("bp_event_destroy", event);
  if (status == BP_OK && atomic_load(&event->state) == BP_EVENT_RECORDED)
    status = bp_check_wait_event("bp_event_destroy", event);
  if (status != BP_OK)
    return status;
  /* Only one of two racing destroys of one event goes on. */
  if (atomic_exchange(&event->destroyed, true))
    return bp_destroyed_event_error("bp_event_destroy", event);
  bp_device_t *device = event->device;
  /* A record still pending in the plugin must not outlive its event. */
  if (atomic_load(&event->state) == BP_EVENT_RECORDED &&
      bp_device_enter(device) == BP_OK)
    event->dispatch->synchronize_event(&device->c_device, event->native);
  pthread_mutex_lock(&device->lock);
  bp_registry_remove(&device->events, &event->node);
  pthread_mutex_unlock(&device->lock);
  bp_event_destroy_internal(event);
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_event_destroy(bp_event_t *event) {
  char handle[32];
  snprintf(handle, sizeof handle, "%p", (const void *)event);
  bp_api_call_t call = bp_api_call_begin(event->device, "bp_event_destroy");
  bp_status_t status = event_destroy(event);
  bp_api_call_end(&call, status, ",\"event\":\"%s\"", handle);
  return status;
}

BP_API bp_status_t bp_event_destroy(bp_event_t *event) {
  if (event != NULL && BP_OBSERVED(event->device))
    return traced_event_destroy(event);
  return event_destroy(event);
}

void bp_event_release_leaked(bp_event_t *event) {
  bp_registry_remove(&event->device->events, &event->node);
  bp_event_destroy_internal(event);
}

BP_API_BODY bp_status_t event_record(bp_event_t *event, bp_stream_t *stream) {
  bp_status_t resolved =
      event ? bp_stream_resolve(event->device, &stream) : BP_OK;
  if (resolved != BP_OK)
    return resolved;
  if (!event || !stream)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_event_record: event or stream is NULL");
  bp_status_t status = bp_event_check("bp_event_record", event);
  if (status == BP_OK)
    status = bp_stream_check("bp_event_record", stream);
  if (status != BP_OK)
    return status;
  if (stream->device != event->device) {
    status = bp_error(BP_ERR_INVALID_ARGUMENT,
                      "bp_event_record: the event belongs to %s but the "
                      "stream to %s",
                      event->device->name, stream->device->name);
    bp_api_refused(event->device, "bp_event_record");
    return status;
  }
  return bp_event_record_internal("bp_event_record", event, stream);
}

static __attribute__((noinline, cold)) bp_status_t
traced_event_record(bp_event_t *event, bp_stream_t *stream) {
  BP_TRACE_CALL(event->device, "bp_event_record", event_record(event, stream),
                ",\"event\":\"%p\",\"stream\":\"%p\"", (void *)event,
                (void *)stream);
}

BP_API bp_status_t bp_event_record(bp_event_t *event, bp_stream_t *stream) {
  if (event != NULL && BP_OBSERVED(event->device))
    return traced_event_record(event, stream);
  return event_record(event, stream);
}

/* Maps a plugin query answer: C_FAILED means "still pending". */
static bp_status_t query_result(const bp_device_t *device, const char *function,
                                C_Status result) {
  if (BP_C_OK(result))
    return BP_OK;
  if (result == C_FAILED)
    return BP_ERR_NOT_READY;
  return bp_plugin_call_error(device, function, result);
}

BP_API_BODY bp_status_t event_query(bp_event_t *event) {
  if (!event)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_event_query: event is NULL");
  bp_status_t status = bp_event_check("bp_event_query", event);
  if (status != BP_OK)
    return status;
  if (atomic_load_explicit(&event->state, memory_order_acquire) !=
      BP_EVENT_RECORDED)
    return BP_OK;
  C_Status result =
      event->dispatch->query_event(&event->device->c_device, event->native);
  if (result == C_SUCCESS)
    return BP_OK;
  return query_result(event->device, "query_event", result);
}

bp_status_t bp_event_query_internal(bp_event_t *event) {
  return event_query(event);
}

static __attribute__((noinline, cold)) bp_status_t
traced_event_query(bp_event_t *event) {
  BP_TRACE_CALL(event->device, "bp_event_query", event_query(event),
                ",\"event\":\"%p\"", (void *)event);
}

BP_API bp_status_t bp_event_query(bp_event_t *event) {
  if (event != NULL && BP_OBSERVED(event->device))
    return traced_event_query(event);
  return event_query(event);
}

BP_API_BODY bp_status_t event_synchronize(bp_event_t *event) {
  if (!event)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_event_synchronize: event is NULL");
  bp_status_t status = bp_event_check("bp_event_synchronize", event);
  if (status != BP_OK)
    return status;
  if (atomic_load_explicit(&event->state, memory_order_acquire) !=
      BP_EVENT_RECORDED)
    return BP_OK;
  if ((status = bp_check_wait_event("bp_event_synchronize", event)) != BP_OK)
    return status;
  bp_device_t *device = event->device;
  status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  C_Status result =
      event->dispatch->synchronize_event(&device->c_device, event->native);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, "synchronize_event", result);
  return BP_OK;
}

bp_status_t bp_event_synchronize_internal(bp_event_t *event) {
  return event_synchronize(event);
}

static __attribute__((noinline, cold)) bp_status_t
traced_event_synchronize(bp_event_t *event) {
  BP_TRACE_CALL(event->device, "bp_event_synchronize", event_synchronize(event),
                ",\"event\":\"%p\"", (void *)event);
}

BP_API bp_status_t bp_event_synchronize(bp_event_t *event) {
  if (event != NULL && BP_OBSERVED(event->device))
    return traced_event_synchronize(event);
  return event_synchronize(event);
}

BP_API_BODY bp_status_t event_elapsed_time(bp_event_t *start, bp_event_t *end,
                                           float *out_milliseconds) {
  if (!start || !end || !out_milliseconds)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_event_elapsed_time: start, end or out_milliseconds is "
                    "NULL");
  bp_status_t status = bp_event_check("bp_event_elapsed_time", start);
  if (status == BP_OK)
    status = bp_event_check("bp_event_elapsed_time", end);
  if (status != BP_OK)
    return status;
  bp_device_t *device = start->device;
  if (end->device != device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_event_elapsed_time: events of different devices (%s "
                    "and %s)",
                    device->name, end->device->name);
  const BP_EventTimingExtension *timing =
      device->plugin->extensions.event_timing;
  if (!timing)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "%s: no event timing (the plugin does not export the "
                    "event_timing extension)",
                    device->plugin->device_type);
  int start_state = atomic_load(&start->state);
  int end_state = atomic_load(&end->state);
  if (start_state == BP_EVENT_NEVER_RECORDED ||
      end_state == BP_EVENT_NEVER_RECORDED)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_event_elapsed_time: the %s event on %s was never "
                    "recorded",
                    start_state == BP_EVENT_NEVER_RECORDED ? "start" : "end",
                    device->name);
  if (start_state != BP_EVENT_RECORDED || end_state != BP_EVENT_RECORDED)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_event_elapsed_time: %s recorded the event without a "
                    "plugin event (no streams or events), so it has no time",
                    device->name);
  status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  float milliseconds = 0.0f;
  C_Status result = timing->event_elapsed_time(&device->c_device, start->native,
                                               end->native, &milliseconds);
  status = query_result(device, "event_elapsed_time", result);
  if (status == BP_OK)
    *out_milliseconds = milliseconds;
  return status;
}

static __attribute__((noinline, cold)) bp_status_t
traced_event_elapsed_time(bp_event_t *start, bp_event_t *end,
                          float *out_milliseconds) {
  BP_TRACE_CALL(start->device, "bp_event_elapsed_time",
                event_elapsed_time(start, end, out_milliseconds),
                ",\"start\":\"%p\",\"end\":\"%p\"", (void *)start, (void *)end);
}

BP_API bp_status_t bp_event_elapsed_time(bp_event_t *start, bp_event_t *end,
                                         float *out_milliseconds) {
  if (start != NULL && BP_OBSERVED(start->device))
    return traced_event_elapsed_time(start, end, out_milliseconds);
  return event_elapsed_time(start, end, out_milliseconds);
}
