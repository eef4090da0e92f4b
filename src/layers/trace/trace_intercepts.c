/* The trace layer's intercepts: each times the call to the next table and
 * adds one host event to the calling thread's buffer (raw values: the
 * detail's format and its arguments). Copies and memsets carry
 * bytes, direction and stream; event records carry a serial ("flow_out")
 * that waits and synchronizations on the event refer to ("flow_in"); calls
 * made only by the framework (copies, memsets, waits) and device
 * allocations also sample the device's allocator counters; stream creation
 * and destruction keep the set of streams whose device records the layer's
 * buffer keeps. */
#include <inttypes.h>

#include "backplane/device.h"
#include "base/status.h"
#include "core/device_table.h"
#include "layers/layer_functions.h"
#include "layers/trace/trace_internal.h"

#define LAYER(device)                                                          \
  ((bp_trace_layer_t *)bp_layer_context(device, BP_LAYER_TRACE))

/* A plugin call's host event: `detail_format` and its arguments as
 * bp_trace_record takes them. */
#define record_call(t, name, device, start_ns, result, ...)                    \
  bp_trace_record(t, BP_TRACE_CATEGORY_PLUGIN, name, device, start_ns, result, \
                  __VA_ARGS__)

/* Writes a "memory" counter for `device` when its allocator's allocated or
 * reserved bytes changed since the last one. Only from calls the allocator
 * itself never makes while being destroyed (see the file comment). */
static void sample_memory(bp_trace_layer_t *t, C_Device device) {
  bp_device_t *d = (bp_device_t *)device;
  bp_caching_allocator_t *allocator = bp_device_allocator_if_created(d);
  if (!allocator)
    return;
  bp_memory_stats_t stats;
  bp_caching_allocator_stats(allocator, &stats);
  uint64_t allocated = stats.allocated_bytes.current;
  uint64_t reserved = stats.reserved_bytes.current;
  pthread_mutex_lock(&t->lock);
  bp_trace_memory_sample_t *last = &t->memory[d->index];
  bool changed = !last->written || last->allocated != allocated ||
                 last->reserved != reserved;
  *last = (bp_trace_memory_sample_t){allocated, reserved, true};
  pthread_mutex_unlock(&t->lock);
  if (!changed)
    return;
  bp_trace_record(
      t, BP_TRACE_CATEGORY_COUNTER, "memory", device, bp_clock_now_ns(), 0,
      "\"allocated\":%" PRIu64 ",\"reserved\":%" PRIu64, allocated, reserved);
}

/* ---- functions with their own wrapper (below) ---- */
#define TRACE_OWN_memory_copy_h2d ~, 1
#define TRACE_OWN_memory_copy_d2h ~, 1
#define TRACE_OWN_memory_copy_d2d ~, 1
#define TRACE_OWN_memory_copy_p2p ~, 1
#define TRACE_OWN_async_memory_copy_h2d ~, 1
#define TRACE_OWN_async_memory_copy_d2h ~, 1
#define TRACE_OWN_async_memory_copy_d2d ~, 1
#define TRACE_OWN_async_memory_copy_p2p ~, 1
#define TRACE_OWN_device_memory_set ~, 1
#define TRACE_OWN_device_memory_allocate ~, 1
#define TRACE_OWN_device_memory_deallocate ~, 1
#define TRACE_OWN_record_event ~, 1
#define TRACE_OWN_stream_wait_event ~, 1
#define TRACE_OWN_synchronize_event ~, 1
#define TRACE_OWN_destroy_event ~, 1
#define TRACE_OWN_create_stream ~, 1
#define TRACE_OWN_destroy_stream ~, 1

/* TRACE_HAS_OWN(name) is 1 when TRACE_OWN_<name> is defined above, else 0
 * (the undefined name stays one argument, so the 0 is second). */
#define TRACE_SECOND(a, b, ...) b
#define TRACE_HAS_OWN_(...) TRACE_SECOND(__VA_ARGS__, 0, ~)
#define TRACE_HAS_OWN(name) TRACE_HAS_OWN_(TRACE_OWN_##name)
#define TRACE_CAT_(a, b) a##b
#define TRACE_CAT(a, b) TRACE_CAT_(a, b)

/* Every other intercepted function: name, device, result, duration. */
#define TRACE_GENERIC_0(name, params, args)                                    \
  static C_Status t_##name params {                                            \
    bp_trace_layer_t *t = LAYER(device);                                       \
    uint64_t start = bp_clock_now_ns();                                        \
    C_Status result = t->next.name args;                                       \
    record_call(t, #name, device, start, result, NULL);                        \
    return result;                                                             \
  }
