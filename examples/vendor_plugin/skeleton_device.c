/*
 * skeleton_device.c: the smallest correct Backplane / Paddle runtime plugin.
 *
 * Start here when bringing up a new chip. This "device" keeps its memory in
 * host RAM and does every operation on the calling thread before returning,
 * so it is synchronous: trivial streams and events, real copies. Replace each
 * function body with calls into your driver and keep the contracts written
 * above it.
 *
 * How the host uses this file (docs/plugin-guide.md has the whole story):
 *   1. dlopen() the .so, dlsym("InitPlugin") and call it with a zeroed
 *      C_DeviceInterface whose `size` is the host's sizeof (912 for
 *      Backplane's layout B, 1128 for Paddle 3.3.1's layout E).
 *   2. InitPlugin stamps the ABI version, names the device type and fills the
 *      function pointers it implements, in the host's layout. Every pointer
 * left NULL is either substituted by the host (a "fallback") or reported as
 * missing.
 *   3. Optionally dlsym("BackplanePluginExtensions") for the Backplane-only
 *      extras (device attributes, event timing), see the end of this file.
 *
 * Required: set_device, get_device, synchronize_device, create_event,
 * record_event, destroy_event, synchronize_event, device_memory_allocate,
 * device_memory_deallocate, get_device_count, get_device_list. A plugin
 * without one of them is rejected (`backplane info` prints why).
 *
 * Everything else is optional; what the host does instead is noted next to
 * each function below. `backplane info --plugin-path <dir>` shows which
 * functions your plugin provides natively and which run as fallbacks;
 * `backplane check --plugin-path <dir> --plugin <type>` tests them all.
 *
 * Threading: the host may call any function from any thread, concurrently,
 * so shared state here is atomic and the "current device" is per thread.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in strict C11 */

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Paddle plugins include <paddle/phi/backends/device_ext.h>; Backplane
 * installs that path too, forwarding to this header. */
#include "backplane/device_ext.h"
#include "backplane/device_layouts.h"

enum {
  SKELETON_DEVICE_COUNT = 2,
};

/* Each device's memory budget. Allocation beyond it fails with C_FAILED, so
 * the host's out-of-memory handling is exercised like on real hardware. */
#define SKELETON_CAPACITY_BYTES ((size_t)256 << 20)

static atomic_size_t used_bytes[SKELETON_DEVICE_COUNT];

/* The device set_device selected on this thread (Paddle semantics). */
static _Thread_local int current_device;

static int valid_device(const C_Device device) {
  return device != NULL && device->id >= 0 &&
         device->id < SKELETON_DEVICE_COUNT;
}

/* ------------------------------------------------------------------------ */
/* Device                                                                    */
/* ------------------------------------------------------------------------ */

/* Optional (not set here): initialize / finalize, once per load and unload,
 * for global driver setup; init_device / deinit_device, lazily once per
 * device before its first use. A non-success from initialize or init_device
 * makes the host reject the plugin or fail that device, with the status in
 * the message. */

/* Required. Makes `device` current for the calling thread. The host calls it
 * before using a device from a thread that last used another one. */
static C_Status skeleton_set_device(const C_Device device) {
  if (!valid_device(device))
    return C_ERROR;
  current_device = device->id;
  return C_SUCCESS;
}

/* Required. Writes the calling thread's current device into device->id. */
static C_Status skeleton_get_device(const C_Device device) {
  if (device == NULL)
    return C_ERROR;
  device->id = current_device;
  return C_SUCCESS;
}

/* Required. Blocks until all work on the device has finished. Work here is
 * finished when each call returns, so there is nothing to wait for. */
static C_Status skeleton_synchronize_device(const C_Device device) {
  return valid_device(device) ? C_SUCCESS : C_ERROR;
}

/* Required. How many devices, and their ids. Return 0..count-1: the host
 * indexes devices by position. get_device_list fills a caller-sized array of
 * get_device_count entries. */
static C_Status skeleton_get_device_count(size_t *count) {
  if (count == NULL)
    return C_ERROR;
  *count = SKELETON_DEVICE_COUNT;
  return C_SUCCESS;
}

