/* The caching allocator's backend for one device: raw memory, memory info,
 * size hints and events, all through the plugin's dispatch table. */
#include "base/log.h"
#include "base/status.h"
#include "core/memory_history_note.h"
#include "core/released_ranges.h"
#include "core/stream_internal.h"

static bp_status_t raw_allocate(void *self, size_t size, void **out_ptr) {
  bp_device_t *device = self;
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  void *ptr = NULL;
  C_Status result = device->plugin->dispatch.device_memory_allocate(
      &device->c_device, &ptr, size);
  if (result == C_FAILED || (BP_C_OK(result) && !ptr))
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "%s: device_memory_allocate of %zu bytes on %s returned "
                    "%s%s",
                    device->plugin->device_type, size, device->name,
                    bp_c_status_name(result), ptr ? "" : " with no memory");
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, "device_memory_allocate", result);
  bp_device_note_handed_out(device, ptr, size);
  bp_memory_history_note_segment(device, true, ptr, size);
  bp_log(BP_LOG_DEBUG, "alloc", "%s: took %zu bytes at %p from the plugin",
         device->name, size, ptr);
  *out_ptr = ptr;
  return BP_OK;
}

static void raw_free(void *self, void *ptr, size_t size) {
  bp_device_t *device = self;
  if (bp_device_enter(device) == BP_OK &&
      BP_C_OK(device->plugin->dispatch.device_memory_deallocate(
          &device->c_device, ptr, size))) {
    bp_device_note_released(device, ptr, size);
    bp_memory_history_note_segment(device, false, ptr, size);
    bp_log(BP_LOG_DEBUG, "alloc", "%s: gave %zu bytes at %p back to the plugin",
           device->name, size, ptr);
  }
}

static bp_status_t memory_info(void *self, size_t *out_total,
                               size_t *out_free) {
  return bp_device_memory_info_internal(self, out_total, out_free);
}

static bp_status_t event_create(void *self, void **out_event) {
  bp_event_t *event;
  bp_status_t status = bp_event_create_internal(self, &event);
  if (status == BP_OK)
    *out_event = event;
  return status;
}

/* Moves a completed (or never recorded) event to `device`: a new native
 * event there, the old one destroyed. */
static bp_status_t move_event(bp_event_t *event, bp_device_t *device) {
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  const C_DeviceInterface *dispatch = &device->plugin->dispatch;
  C_Event native = NULL;
  C_Status result = dispatch->create_event(&device->c_device, &native);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, "create_event", result);
  if (event->native && bp_device_enter(event->device) == BP_OK)
    event->dispatch->destroy_event(&event->device->c_device, event->native);
  event->device = device;
  event->dispatch = dispatch;
  event->native = native;
  atomic_store_explicit(&event->state, BP_EVENT_NEVER_RECORDED,
                        memory_order_relaxed);
  return BP_OK;
}

/* A block may be used on a stream of another device (a peer reading it):
 * the event is then recorded on that stream's device, as PyTorch's
 * record_stream does. The allocator's events are complete whenever it
 * records them, so they can change device. A stream destroyed since it was
 * recorded on a block (its handle stays readable, core/handle_pool.h) ran
 * all its work before it went: the event is complete at once, and the
 * plugin never sees the stream again. */
static bp_status_t event_record(void *self, void *event, void *stream) {
  (void)self;
  bp_event_t *e = event;
  bp_stream_t *s = stream;
  if (s && atomic_load_explicit(&s->destroyed, memory_order_acquire)) {
    atomic_store_explicit(&e->state, BP_EVENT_HOST_COMPLETE,
                          memory_order_release);
    return BP_OK;
  }
  if (s && s->device != e->device) {
    bp_status_t status = move_event(e, s->device);
    if (status != BP_OK)
      return status;
  }
  return bp_event_record_internal(NULL, e, s);
}

/* A completed event recorded on another device's stream goes home, so that
 * the allocator's spare events all belong to its device (a peer device may
 * be torn down first). */
static bp_status_t event_query(void *self, void *event) {
  bp_event_t *e = event;
  bp_status_t status = bp_event_query_internal(e);
  if (status == BP_OK && e->device != self)
    move_event(e, self); /* on failure it stays usable where it is */
  return status;
}

static void event_destroy(void *self, void *event) {
  (void)self;
  bp_event_destroy_internal(event);
}

/* A hint the plugin does not give (or fails to give) is 0. */
static size_t size_hint(bp_device_t *device,
                        C_Status (*hint)(const C_Device, size_t *)) {
  size_t value = 0;
  if (hint && BP_C_OK(hint(&device->c_device, &value)))
    return value;
  return 0;
}

static bp_status_t create_allocator(bp_device_t *device,
                                    bp_caching_allocator_t **out) {
  const C_DeviceInterface *d = &device->plugin->dispatch;
  bp_alloc_hints_t hints = {
      .min_chunk_size = size_hint(device, d->device_min_chunk_size),
      .max_chunk_size = size_hint(device, d->device_max_chunk_size),
      .max_alloc_size = size_hint(device, d->device_max_alloc_size),
      .extra_padding_size = size_hint(device, d->device_extra_padding_size),
      .init_alloc_size = size_hint(device, d->device_init_alloc_size),
      .realloc_size = size_hint(device, d->device_realloc_size),
  };
  bp_alloc_backend_t backend = {
      .self = device,
      .name = device->name,
      .raw_allocate = raw_allocate,
      .raw_free = raw_free,
      .memory_info = memory_info,
      .event_create = event_create,
      .event_record = event_record,
      .event_query = event_query,
      .event_destroy = event_destroy,
  };
  return bp_caching_allocator_create(&backend, &hints, out);
}

bp_status_t bp_device_allocator_get(bp_device_t *device,
                                    bp_caching_allocator_t **out_allocator) {
  bp_caching_allocator_t *allocator =
      atomic_load_explicit(&device->allocator, memory_order_acquire);
  if (allocator) {
    *out_allocator = allocator;
    return BP_OK;
  }
  bp_status_t status = bp_device_enter(device); /* before taking the lock */
  if (status != BP_OK)
    return status;
  pthread_mutex_lock(&device->lock);
  allocator = atomic_load_explicit(&device->allocator, memory_order_relaxed);
  if (!allocator) {
    status = create_allocator(device, &allocator);
    if (status == BP_OK)
      atomic_store_explicit(&device->allocator, allocator,
                            memory_order_release);
  }
  pthread_mutex_unlock(&device->lock);
  if (status == BP_OK)
    *out_allocator = allocator;
  return status;
}

bp_caching_allocator_t *bp_device_allocator(bp_device_t *device) {
  bp_caching_allocator_t *allocator = NULL;
  return bp_device_allocator_get(device, &allocator) == BP_OK ? allocator
                                                              : NULL;
}
