/* Streams: creation, queries, synchronization, waits between streams. Each
 * entry point is a slice of the trace when traced (core/observer.h). */
#include <stdio.h>
#include <stdlib.h>

#include "backplane/kernel_ext.h"
#include "backplane/vendor_access.h"
#include "base/status.h"
#include "core/active.h"
#include "core/observer.h"
#include "core/runtime_internal.h"
#include "core/stream_internal.h"

/* Above this many retired internal events a stream is polled for idleness
 * on the next sync_from_to, so the list stays bounded. */
#define BP_RETIRED_POLL_THRESHOLD 64

/* Streams' serials (bp_stream_t.serial). */
static atomic_uint_fast64_t next_stream_serial = 1;

bp_status_t bp_destroyed_stream_error(const char *function,
                                      const bp_stream_t *stream) {
  bp_status_t status = bp_error(
      BP_ERR_INVALID_ARGUMENT, "%s: stream %p of %s was destroyed already",
      function, (const void *)stream, stream->device->name);
  bp_api_refused(stream->device, function);
  return status;
}

BP_API_BODY bp_status_t stream_create(bp_device_t *device,
                                      bp_stream_t **out_stream) {
  if (!device || !out_stream)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_create: device or out_stream is NULL");
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  bp_handle_pool_t *handles = &device->plugin->runtime->stream_handles;
  bp_stream_t *stream = bp_handle_pool_take(handles);
  if (!stream)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_stream_create on %s: out of memory", device->name);
  stream->device = device;
  stream->serial = atomic_fetch_add(&next_stream_serial, 1);
  atomic_init(&stream->ever_active, false);
  atomic_init(&stream->may_have_failed, false);
  atomic_init(&stream->host_failure_state, 0);
  C_Stream native = NULL;
  C_Status result =
      device->plugin->dispatch.create_stream(&device->c_device, &native);
  if (!BP_C_OK(result)) {
    atomic_store(&stream->destroyed, true);
    bp_handle_pool_give(handles, stream);
    return bp_plugin_call_error(device, "create_stream", result);
  }
  stream->native = native;
  pthread_mutex_lock(&device->lock);
  stream->id = ++device->last_stream_id;
  bp_registry_insert(&device->streams, &stream->node);
  pthread_mutex_unlock(&device->lock);
  *out_stream = stream;
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_stream_create(bp_device_t *device, bp_stream_t **out_stream) {
  BP_TRACE_CALL(device, "bp_stream_create", stream_create(device, out_stream),
                ",\"stream\":\"%p\"",
                status == BP_OK ? (void *)*out_stream : NULL);
}

BP_API bp_status_t bp_stream_create(bp_device_t *device,
                                    bp_stream_t **out_stream) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_stream_create(device, out_stream);
  return stream_create(device, out_stream);
}

static void release_stream(bp_stream_t *stream);

bp_status_t bp_stream_default_internal(bp_device_t *device,
                                       bp_stream_t **out_stream) {
  bp_stream_t *stream =
      atomic_load_explicit(&device->default_stream, memory_order_acquire);
  if (stream) {
    *out_stream = stream;
    return BP_OK;
  }
  bp_stream_t *created = NULL;
  bp_status_t status = stream_create(device, &created);
  if (status != BP_OK)
    return status;
  created->is_default = true;
  if (!atomic_compare_exchange_strong(&device->default_stream, &stream,
                                      created)) {
    /* Another thread's came first: `stream` holds it now. */
    atomic_store(&created->destroyed, true);
    pthread_mutex_lock(&device->lock);
    bp_registry_remove(&device->streams, &created->node);
    pthread_mutex_unlock(&device->lock);
    release_stream(created);
    created = stream;
  }
  *out_stream = created;
  return BP_OK;
}

