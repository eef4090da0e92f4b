/* A minimal synchronous plugin in the style of Paddle's custom_cpu: two
 * devices backed by malloc, stream and event functions that succeed without
 * writing a handle, sync copies only, no memset, no query, no callbacks. It
 * exists to prove every fallback of the core.
 *
 * init_device rewrites the logical id to a "physical" one (id + 100), and
 * every device-scoped call checks it got the physical id, as Paddle promises.
 * stub_counters() (exported) lets tests observe what the core called. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/device_ext.h"
#include "stub_plugin.h"

#define STUB_PHYSICAL_BASE 100

static stub_counters_t counters;
static _Thread_local int current_device = -1;

__attribute__((visibility("default"))) stub_counters_t *stub_counters(void) {
  return &counters;
}

static int physical(const C_Device device) {
  return device && device->id >= STUB_PHYSICAL_BASE &&
         device->id < STUB_PHYSICAL_BASE + STUB_DEVICE_COUNT;
}

static C_Status initialize(void) {
  atomic_fetch_add(&counters.initialize, 1);
  return C_SUCCESS;
}

static C_Status finalize(void) {
  atomic_fetch_add(&counters.finalize, 1);
  return C_SUCCESS;
}

static C_Status init_device(const C_Device device) {
  if (device->id < 0 || device->id >= STUB_DEVICE_COUNT)
    return C_ERROR;
  device->id += STUB_PHYSICAL_BASE;
  atomic_fetch_add(&counters.init_device, 1);
  return C_SUCCESS;
}

static C_Status deinit_device(const C_Device device) {
  if (!physical(device))
    return C_ERROR;
  atomic_fetch_add(&counters.deinit_device, 1);
  return C_SUCCESS;
}

static C_Status set_device(const C_Device device) {
  if (!physical(device))
    return C_ERROR;
  current_device = device->id;
  atomic_fetch_add(&counters.set_device, 1);
  return C_SUCCESS;
}

static C_Status get_device(const C_Device device) {
  device->id = current_device;
  return C_SUCCESS;
}

/* custom_cpu assigns its local parameter, never *stream. */
static C_Status create_stream(const C_Device device, C_Stream *stream) {
  (void)stream;
  return physical(device) ? C_SUCCESS : C_ERROR;
}

static C_Status destroy_stream(const C_Device device, C_Stream stream) {
  (void)stream;
  return physical(device) ? C_SUCCESS : C_ERROR;
}

static C_Status create_event(const C_Device device, C_Event *event) {
  (void)event;
  return physical(device) ? C_SUCCESS : C_ERROR;
}

static C_Status record_event(const C_Device device, C_Stream stream,
                             C_Event event) {
  (void)stream;
  (void)event;
  return physical(device) ? C_SUCCESS : C_ERROR;
}

static C_Status destroy_event(const C_Device device, C_Event event) {
  (void)event;
  return physical(device) ? C_SUCCESS : C_ERROR;
}

static C_Status synchronize_device(const C_Device device) {
  if (!physical(device))
    return C_ERROR;
  atomic_fetch_add(&counters.synchronize_device, 1);
  return C_SUCCESS;
}

static C_Status synchronize_event(const C_Device device, C_Event event) {
  (void)event;
  return physical(device) ? C_SUCCESS : C_ERROR;
}

/* Refuses anything above STUB_MEMORY_LIMIT so out-of-memory is testable. */
static C_Status device_memory_allocate(const C_Device device, void **ptr,
                                       size_t size) {
  if (!physical(device))
    return C_ERROR;
  *ptr = size <= STUB_MEMORY_LIMIT ? malloc(size) : NULL;
  return *ptr ? C_SUCCESS : C_FAILED;
}

static C_Status device_memory_deallocate(const C_Device device, void *ptr,
                                         size_t size) {
  (void)size;
  if (!physical(device))
    return C_ERROR;
  free(ptr);
  return C_SUCCESS;
}

static C_Status host_memory_allocate(const C_Device device, void **ptr,
                                     size_t size) {
  return device_memory_allocate(device, ptr, size);
}

static C_Status host_memory_deallocate(const C_Device device, void *ptr,
                                       size_t size) {
  atomic_fetch_add(&counters.host_free_bytes, size);
  return device_memory_deallocate(device, ptr, size);
}