static C_Status skeleton_get_device_list(size_t *devices) {
  if (devices == NULL)
    return C_ERROR;
  for (size_t i = 0; i < SKELETON_DEVICE_COUNT; i++)
    devices[i] = i;
  return C_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Streams                                                                   */
/* ------------------------------------------------------------------------ */

/* A stream is the order in which work runs. Work here finishes inside each
 * call, so a stream needs no queue: it only records which device it belongs
 * to. The handle is yours; the host never looks inside a C_Stream. */
struct C_Stream_st {
  int device_id;
};

/* Optional. The host zeroed *stream. Leaving it NULL is legal (single-queue
 * hardware): the host then treats the device as one queue and never calls
 * record_event, so event timing is unavailable. A trivial handle, as here,
 * keeps events timed. */
static C_Status skeleton_create_stream(const C_Device device,
                                       C_Stream *stream) {
  if (!valid_device(device) || stream == NULL)
    return C_ERROR;
  C_Stream created = malloc(sizeof *created);
  if (created == NULL)
    return C_FAILED;
  created->device_id = device->id;
  *stream = created;
  return C_SUCCESS;
}

/* Optional (required once create_stream hands out memory to free). */
static C_Status skeleton_destroy_stream(const C_Device device,
                                        C_Stream stream) {
  if (!valid_device(device))
    return C_ERROR;
  free(stream);
  return C_SUCCESS;
}

/* Optional, and left to the host here: query_stream, synchronize_stream,
 * stream_wait_event, stream_add_callback. Their fallbacks wait with
 * synchronize_device / synchronize_event (instant here) and run a stream
 * callback on the calling thread, which is exactly right for a device that
 * never leaves work pending. An asynchronous device implements them. */

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

/* An event remembers when it was recorded. Because all earlier work has
 * finished by the time record_event is called, that moment is also when the
 * captured work completed: exactly what event timing needs. */
struct C_Event_st {
  atomic_uint_fast64_t recorded_ns; /* 0 until recorded */
};

static uint64_t monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Required. The host zeroed *event; a plugin with nothing to track may leave
 * it NULL and return C_SUCCESS. */
static C_Status skeleton_create_event(const C_Device device, C_Event *event) {
  if (!valid_device(device) || event == NULL)
    return C_ERROR;
  C_Event created = calloc(1, sizeof *created);
  if (created == NULL)
    return C_FAILED;
  *event = created;
  return C_SUCCESS;
}

/* Required. Captures all work submitted to `stream` so far. Backplane always
 * passes one of this plugin's streams; other hosts may pass NULL, which here
 * means the same thing: everything submitted so far. */
static C_Status skeleton_record_event(const C_Device device, C_Stream stream,
                                      C_Event event) {
  if (!valid_device(device) || event == NULL ||
      (stream != NULL && stream->device_id != device->id))
    return C_ERROR;
  atomic_store(&event->recorded_ns, monotonic_ns());
  return C_SUCCESS;
}

/* Required. */
static C_Status skeleton_destroy_event(const C_Device device, C_Event event) {
  if (!valid_device(device))
    return C_ERROR;
  free(event);
  return C_SUCCESS;
}

/* Required. Blocks until the captured work is done: it already is. */
static C_Status skeleton_synchronize_event(const C_Device device,
                                           C_Event event) {
  (void)event;
  return valid_device(device) ? C_SUCCESS : C_ERROR;
}

/* Optional (not set here): query_event. Without it the host synchronizes the
 * event and reports it complete. */

/* ------------------------------------------------------------------------ */
/* Memory                                                                    */
/* ------------------------------------------------------------------------ */

/* Takes `size` bytes from the device's budget, or fails if that would
 * overdraw it. */
static int reserve_bytes(int device_id, size_t size) {
  size_t used = atomic_load(&used_bytes[device_id]);
  do {
    if (size > SKELETON_CAPACITY_BYTES - used)
      return 0;
  } while (!atomic_compare_exchange_weak(&used_bytes[device_id], &used,
                                         used + size));
  return 1;
}

/* Required. The host caches and splits what it gets from here (the size hints
 * below shape that), so this is called rarely and with large sizes. When the
 * device is full leave *ptr alone and return C_FAILED: the framework then
 * gets BP_ERR_OUT_OF_MEMORY. */
static C_Status skeleton_device_memory_allocate(const C_Device device,
                                                void **ptr, size_t size) {
  if (!valid_device(device) || ptr == NULL)
    return C_ERROR;
  if (!reserve_bytes(device->id, size))
    return C_FAILED;
  void *memory = malloc(size > 0 ? size : 1);
  if (memory == NULL) {
    atomic_fetch_sub(&used_bytes[device->id], size);
    return C_FAILED;
  }
  *ptr = memory;
  return C_SUCCESS;
}

/* Required. `size` is the size the block was allocated with. */
static C_Status skeleton_device_memory_deallocate(const C_Device device,
                                                  void *ptr, size_t size) {
  if (!valid_device(device) || ptr == NULL ||
      size > atomic_load(&used_bytes[device->id]))
    return C_ERROR;
  free(ptr);
  atomic_fetch_sub(&used_bytes[device->id], size);
  return C_SUCCESS;
}

/* Optional. Without it the host fills a host buffer and copies it over with
 * memory_copy_h2d. */
static C_Status skeleton_device_memory_set(const C_Device device, void *ptr,
                                           unsigned char value, size_t size) {
  if (!valid_device(device) || (ptr == NULL && size > 0))
    return C_ERROR;
  if (size > 0)
    memset(ptr, value, size);
  return C_SUCCESS;
}

/* Optional (not set here): host_memory_allocate/deallocate (pinned host
 * memory) and unified_memory_allocate/deallocate. Without them the host's
 * bp_host_malloc / bp_unified_malloc report "unsupported". */

/* Synchronous copies: complete when they return. Optional one by one, but a
 * device without h2d and d2h cannot exchange data at all, so every real
 * plugin sets them. */
static C_Status copy_bytes(const C_Device device, void *dst, const void *src,
                           size_t size) {
  if (!valid_device(device) || ((dst == NULL || src == NULL) && size > 0))
    return C_ERROR;
  if (size > 0)
    memmove(dst, src, size);
  return C_SUCCESS;
}

static C_Status skeleton_memory_copy_h2d(const C_Device device, void *dst,
                                         const void *src, size_t size) {
  return copy_bytes(device, dst, src, size);
}

static C_Status skeleton_memory_copy_d2h(const C_Device device, void *dst,
                                         const void *src, size_t size) {
  return copy_bytes(device, dst, src, size);
}

static C_Status skeleton_memory_copy_d2d(const C_Device device, void *dst,
                                         const void *src, size_t size) {
  return copy_bytes(device, dst, src, size);
}

/* Optional. Between two devices of this plugin. Without it the host bounces
 * the data through a host buffer (d2h, then h2d). */
static C_Status skeleton_memory_copy_p2p(const C_Device dst_device,
                                         const C_Device src_device, void *dst,
                                         const void *src, size_t size) {
  if (!valid_device(src_device))
    return C_ERROR;
  return copy_bytes(dst_device, dst, src, size);
}

/* Optional (not set here): async_memory_copy_h2d/d2h/d2d/p2p. Without them
 * the host waits for the stream's earlier work, then uses the synchronous
 * copy above: correct, just not overlapped. */

/* ------------------------------------------------------------------------ */
/* Memory information and the allocator's size hints                         */
/* ------------------------------------------------------------------------ */

/* Optional. Total and free bytes. Without a device_max_alloc_size hint the
 * host's allocator caps what it reserves at the `free` it sees first (and
 * leaves it unbounded if this is missing); bp_device_memory_info and
 * `backplane info` show both numbers. */
static C_Status skeleton_device_memory_stats(const C_Device device,
                                             size_t *total_memory,
                                             size_t *free_memory) {
  if (!valid_device(device) || total_memory == NULL || free_memory == NULL)
    return C_ERROR;
  *total_memory = SKELETON_CAPACITY_BYTES;
  *free_memory = SKELETON_CAPACITY_BYTES - atomic_load(&used_bytes[device->id]);
  return C_SUCCESS;
}

/* Optional size hint. Every block the host hands out is rounded up to a
 * multiple of this (Backplane's default is 512 if absent; Paddle's is 1). The
 * other hints (device_max_chunk_size, device_max_alloc_size,
 * device_extra_padding_size, device_init_alloc_size, device_realloc_size) are
 * left to their defaults; docs/plugin-guide.md lists them. */
static C_Status skeleton_device_min_chunk_size(const C_Device device,
                                               size_t *size) {
  if (!valid_device(device) || size == NULL)
    return C_ERROR;
  *size = 512;
  return C_SUCCESS;
}

/* Optional (not set here): get_compute_capability, get_runtime_version,
 * get_driver_version, the xccl_* collectives, the profiler_* calls and
 * blas_axpby. They have no fallback: `backplane info` lists them as missing
 * and the framework calls that need them fail with a message naming them. */

/* ------------------------------------------------------------------------ */
/* Backplane extensions                                                      */
/* ------------------------------------------------------------------------ */

/* Device attributes (TVM numbering). The host passes a zeroed value; leaving
 * it zeroed with C_SUCCESS means "this device cannot say". The host then
 * derives what the base table can tell (exist; total and available memory
 * from device_memory_stats; api, driver and compute versions from
 * get_runtime_version, get_driver_version and get_compute_capability), and
 * the framework sees BP_ERR_UNSUPPORTED, not a misleading 0, for the rest.
 * So answer only what your hardware knows beyond that. */
static C_Status skeleton_get_attribute(const C_Device device, int32_t attr,
                                       BP_AttrValue *value) {
  if (!valid_device(device) || value == NULL)
    return C_ERROR;
  if (attr == BP_ATTR_DEVICE_NAME) {
    value->kind = BP_ATTR_VALUE_STRING;
    snprintf(value->str, sizeof value->str, "skeleton host-memory device %d",
             device->id);
  }
  return C_SUCCESS;
}

/* Event timing: milliseconds between two recorded events. C_ERROR if either
 * was never recorded (C_FAILED would mean "still pending", which cannot
 * happen on a synchronous device). */
static C_Status skeleton_event_elapsed_time(const C_Device device,
                                            C_Event start, C_Event end,
                                            float *milliseconds) {
  if (!valid_device(device) || start == NULL || end == NULL ||
      milliseconds == NULL)
    return C_ERROR;
  uint64_t start_ns = atomic_load(&start->recorded_ns);
  uint64_t end_ns = atomic_load(&end->recorded_ns);
  if (start_ns == 0 || end_ns == 0)
    return C_ERROR;
  *milliseconds = (float)((double)((int64_t)(end_ns - start_ns)) / 1e6);
  return C_SUCCESS;
}

/* Extensions form a chain. Each struct starts with BP_ExtensionBase whose
 * struct_size is sizeof the struct as this plugin was built: the host reads
 * only fields that size covers, so a plugin built against an older header
 * keeps working when fields are appended. The chain must live as long as the
 * plugin is loaded (static storage is simplest). */
static const BP_EventTimingExtension event_timing_extension = {
    .base = {.struct_size = sizeof(BP_EventTimingExtension),
             .type = BP_EXTENSION_EVENT_TIMING,
             .next = NULL},
    .event_elapsed_time = skeleton_event_elapsed_time,
};

static const BP_DeviceAttributesExtension attributes_extension = {
    .base = {.struct_size = sizeof(BP_DeviceAttributesExtension),
             .type = BP_EXTENSION_DEVICE_ATTRIBUTES,
             .next = &event_timing_extension.base},
    .get_attribute = skeleton_get_attribute,
};

/* Optional second entry point, found by name (BP_PLUGIN_EXTENSIONS_SYMBOL).
 * Paddle never looks for it, so the same .so still loads there. */
const BP_ExtensionBase *BackplanePluginExtensions(void) {
  return &attributes_extension.base;
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */
/* ------------------------------------------------------------------------ */

static char skeleton_device_type[] = "skeleton";
static char skeleton_sub_device_type[] = "v1";

/* Called once per load with host-zeroed params and table. Fill them and
 * return; do no other work here (no threads, no device access): driver setup
 * belongs in initialize, which the host calls only once it has accepted the
 * plugin. A host may call it more than once to probe the layout. */
void InitPlugin(CustomRuntimeParams *params) {
  /* The table in this header's layout (B); BP_CustomRuntimeExport below
   * writes it in whichever layout the host asks for (Paddle 3 uses a longer
   * one, docs/plugin-guide.md "Layouts"). */
  C_DeviceInterface table;
  memset(&table, 0, sizeof table);
  table.size = sizeof table;
  table.set_device = skeleton_set_device;
  table.get_device = skeleton_get_device;
  table.synchronize_device = skeleton_synchronize_device;
  table.get_device_count = skeleton_get_device_count;
  table.get_device_list = skeleton_get_device_list;

  table.create_stream = skeleton_create_stream;
  table.destroy_stream = skeleton_destroy_stream;

  table.create_event = skeleton_create_event;
  table.record_event = skeleton_record_event;
  table.destroy_event = skeleton_destroy_event;
  table.synchronize_event = skeleton_synchronize_event;

  table.device_memory_allocate = skeleton_device_memory_allocate;
  table.device_memory_deallocate = skeleton_device_memory_deallocate;
  table.device_memory_set = skeleton_device_memory_set;
  table.memory_copy_h2d = skeleton_memory_copy_h2d;
  table.memory_copy_d2h = skeleton_memory_copy_d2h;
  table.memory_copy_d2d = skeleton_memory_copy_d2d;
  table.memory_copy_p2p = skeleton_memory_copy_p2p;

  table.device_memory_stats = skeleton_device_memory_stats;
  table.device_min_chunk_size = skeleton_device_min_chunk_size;

  /* Stamps the ABI version (0.1.1) and names the device type: unique among
   * loaded plugins (a second plugin with the same type is rejected); both
   * strings must outlive the plugin. For a host layout it does not know it
   * writes nothing, leaving device_type NULL, which the host reports as an
   * ABI mismatch. */
  BP_CustomRuntimeExport(params, &table, skeleton_device_type,
                         skeleton_sub_device_type);
}