#define TRACE_GENERIC_1(name, params, args)
#define TRACE_GENERIC(name, need, layers, params, args)                        \
  BP_SLOT_IF_WRAPPED(layers)                                                   \
  (TRACE_CAT(TRACE_GENERIC_, TRACE_HAS_OWN(name))(name, params, args))
BP_PLUGIN_SLOTS(TRACE_GENERIC)
#undef TRACE_GENERIC

/* ---- copies ---- */

#define COPY_DETAIL ",\"bytes\":%zu,\"direction\":\"%s\",\"stream\":\"%p\""

#define TRACE_COPY(name, direction)                                            \
  static C_Status t_##name(const C_Device device, void *dst, const void *src,  \
                           size_t size) {                                      \
    bp_trace_layer_t *t = LAYER(device);                                       \
    sample_memory(t, device);                                                  \
    uint64_t start = bp_clock_now_ns();                                        \
    C_Status result = t->next.name(device, dst, src, size);                    \
    record_call(t, #name, device, start, result, COPY_DETAIL, size, direction, \
                (void *)NULL);                                                 \
    return result;                                                             \
  }                                                                            \
  static C_Status t_async_##name(const C_Device device, C_Stream stream,       \
                                 void *dst, const void *src, size_t size) {    \
    bp_trace_layer_t *t = LAYER(device);                                       \
    sample_memory(t, device);                                                  \
    uint64_t start = bp_clock_now_ns();                                        \
    C_Status result = t->next.async_##name(device, stream, dst, src, size);    \
    record_call(t, "async_" #name, device, start, result, COPY_DETAIL, size,   \
                direction, (void *)stream);                                    \
    return result;                                                             \
  }
TRACE_COPY(memory_copy_h2d, "h2d")
TRACE_COPY(memory_copy_d2h, "d2h")
TRACE_COPY(memory_copy_d2d, "d2d")

static C_Status t_memory_copy_p2p(const C_Device device,
                                  const C_Device src_device, void *dst,
                                  const void *src, size_t size) {
  bp_trace_layer_t *t = LAYER(device);
  sample_memory(t, device);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.memory_copy_p2p(device, src_device, dst, src, size);
  record_call(t, "memory_copy_p2p", device, start, result, COPY_DETAIL, size,
              "p2p", (void *)NULL);
  return result;
}

static C_Status t_async_memory_copy_p2p(const C_Device device,
                                        const C_Device src_device,
                                        C_Stream stream, void *dst,
                                        const void *src, size_t size) {
  bp_trace_layer_t *t = LAYER(device);
  sample_memory(t, device);
  uint64_t start = bp_clock_now_ns();
  C_Status result =
      t->next.async_memory_copy_p2p(device, src_device, stream, dst, src, size);
  record_call(t, "async_memory_copy_p2p", device, start, result, COPY_DETAIL,
              size, "p2p", (void *)stream);
  return result;
}

static C_Status t_device_memory_set(const C_Device device, void *ptr,
                                    unsigned char value, size_t size) {
  bp_trace_layer_t *t = LAYER(device);
  sample_memory(t, device);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.device_memory_set(device, ptr, value, size);
  record_call(t, "device_memory_set", device, start, result,
              ",\"bytes\":%zu,\"value\":%u", size, (unsigned)value);
  return result;
}

/* ---- device memory ---- */

static C_Status t_device_memory_allocate(const C_Device device, void **ptr,
                                         size_t size) {
  bp_trace_layer_t *t = LAYER(device);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.device_memory_allocate(device, ptr, size);
  record_call(t, "device_memory_allocate", device, start, result,
              ",\"bytes\":%zu", size);
  sample_memory(t, device);
  return result;
}

/* No counter sample: the allocator deallocates while it is destroyed. */
static C_Status t_device_memory_deallocate(const C_Device device, void *ptr,
                                           size_t size) {
  bp_trace_layer_t *t = LAYER(device);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.device_memory_deallocate(device, ptr, size);
  record_call(t, "device_memory_deallocate", device, start, result,
              ",\"bytes\":%zu", size);
  return result;
}

/* ---- events: records and the waits on them ---- */

/* The serial is published after the record's end time is taken, so a wait
 * that finds it cannot end before the record started. */
