/* Device memory (through the caching allocator), pinned host memory and
 * unified memory (straight from the plugin, sizes tracked for the ABI).
 * Each entry point is a slice of the trace when traced (core/observer.h);
 * device memory is noted in the allocator history while it records
 * (core/memory_history_note.h). */
#include <stdbool.h>
#include <string.h>

#include "alloc/thread_cache.h"
#include "base/status.h"
#include "core/memory_history_note.h"
#include "core/observer.h"
#include "core/released_ranges.h"
#include "core/stream_internal.h"

/* The first allocation on a device creates its allocator. */
static __attribute__((noinline)) bp_status_t
malloc_creating_allocator(bp_device_t *device, size_t size, void **out_ptr) {
  bp_caching_allocator_t *allocator = NULL;
  bp_status_t status = bp_device_allocator_get(device, &allocator);
  if (status != BP_OK)
    return status;
  return bp_caching_allocator_malloc(allocator, size, NULL, out_ptr);
}

BP_API_BODY bp_status_t device_malloc(bp_device_t *device, size_t size,
                                      void **out_ptr) {
  if (!device || !out_ptr)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_malloc: device or out_ptr is NULL");
  /* The allocator exists after the first call: one load, no lock. */
  bp_caching_allocator_t *allocator = bp_device_allocator_if_created(device);
  if (!allocator)
    return malloc_creating_allocator(device, size, out_ptr);
  /* The common case, inlined: a block from this thread's cache. */
  if (bp_thread_cache_malloc_hit(allocator, size, out_ptr))
    return BP_OK;
  return bp_caching_allocator_malloc(allocator, size, NULL, out_ptr);
}

static __attribute__((noinline, cold)) bp_status_t
traced_device_malloc(bp_device_t *device, size_t size, void **out_ptr) {
  BP_TRACE_CALL(
      device, "bp_device_malloc", device_malloc(device, size, out_ptr),
      ",\"size\":%zu,\"ptr\":\"%p\"", size, status == BP_OK ? *out_ptr : NULL);
}

static __attribute__((noinline, cold)) bp_status_t
watched_device_malloc(bp_device_t *device, size_t size, void **out_ptr,
                      const void *caller) {
  bp_status_t status = BP_OBSERVED(device)
                           ? traced_device_malloc(device, size, out_ptr)
                           : device_malloc(device, size, out_ptr);
  bp_memory_history_note_malloc(
      device, status, size, status == BP_OK ? *out_ptr : NULL, NULL, caller);
  return status;
}

BP_API bp_status_t bp_device_malloc(bp_device_t *device, size_t size,
                                    void **out_ptr) {
  if (device != NULL && BP_MEMORY_WATCHED(device))
    return watched_device_malloc(device, size, out_ptr,
                                 __builtin_return_address(0));
  return device_malloc(device, size, out_ptr);
}

/* Every free but a hit of the thread's cache (a tail call: the hit needs no
 * stack frame). */
static __attribute__((noinline)) bp_status_t
free_general(bp_device_t *device, bp_caching_allocator_t *allocator,
             void *ptr) {
  bp_status_t status =
      allocator ? bp_caching_allocator_free_missed(allocator, ptr)
                : bp_error(BP_ERR_INVALID_ARGUMENT,
                           "bp_device_free: %p was not allocated on %s", ptr,
                           device->name);
  /* The allocator's refusals (double free, unknown pointer) reach no
   * plugin: the core reports them. */
  if (__builtin_expect(status == BP_ERR_INVALID_ARGUMENT, 0))
    bp_api_refused(device, "bp_device_free");
  return status;
}

BP_API_BODY bp_status_t device_free(bp_device_t *device, void *ptr) {
  if (!ptr)
    return BP_OK;
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_device_free: device is NULL");
  bp_caching_allocator_t *allocator = bp_device_allocator_if_created(device);
  /* The common case, inlined: back into this thread's cache. */
  if (allocator && bp_thread_cache_free_hit(allocator, ptr))
    return BP_OK;
  return free_general(device, allocator, ptr);
}