bp_status_t bp_stream_drain(const char *function, bp_stream_t *stream) {
  bp_status_t status = bp_check_wait_stream(function, stream);
  if (status != BP_OK)
    return status;
  bp_device_t *device = stream->device;
  status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  const C_DeviceInterface *d = &device->plugin->dispatch;
  if (!stream->native) {
    C_Status result = d->synchronize_device(&device->c_device);
    return BP_C_OK(result)
               ? BP_OK
               : bp_plugin_call_error(device, "synchronize_device", result);
  }
  C_Status result = d->synchronize_stream(&device->c_device, stream->native);
  return BP_C_OK(result)
             ? BP_OK
             : bp_plugin_call_error(device, "synchronize_stream", result);
}

/* stream_sticky_error on a stream that may hold one: bp_stream_fail's
 * record first, then the plugin's (kernel_ext.h). */
static __attribute__((noinline)) bp_status_t
stream_recorded_error(bp_stream_t *stream) {
  bp_device_t *device = stream->device;
  if (atomic_load_explicit(&stream->host_failure_state, memory_order_acquire) ==
      2)
    return bp_error(stream->host_failure_status, "%s/s%u: %s", device->name,
                    (unsigned)stream->id, stream->host_failure_message);
  const BP_KernelExtension *kernels = device->plugin->extensions.kernels;
  if (!kernels || !stream->native)
    return BP_OK;
  int32_t status = 0;
  char message[768]; /* not cleared: this runs on every successful query */
  message[0] = '\0';
  if (kernels->stream_error(&device->c_device, stream->native, &status, message,
                            sizeof message) != C_SUCCESS ||
      status == BP_OK)
    return BP_OK;
  return bp_error((bp_status_t)status, "%s: stream %p on %s: %s",
                  device->plugin->device_type, (void *)stream, device->name,
                  message);
}

/* The sticky failure on the stream (bp_stream_fail, or a kernel's:
 * kernel_ext.h), else BP_OK. Inline: the stream's own flag, one load, is all
 * that streams which never could fail pay after a successful query. */
static inline __attribute__((always_inline)) bp_status_t
stream_sticky_error(bp_stream_t *stream) {
  if (!atomic_load_explicit(&stream->may_have_failed, memory_order_relaxed))
    return BP_OK;
  return stream_recorded_error(stream);
}

BP_API bp_status_t bp_stream_fail(bp_stream_t *stream, bp_status_t status,
                                  const char *message) {
  if (stream == BP_STREAM_ACTIVE)
    return bp_stream_active_refused("bp_stream_fail");
  if (!stream)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_stream_fail: stream is NULL");
  if (status == BP_OK)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_fail: status is BP_OK, expected a failure");
  bp_status_t checked = bp_stream_check("bp_stream_fail", stream);
  if (checked != BP_OK)
    return checked;
  int idle = 0; /* the first failure is kept until a reset */
  if (atomic_compare_exchange_strong(&stream->host_failure_state, &idle, 1)) {
    stream->host_failure_status = status;
    snprintf(stream->host_failure_message, sizeof stream->host_failure_message,
             "%s", message ? message : "(no message)");
    atomic_store_explicit(&stream->host_failure_state, 2, memory_order_release);
    atomic_store_explicit(&stream->may_have_failed, true, memory_order_release);
  }
  return BP_OK;
}

BP_API bp_status_t bp_stream_reset(bp_stream_t *stream) {
  if (stream == BP_STREAM_ACTIVE)
    return bp_stream_active_refused("bp_stream_reset");
  if (!stream)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_stream_reset: stream is NULL");
  int set = 2; /* a failure still being recorded stays */
  atomic_compare_exchange_strong(&stream->host_failure_state, &set, 0);
  bp_device_t *device = stream->device;
  const BP_KernelExtension *kernels = device->plugin->extensions.kernels;
  if (!kernels || !stream->native)
    return BP_OK; /* no kernels: no plugin error to clear */
  C_Status result = kernels->stream_reset(&device->c_device, stream->native);
  return BP_C_OK(result) ? BP_OK
                         : bp_plugin_call_error(device, "stream_reset", result);
}