static C_Status t_record_event(const C_Device device, C_Stream stream,
                               C_Event event) {
  bp_trace_layer_t *t = LAYER(device);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.record_event(device, stream, event);
  if (!BP_C_OK(result) || !event) {
    record_call(t, "record_event", device, start, result, NULL);
    return result;
  }
  uint64_t serial = atomic_fetch_add(&t->record_serial, 1) + 1;
  record_call(t, "record_event", device, start, result,
              ",\"event\":\"%p\",\"stream\":\"%p\",\"flow_out\":%" PRIu64,
              (void *)event, (void *)stream, serial);
  pthread_mutex_lock(&t->lock);
  bp_pointer_map_set(&t->flows, event, serial); /* no memory: no arrows */
  pthread_mutex_unlock(&t->lock);
  return result;
}

/* The serial of `event`'s latest record, 0 if none. */
static uint64_t flow_of(bp_trace_layer_t *t, C_Event event) {
  pthread_mutex_lock(&t->lock);
  uint64_t serial = event ? bp_pointer_map_get(&t->flows, event) : 0;
  pthread_mutex_unlock(&t->lock);
  return serial;
}

/* A call waiting on `event`, with its latest record as the flow's end. */
static void record_wait(bp_trace_layer_t *t, const char *name, C_Device device,
                        uint64_t start, C_Status result, C_Event event,
                        uint64_t serial) {
  if (serial)
    record_call(t, name, device, start, result,
                ",\"event\":\"%p\",\"flow_in\":%" PRIu64, (void *)event,
                serial);
  else
    record_call(t, name, device, start, result, ",\"event\":\"%p\"",
                (void *)event);
}

static C_Status t_stream_wait_event(const C_Device device, C_Stream stream,
                                    C_Event event) {
  bp_trace_layer_t *t = LAYER(device);
  sample_memory(t, device);
  uint64_t serial = flow_of(t, event);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.stream_wait_event(device, stream, event);
  record_wait(t, "stream_wait_event", device, start, result, event, serial);
  return result;
}

static C_Status t_synchronize_event(const C_Device device, C_Event event) {
  bp_trace_layer_t *t = LAYER(device);
  uint64_t serial = flow_of(t, event);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.synchronize_event(device, event);
  record_wait(t, "synchronize_event", device, start, result, event, serial);
  return result;
}

static C_Status t_destroy_event(const C_Device device, C_Event event) {
  bp_trace_layer_t *t = LAYER(device);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.destroy_event(device, event);
  pthread_mutex_lock(&t->lock);
  bp_pointer_map_remove(&t->flows, event);
  pthread_mutex_unlock(&t->lock);
  record_call(t, "destroy_event", device, start, result, NULL);
  return result;
}

/* ---- streams: the set whose device records this runtime keeps ---- */

static C_Status t_create_stream(const C_Device device, C_Stream *stream) {
  bp_trace_layer_t *t = LAYER(device);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.create_stream(device, stream);
  if (BP_C_OK(result) && stream && *stream) {
    pthread_mutex_lock(&t->lock);
    bp_pointer_map_set(&t->streams, *stream, 1); /* no memory: no timeline */
    pthread_mutex_unlock(&t->lock);
    record_call(t, "create_stream", device, start, result, ",\"stream\":\"%p\"",
                (void *)*stream);
  } else {
    record_call(t, "create_stream", device, start, result, NULL);
  }
  return result;
}

/* Forgotten before the plugin frees it, so another runtime's stream reusing
 * the handle is never taken for this one's. The core drains a stream before
 * destroying it: its commands have all been reported by then. */
static C_Status t_destroy_stream(const C_Device device, C_Stream stream) {
  bp_trace_layer_t *t = LAYER(device);
  pthread_mutex_lock(&t->lock);
  bp_pointer_map_remove(&t->streams, stream);
  pthread_mutex_unlock(&t->lock);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next.destroy_stream(device, stream);
  record_call(t, "destroy_stream", device, start, result, ",\"stream\":\"%p\"",
              (void *)stream);
  return result;
}

void bp_trace_layer_install(bp_trace_layer_t *layer, C_DeviceInterface *table) {
  layer->next = *table;
#define TRACE_INSTALL(name, need, layers, params, args)                        \
  BP_SLOT_IF_WRAPPED(layers)(if (table->name) table->name = t_##name;)
  BP_PLUGIN_SLOTS(TRACE_INSTALL)
#undef TRACE_INSTALL
}