static __attribute__((noinline, cold)) bp_status_t
traced_device_free(bp_device_t *device, void *ptr) {
  BP_TRACE_CALL(device, "bp_device_free", device_free(device, ptr),
                ",\"ptr\":\"%p\"", ptr);
}

static __attribute__((noinline, cold)) bp_status_t
watched_device_free(bp_device_t *device, void *ptr, const void *caller) {
  size_t size = bp_memory_history_size_of(device, ptr);
  bp_status_t status = BP_OBSERVED(device) ? traced_device_free(device, ptr)
                                           : device_free(device, ptr);
  bp_memory_history_note_free(device, status, ptr, size, NULL, caller);
  return status;
}

BP_API bp_status_t bp_device_free(bp_device_t *device, void *ptr) {
  if (device != NULL && BP_MEMORY_WATCHED(device))
    return watched_device_free(device, ptr, __builtin_return_address(0));
  return device_free(device, ptr);
}

/* Host and unified memory differ only in the plugin functions and table. */
typedef struct memory_kind {
  const char *label; /* "host", "unified" */
  const char *allocate_name;
  const char *deallocate_name;
  size_t allocate_offset;
  size_t deallocate_offset;
  size_t table_offset; /* of the bp_allocation_table_t in bp_device_t */
} memory_kind_t;

static const memory_kind_t host_memory = {
    "host",
    "host_memory_allocate",
    "host_memory_deallocate",
    offsetof(C_DeviceInterface, host_memory_allocate),
    offsetof(C_DeviceInterface, host_memory_deallocate),
    offsetof(bp_device_t, host_allocations)};
static const memory_kind_t unified_memory = {
    "unified",
    "unified_memory_allocate",
    "unified_memory_deallocate",
    offsetof(C_DeviceInterface, unified_memory_allocate),
    offsetof(C_DeviceInterface, unified_memory_deallocate),
    offsetof(bp_device_t, unified_allocations)};

typedef C_Status (*allocate_fn)(const C_Device, void **, size_t);
typedef C_Status (*deallocate_fn)(const C_Device, void *, size_t);

static bp_allocation_table_t *table_of(bp_device_t *device,
                                       const memory_kind_t *kind) {
  return (bp_allocation_table_t *)((char *)device + kind->table_offset);
}

static bp_status_t kind_malloc(const memory_kind_t *kind, bp_device_t *device,
                               size_t size, void **out_ptr) {
  if (!device || !out_ptr)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_%s_malloc: device or out_ptr is NULL", kind->label);
  const C_DeviceInterface *d = &device->plugin->dispatch;
  allocate_fn allocate;
  deallocate_fn deallocate;
  memcpy(&allocate, (const char *)d + kind->allocate_offset, sizeof allocate);
  memcpy(&deallocate, (const char *)d + kind->deallocate_offset,
         sizeof deallocate);
  if (!allocate || !deallocate)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "%s: no %s memory (%s or its deallocate is not provided; "
                    "asked for %s)",
                    device->plugin->device_type, kind->label,
                    kind->allocate_name, device->name);
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  size_t actual = size ? size : 1; /* a unique pointer for size 0 */
  void *ptr = NULL;
  C_Status result = allocate(&device->c_device, &ptr, actual);
  if (result == C_FAILED || (BP_C_OK(result) && !ptr))
    return bp_error(
        BP_ERR_OUT_OF_MEMORY, "%s: %s of %zu bytes on %s returned %s%s",
        device->plugin->device_type, kind->allocate_name, size, device->name,
        bp_c_status_name(result), ptr ? "" : " with no memory");
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, kind->allocate_name, result);
  pthread_mutex_lock(&device->lock);
  status = bp_allocation_table_insert(table_of(device, kind), ptr, actual);
  /* bp_copy keeps the asynchronous path for pinned memory (core/staging.h). */
  if (status == BP_OK && kind == &host_memory &&
      (status = bp_host_ranges_insert(&device->pinned, ptr, actual)) != BP_OK)
    bp_allocation_table_remove(table_of(device, kind), ptr, &actual);
  pthread_mutex_unlock(&device->lock);
  if (status != BP_OK) {
    deallocate(&device->c_device, ptr, actual);
    return bp_error(status, "bp_%s_malloc on %s: out of memory", kind->label,
                    device->name);
  }
  /* A plugin may serve it from memory one of its devices' allocators
   * released: valid again (core/released_ranges.h). */
  for (size_t i = 0; i < device->plugin->device_count; ++i)
    bp_device_note_handed_out(&device->plugin->devices[i], ptr, actual);
  *out_ptr = ptr;
  return BP_OK;
}