static bp_event_t *take_retired(bp_stream_t *stream) {
  pthread_mutex_lock(&stream->device->lock);
  bp_event_t *list = stream->retired;
  stream->retired = NULL;
  stream->retired_count = 0;
  pthread_mutex_unlock(&stream->device->lock);
  return list;
}

static void give_back_retired(bp_stream_t *stream, bp_event_t *list) {
  size_t n = 0;
  bp_event_t *last = NULL;
  for (bp_event_t *e = list; e; e = e->next_retired, ++n)
    last = e;
  if (!last)
    return;
  pthread_mutex_lock(&stream->device->lock);
  last->next_retired = stream->retired;
  stream->retired = list;
  stream->retired_count += n;
  pthread_mutex_unlock(&stream->device->lock);
}

static void destroy_retired(bp_event_t *list) {
  while (list) {
    bp_event_t *next = list->next_retired;
    bp_event_destroy_internal(list);
    list = next;
  }
}

BP_API_BODY bp_status_t stream_synchronize(bp_stream_t *stream) {
  if (!stream)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_synchronize: stream is NULL");
  bp_status_t status = bp_stream_check("bp_stream_synchronize", stream);
  if (status != BP_OK)
    return status;
  /* Only events retired before the wait began are known to be unused after
   * it. */
  bp_event_t *retired = take_retired(stream);
  status = bp_stream_drain("bp_stream_synchronize", stream);
  if (status == BP_OK)
    destroy_retired(retired);
  else
    give_back_retired(stream, retired);
  return status == BP_OK ? stream_sticky_error(stream) : status;
}

static __attribute__((noinline, cold)) bp_status_t
traced_stream_synchronize(bp_stream_t *stream) {
  BP_TRACE_CALL(stream->device, "bp_stream_synchronize",
                stream_synchronize(stream), ",\"stream\":\"%p\"",
                (void *)stream);
}

BP_API bp_status_t bp_stream_synchronize(bp_stream_t *stream) {
  if (stream == BP_STREAM_ACTIVE)
    return bp_stream_active_refused("bp_stream_synchronize");
  if (stream != NULL && BP_OBSERVED(stream->device))
    return traced_stream_synchronize(stream);
  return stream_synchronize(stream);
}

static void release_stream(bp_stream_t *stream) {
  bp_device_t *device = stream->device;
  destroy_retired(take_retired(stream));
  bp_caching_allocator_t *allocator = bp_device_allocator_if_created(device);
  if (allocator)
    bp_caching_allocator_forget_stream(allocator, stream);
  if (stream->native && bp_device_enter(device) == BP_OK) {
    if (device->plugin->extensions.kernels) /* its sticky error goes with it */
      device->plugin->extensions.kernels->stream_reset(&device->c_device,
                                                       stream->native);
    device->plugin->dispatch.destroy_stream(&device->c_device, stream->native);
  }
  bp_handle_pool_give(&device->plugin->runtime->stream_handles, stream);
}

BP_API_BODY bp_status_t stream_destroy(bp_stream_t *stream) {
  if (!stream)
    return BP_OK;
  if (stream->is_default)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_destroy: the default stream of %s belongs to "
                    "the device",
                    stream->device->name);
  bp_status_t status = bp_stream_check("bp_stream_destroy", stream);
  if (status != BP_OK)
    return status;
  /* A stream that cannot be drained (a layer refused the wait, the plugin
   * failed) is left as it was: its work still runs and it stays usable. */
  status = bp_stream_drain("bp_stream_destroy", stream);
  if (status != BP_OK)
    return status;
  bp_device_t *device = stream->device;
  /* Only one of two racing destroys of one stream goes on. */
  if (atomic_exchange(&stream->destroyed, true))
    return bp_destroyed_stream_error("bp_stream_destroy", stream);
  pthread_mutex_lock(&device->lock);
  bp_registry_remove(&device->streams, &stream->node);
  bp_stream_forget_active(stream);
  pthread_mutex_unlock(&device->lock);
  release_stream(stream);
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_stream_destroy(bp_stream_t *stream) {
  char handle[32];
  snprintf(handle, sizeof handle, "%p", (const void *)stream);
  bp_api_call_t call = bp_api_call_begin(stream->device, "bp_stream_destroy");
  bp_status_t status = stream_destroy(stream);
  bp_api_call_end(&call, status, ",\"stream\":\"%s\"", handle);
  return status;
}