static C_Status copy(const C_Device device, void *dst, const void *src,
                     size_t size) {
  if (!physical(device))
    return C_ERROR;
  memcpy(dst, src, size);
  atomic_fetch_add(&counters.sync_copies, 1);
  return C_SUCCESS;
}

static C_Status memory_stats(const C_Device device, size_t *total,
                             size_t *free_memory) {
  if (!physical(device))
    return C_ERROR;
  *total = STUB_MEMORY_LIMIT * 4;
  *free_memory = STUB_MEMORY_LIMIT * 2;
  return C_SUCCESS;
}

static C_Status min_chunk_size(const C_Device device, size_t *size) {
  (void)device;
  *size = 512;
  return C_SUCCESS;
}

static C_Status get_device_count(size_t *count) {
  *count = STUB_DEVICE_COUNT;
  return C_SUCCESS;
}

static C_Status get_device_list(size_t *devices) {
  for (size_t i = 0; i < STUB_DEVICE_COUNT; ++i)
    devices[i] = i;
  return C_SUCCESS;
}

static C_Status get_runtime_version(size_t *version) {
  *version = STUB_RUNTIME_VERSION;
  return C_SUCCESS;
}

/* Attributes: warp size and a name; the rest is left "unsupported". */
static C_Status get_attribute(const C_Device device, int32_t attr,
                              BP_AttrValue *value) {
  if (!physical(device))
    return C_ERROR;
  if (attr == BP_ATTR_WARP_SIZE) {
    value->kind = BP_ATTR_VALUE_INT;
    value->i64 = 32;
  } else if (attr == BP_ATTR_DEVICE_NAME) {
    value->kind = BP_ATTR_VALUE_STRING;
    strcpy(value->str, "stub-device");
  }
  return C_SUCCESS;
}

static C_Status elapsed_time(const C_Device device, C_Event start, C_Event end,
                             float *milliseconds) {
  (void)device;
  (void)start;
  (void)end;
  *milliseconds = 1.0f;
  return C_SUCCESS;
}

/* The chain: an unknown type first, then device attributes, then an event
 * timing extension too short to hold its function (which must be ignored). */
typedef struct unknown_extension {
  BP_ExtensionBase base;
  int payload;
} unknown_extension_t;

static const BP_EventTimingExtension short_timing = {
    .base = {.struct_size = sizeof(BP_ExtensionBase),
             .type = BP_EXTENSION_EVENT_TIMING},
    .event_elapsed_time = elapsed_time,
};
static const BP_DeviceAttributesExtension attributes = {
    .base = {.struct_size = sizeof(BP_DeviceAttributesExtension),
             .type = BP_EXTENSION_DEVICE_ATTRIBUTES,
             .next = &short_timing.base},
    .get_attribute = get_attribute,
};
static const unknown_extension_t unknown = {
    .base = {.struct_size = sizeof(unknown_extension_t),
             .type = 9999,
             .next = &attributes.base},
    .payload = 7,
};

__attribute__((visibility("default"))) const BP_ExtensionBase *
BackplanePluginExtensions(void) {
  return &unknown.base;
}

__attribute__((visibility("default"))) void
InitPlugin(CustomRuntimeParams *params) {
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  params->device_type = "stub";
  params->sub_device_type = "v0";
  /* Like custom_cpu: this zeroes interface->size too. */
  memset(params->interface, 0, sizeof(C_DeviceInterface));
  C_DeviceInterface *i = params->interface;
  i->initialize = initialize;
  i->finalize = finalize;
  i->init_device = init_device;
  i->deinit_device = deinit_device;
  i->set_device = set_device;
  i->get_device = get_device;
  i->create_stream = create_stream;
  i->destroy_stream = destroy_stream;
  i->create_event = create_event;
  i->record_event = record_event;
  i->destroy_event = destroy_event;
  i->synchronize_device = synchronize_device;
  i->synchronize_event = synchronize_event;
  i->device_memory_allocate = device_memory_allocate;
  i->device_memory_deallocate = device_memory_deallocate;
  i->host_memory_allocate = host_memory_allocate;
  i->host_memory_deallocate = host_memory_deallocate;
  i->memory_copy_h2d = copy;
  i->memory_copy_d2h = copy;
  i->memory_copy_d2d = copy;
  i->device_memory_stats = memory_stats;
  i->device_min_chunk_size = min_chunk_size;
  i->get_device_count = get_device_count;
  i->get_device_list = get_device_list;
  i->get_runtime_version = get_runtime_version;
}