static bp_status_t kind_free(const memory_kind_t *kind, bp_device_t *device,
                             void *ptr) {
  if (!ptr)
    return BP_OK;
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_%s_free: device is NULL",
                    kind->label);
  size_t size = 0;
  pthread_mutex_lock(&device->lock);
  bool found = bp_allocation_table_remove(table_of(device, kind), ptr, &size);
  if (found && kind == &host_memory)
    bp_host_ranges_remove(&device->pinned, ptr);
  pthread_mutex_unlock(&device->lock);
  if (!found)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_%s_free: %p is not live %s memory of %s (never "
                    "allocated there, or freed already)",
                    kind->label, ptr, kind->label, device->name);
  deallocate_fn deallocate;
  memcpy(&deallocate,
         (const char *)&device->plugin->dispatch + kind->deallocate_offset,
         sizeof deallocate);
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  C_Status result = deallocate(&device->c_device, ptr, size);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, kind->deallocate_name, result);
  return BP_OK;
}

BP_API_BODY bp_status_t host_malloc(bp_device_t *device, size_t size,
                                    void **out_ptr) {
  return kind_malloc(&host_memory, device, size, out_ptr);
}

BP_API_BODY bp_status_t host_free(bp_device_t *device, void *ptr) {
  return kind_free(&host_memory, device, ptr);
}

BP_API_BODY bp_status_t unified_malloc(bp_device_t *device, size_t size,
                                       void **out_ptr) {
  return kind_malloc(&unified_memory, device, size, out_ptr);
}

BP_API_BODY bp_status_t unified_free(bp_device_t *device, void *ptr) {
  return kind_free(&unified_memory, device, ptr);
}

static __attribute__((noinline, cold)) bp_status_t
traced_host_malloc(bp_device_t *device, size_t size, void **out_ptr) {
  BP_TRACE_CALL(device, "bp_host_malloc", host_malloc(device, size, out_ptr),
                ",\"size\":%zu,\"ptr\":\"%p\"", size,
                status == BP_OK ? *out_ptr : NULL);
}

BP_API bp_status_t bp_host_malloc(bp_device_t *device, size_t size,
                                  void **out_ptr) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_host_malloc(device, size, out_ptr);
  return host_malloc(device, size, out_ptr);
}

static __attribute__((noinline, cold)) bp_status_t
traced_host_free(bp_device_t *device, void *ptr) {
  BP_TRACE_CALL(device, "bp_host_free", host_free(device, ptr),
                ",\"ptr\":\"%p\"", ptr);
}

BP_API bp_status_t bp_host_free(bp_device_t *device, void *ptr) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_host_free(device, ptr);
  return host_free(device, ptr);
}

static __attribute__((noinline, cold)) bp_status_t
traced_unified_malloc(bp_device_t *device, size_t size, void **out_ptr) {
  BP_TRACE_CALL(
      device, "bp_unified_malloc", unified_malloc(device, size, out_ptr),
      ",\"size\":%zu,\"ptr\":\"%p\"", size, status == BP_OK ? *out_ptr : NULL);
}

BP_API bp_status_t bp_unified_malloc(bp_device_t *device, size_t size,
                                     void **out_ptr) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_unified_malloc(device, size, out_ptr);
  return unified_malloc(device, size, out_ptr);
}

static __attribute__((noinline, cold)) bp_status_t
traced_unified_free(bp_device_t *device, void *ptr) {
  BP_TRACE_CALL(device, "bp_unified_free", unified_free(device, ptr),
                ",\"ptr\":\"%p\"", ptr);
}

BP_API bp_status_t bp_unified_free(bp_device_t *device, void *ptr) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_unified_free(device, ptr);
  return unified_free(device, ptr);
}