BP_API bp_status_t bp_stream_destroy(bp_stream_t *stream) {
  if (stream == BP_STREAM_ACTIVE)
    return bp_stream_active_refused("bp_stream_destroy");
  if (stream != NULL && BP_OBSERVED(stream->device))
    return traced_stream_destroy(stream);
  return stream_destroy(stream);
}

void bp_stream_release_leaked(bp_stream_t *stream) {
  atomic_store(&stream->destroyed, true);
  bp_registry_remove(&stream->device->streams, &stream->node);
  release_stream(stream);
}

BP_API bp_device_t *bp_stream_device(const bp_stream_t *stream) {
  return stream && stream != BP_STREAM_ACTIVE ? stream->device : NULL;
}

BP_API C_Stream bp_stream_c_handle(const bp_stream_t *stream) {
  return stream && stream != BP_STREAM_ACTIVE ? stream->native : NULL;
}

BP_API_BODY bp_status_t stream_query(bp_stream_t *stream) {
  if (!stream)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_stream_query: stream is NULL");
  bp_status_t status = bp_stream_check("bp_stream_query", stream);
  if (status != BP_OK)
    return status;
  if (!stream->native) { /* done once drained */
    status = bp_stream_drain("bp_stream_query", stream);
    return status == BP_OK ? stream_sticky_error(stream) : status;
  }
  C_Status result = stream->device->plugin->dispatch.query_stream(
      &stream->device->c_device, stream->native);
  if (BP_C_OK(result))
    return stream_sticky_error(stream);
  if (result == C_FAILED)
    return BP_ERR_NOT_READY;
  /* The device read again, not kept across the call: the common path then
   * saves one register fewer. */
  return bp_plugin_call_error(stream->device, "query_stream", result);
}

static __attribute__((noinline, cold)) bp_status_t
traced_stream_query(bp_stream_t *stream) {
  BP_TRACE_CALL(stream->device, "bp_stream_query", stream_query(stream),
                ",\"stream\":\"%p\"", (void *)stream);
}

BP_API bp_status_t bp_stream_query(bp_stream_t *stream) {
  if (stream == BP_STREAM_ACTIVE)
    return bp_stream_active_refused("bp_stream_query");
  if (stream != NULL && BP_OBSERVED(stream->device))
    return traced_stream_query(stream);
  return stream_query(stream);
}

BP_API_BODY bp_status_t stream_wait_event(bp_stream_t *stream,
                                          bp_event_t *event) {
  if (!stream || !event)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_wait_event: stream or event is NULL");
  bp_status_t status = bp_stream_check("bp_stream_wait_event", stream);
  if (status == BP_OK)
    status = bp_event_check("bp_stream_wait_event", event);
  if (status != BP_OK)
    return status;
  if (atomic_load_explicit(&event->state, memory_order_acquire) !=
      BP_EVENT_RECORDED)
    return BP_OK; /* nothing pending to wait for */
  bp_device_t *device = stream->device;
  /* Another plugin's event, or no stream to order on: wait on the host. */
  if (!stream->native || event->device->plugin != device->plugin) {
    status = bp_check_wait_event("bp_stream_wait_event", event);
    return status == BP_OK ? bp_event_synchronize_internal(event) : status;
  }
  status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  C_Status result = device->plugin->dispatch.stream_wait_event(
      &device->c_device, stream->native, event->native);
  return BP_C_OK(result)
             ? BP_OK
             : bp_plugin_call_error(device, "stream_wait_event", result);
}

static __attribute__((noinline, cold)) bp_status_t
traced_stream_wait_event(bp_stream_t *stream, bp_event_t *event) {
  BP_TRACE_CALL(
      stream->device, "bp_stream_wait_event", stream_wait_event(stream, event),
      ",\"stream\":\"%p\",\"event\":\"%p\"", (void *)stream, (void *)event);
}

BP_API bp_status_t bp_stream_wait_event(bp_stream_t *stream,
                                        bp_event_t *event) {
  if (stream == BP_STREAM_ACTIVE)
    return bp_stream_active_refused("bp_stream_wait_event");
  if (stream != NULL && BP_OBSERVED(stream->device))
    return traced_stream_wait_event(stream, event);
  return stream_wait_event(stream, event);
}

/* Keeps the internal event alive until `to` has passed its wait. */
static void retire_event(bp_stream_t *to, bp_event_t *event) {
  pthread_mutex_lock(&to->device->lock);
  event->next_retired = to->retired;
  to->retired = event;
  size_t count = ++to->retired_count;
  pthread_mutex_unlock(&to->device->lock);
  if (count <= BP_RETIRED_POLL_THRESHOLD)
    return;
  bp_event_t *list = take_retired(to);
  if (stream_query(to) == BP_OK)
    destroy_retired(list);
  else
    give_back_retired(to, list);
}

BP_API_BODY bp_status_t stream_sync_from_to(bp_stream_t *from,
                                            bp_stream_t *to) {
  if (!from || !to)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_sync_from_to: from or to is NULL");
  bp_status_t status = bp_stream_check("bp_stream_sync_from_to", from);
  if (status == BP_OK)
    status = bp_stream_check("bp_stream_sync_from_to", to);
  if (status != BP_OK)
    return status;
  if (from == to)
    return BP_OK;
  if (!from->native || !to->native ||
      from->device->plugin != to->device->plugin)
    /* host-side: `to` then needs no wait */
    return bp_stream_drain("bp_stream_sync_from_to", from);
  bp_event_t *event = NULL;
  status = bp_event_create_internal(from->device, &event);
  if (status == BP_OK)
    status = bp_event_record_internal("bp_stream_sync_from_to", event, from);
  if (status != BP_OK) {
    if (event)
      bp_event_destroy_internal(event);
    return status;
  }
  status = stream_wait_event(to, event);
  if (atomic_load(&event->state) == BP_EVENT_RECORDED && status == BP_OK)
    retire_event(to, event);
  else
    bp_event_destroy_internal(event);
  return status;
}

static __attribute__((noinline, cold)) bp_status_t
traced_stream_sync_from_to(bp_stream_t *from, bp_stream_t *to) {
  BP_TRACE_CALL(from->device, "bp_stream_sync_from_to",
                stream_sync_from_to(from, to), ",\"from\":\"%p\",\"to\":\"%p\"",
                (void *)from, (void *)to);
}

BP_API bp_status_t bp_stream_sync_from_to(bp_stream_t *from, bp_stream_t *to) {
  if (from == BP_STREAM_ACTIVE || to == BP_STREAM_ACTIVE)
    return bp_stream_active_refused("bp_stream_sync_from_to");
  if (from != NULL && BP_OBSERVED(from->device))
    return traced_stream_sync_from_to(from, to);
  return stream_sync_from_to(from, to);
}

bool bp_plugin_owns_stream(const bp_plugin_t *plugin, const void *native) {
  bool owned = false;
  for (size_t i = 0; i < plugin->device_count && !owned; ++i) {
    bp_device_t *device = &plugin->devices[i];
    pthread_mutex_lock(&device->lock);
    const bp_registry_node_t *head = &device->streams.head;
    for (const bp_registry_node_t *node = head->next; node != head && !owned;
         node = node->next)
      owned = ((const bp_stream_t *)node)->native == native;
    pthread_mutex_unlock(&device->lock);
  }
  return owned;
}
