/* Device handles: lookup, lazy init_device, thread binding, teardown.
 * bp_device_synchronize and bp_device_memory_info are slices of the trace
 * when traced (core/observer.h); the lookups and accessors are not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/vendor_access.h"
#include "base/log.h"
#include "base/status.h"
#include "core/device_table.h"
#include "core/observer.h"
#include "core/runtime_internal.h"
#include "core/stream_internal.h"

__attribute__((
    tls_model("initial-exec"))) _Thread_local uint64_t bp_thread_bound_serial;

/* Serials only ever grow, so a thread's cached binding can never match a
 * device of a later runtime that reuses the same address. */
static atomic_uint_fast64_t next_device_serial = 1;

void bp_device_setup(bp_device_t *device, bp_plugin_t *plugin, size_t index,
                     size_t ordinal, int logical_id) {
  device->c_device.id = logical_id;
  device->plugin = plugin;
  device->index = index;
  device->ordinal = ordinal;
  device->serial = atomic_fetch_add(&next_device_serial, 1);
  snprintf(device->name, sizeof device->name, "%s:%zu", plugin->device_type,
           index);
  pthread_mutex_init(&device->lock, NULL);
  atomic_init(&device->ready, 0);
  atomic_init(&device->allocator, NULL);
  bp_registry_init(&device->streams);
  bp_registry_init(&device->events);
  bp_allocation_table_init(&device->host_allocations);
  bp_allocation_table_init(&device->unified_allocations);
  bp_host_ranges_init(&device->pinned);
  pthread_mutex_init(&device->released_lock, NULL);
  bp_host_ranges_init(&device->released);
  atomic_init(&device->default_stream, NULL);
  atomic_init(&device->active_epoch, 0);
  bp_staging_pool_init(&device->staging);
}

bp_status_t bp_plugin_call_error(const bp_device_t *device,
                                 const char *function, C_Status result) {
  return bp_error(bp_status_from_c(result), "%s: %s on %s returned %s",
                  device->plugin->device_type, function, device->name,
                  bp_c_status_name(result));
}

bp_status_t bp_device_enter_slow(bp_device_t *device) {
  if (!atomic_load_explicit(&device->ready, memory_order_acquire)) {
    pthread_mutex_lock(&device->lock);
    if (!device->init_attempted) {
      device->init_attempted = 1;
      const C_DeviceInterface *d = &device->plugin->dispatch;
      device->init_result =
          d->init_device ? d->init_device(&device->c_device) : C_SUCCESS;
      if (BP_C_OK(device->init_result))
        atomic_store_explicit(&device->ready, 1, memory_order_release);
    }
    C_Status result = device->init_result;
    pthread_mutex_unlock(&device->lock);
    if (!BP_C_OK(result))
      return bp_plugin_call_error(device, "init_device", result);
  }
  C_Status result = device->plugin->dispatch.set_device(&device->c_device);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, "set_device", result);
  bp_thread_bound_serial = device->serial;
  return BP_OK;
}

static void report_leak(const bp_device_t *device, size_t count,
                        const char *kind, size_t bytes) {
  if (bytes)
    bp_log(BP_LOG_WARN, "devices",
           "%s: %zu %s (%zu bytes) never freed; released by "
           "bp_runtime_destroy",
           device->name, count, kind, bytes);
  else
    bp_log(BP_LOG_WARN, "devices",
           "%s: %zu %s never destroyed; released by bp_runtime_destroy",
           device->name, count, kind);
}

static void release_allocations(bp_device_t *device,
                                bp_allocation_table_t *table, const char *kind,
                                C_Status (*deallocate)(const C_Device, void *,
                                                       size_t)) {
  if (table->sizes.count)
    report_leak(device, table->sizes.count, kind, table->bytes);
  void *ptr;
  size_t size;
  while (bp_allocation_table_any(table, &ptr, &size)) {
    bp_allocation_table_remove(table, ptr, &size);
    deallocate(&device->c_device, ptr, size);
  }
  bp_allocation_table_release(table);
}

void bp_device_teardown(bp_device_t *device) {
  int ready = atomic_load(&device->ready);
  const C_DeviceInterface *d = &device->plugin->dispatch;
  if (ready && bp_device_enter(device) == BP_OK)
    d->synchronize_device(&device->c_device);
  bp_staging_pool_release(device);
  bp_stream_t *default_stream = atomic_load(&device->default_stream);
  if (default_stream) /* the device's own, not a leak */
    bp_stream_release_leaked(default_stream);
  if (device->streams.count)
    report_leak(device, device->streams.count, "streams", 0);
  bp_registry_node_t *node;
  while ((node = bp_registry_first(&device->streams)) != NULL)
    bp_stream_release_leaked((bp_stream_t *)node);
  if (device->events.count)
    report_leak(device, device->events.count, "events", 0);
  while ((node = bp_registry_first(&device->events)) != NULL)
    bp_event_release_leaked((bp_event_t *)node);
  bp_caching_allocator_t *allocator = atomic_load(&device->allocator);
  if (allocator)
    bp_caching_allocator_destroy(allocator);
  release_allocations(device, &device->host_allocations, "host allocations",
                      d->host_memory_deallocate);
  bp_host_ranges_release(&device->pinned);
  bp_host_ranges_release(&device->released);
  pthread_mutex_destroy(&device->released_lock);
  release_allocations(device, &device->unified_allocations,
                      "unified allocations", d->unified_memory_deallocate);
  if (ready && d->deinit_device)
    d->deinit_device(&device->c_device);
  pthread_mutex_destroy(&device->lock);
}

BP_API size_t bp_device_count(const bp_runtime_t *runtime) {
  return runtime ? runtime->device_count : 0;
}

BP_API bp_status_t bp_device_at(bp_runtime_t *runtime, size_t ordinal,
                                bp_device_t **out_device) {
  if (!runtime || !out_device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_at: runtime or out_device is NULL");
  if (ordinal >= runtime->device_count)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_device_at: no device %zu (the runtime has %zu)",
                    ordinal, runtime->device_count);
  *out_device = runtime->devices[ordinal];
  return BP_OK;
}

BP_API bp_status_t bp_device_get(bp_runtime_t *runtime, const char *device_type,
                                 size_t index, bp_device_t **out_device) {
  if (!runtime || !device_type || !out_device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_get: runtime, device_type or out_device is "
                    "NULL");
  const bp_plugin_t *plugin = bp_runtime_find_plugin(runtime, device_type);
  if (!plugin)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_device_get: no loaded plugin provides device type "
                    "\"%s\"",
                    device_type);
  if (index >= plugin->device_count)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_device_get: no device %s:%zu (the plugin has %zu)",
                    device_type, index, plugin->device_count);
  *out_device = &plugin->devices[index];
  return BP_OK;
}

BP_API DLDevice bp_device_to_dl(const bp_device_t *device) {
  DLDevice dl = {kDLExtDev, device ? (int32_t)device->ordinal : -1};
  return dl;
}

BP_API bp_status_t bp_device_from_dl(bp_runtime_t *runtime, DLDevice dl_device,
                                     bp_device_t **out_device) {
  if (!runtime || !out_device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_from_dl: runtime or out_device is NULL");
  if (dl_device.device_type != kDLExtDev)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_from_dl: DLDevice type %d is not kDLExtDev "
                    "(%d), the type of plugin devices",
                    (int)dl_device.device_type, (int)kDLExtDev);
  if (dl_device.device_id < 0 ||
      (size_t)dl_device.device_id >= runtime->device_count)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_device_from_dl: no device with ordinal %d (the "
                    "runtime has %zu)",
                    (int)dl_device.device_id, runtime->device_count);
  *out_device = runtime->devices[dl_device.device_id];
  return BP_OK;
}

BP_API const char *bp_device_type(const bp_device_t *device) {
  return device ? device->plugin->device_type : NULL;
}

BP_API size_t bp_device_index(const bp_device_t *device) {
  return device ? device->index : 0;
}

BP_API size_t bp_device_ordinal(const bp_device_t *device) {
  return device ? device->ordinal : 0;
}

BP_API const char *bp_device_name(const bp_device_t *device) {
  return device ? device->name : "(null device)";
}

BP_API C_Device bp_device_c_handle(const bp_device_t *device) {
  if (!device) {
    bp_error(BP_ERR_INVALID_ARGUMENT, "bp_device_c_handle: device is NULL");
    return NULL;
  }
  /* Handing the handle out means the caller will call the plugin with it:
   * the device must be initialized and bound like for any other call. */
  bp_device_t *mutable_device = (bp_device_t *)device;
  if (bp_device_enter(mutable_device) != BP_OK)
    return NULL;
  return &mutable_device->c_device;
}

BP_API_BODY bp_status_t device_synchronize(bp_device_t *device) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_synchronize: device is NULL");
  bp_status_t status = bp_check_wait_device("bp_device_synchronize", device);
  if (status == BP_OK)
    status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  C_Status result =
      device->plugin->dispatch.synchronize_device(&device->c_device);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, "synchronize_device", result);
  return BP_OK;
}

static __attribute__((noinline, cold)) bp_status_t
traced_device_synchronize(bp_device_t *device) {
  BP_TRACE_CALL(device, "bp_device_synchronize", device_synchronize(device),
                "%s", "");
}

BP_API bp_status_t bp_device_synchronize(bp_device_t *device) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_device_synchronize(device);
  return device_synchronize(device);
}

BP_API_BODY bp_status_t device_memory_info(bp_device_t *device,
                                           size_t *out_total,
                                           size_t *out_free) {
  if (!device || !out_total || !out_free)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_memory_info: device, out_total or out_free is "
                    "NULL");
  const C_DeviceInterface *d = &device->plugin->dispatch;
  if (!d->device_memory_stats)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "%s: device_memory_stats is not provided (asked for %s)",
                    device->plugin->device_type, device->name);
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  size_t total = 0, free_bytes = 0;
  C_Status result =
      d->device_memory_stats(&device->c_device, &total, &free_bytes);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, "device_memory_stats", result);
  *out_total = total;
  *out_free = free_bytes;
  return BP_OK;
}

bp_status_t bp_device_memory_info_internal(bp_device_t *device,
                                           size_t *out_total,
                                           size_t *out_free) {
  return device_memory_info(device, out_total, out_free);
}

static __attribute__((noinline, cold)) bp_status_t
traced_device_memory_info(bp_device_t *device, size_t *out_total,
                          size_t *out_free) {
  BP_TRACE_CALL(device, "bp_device_memory_info",
                device_memory_info(device, out_total, out_free), "%s", "");
}

BP_API bp_status_t bp_device_memory_info(bp_device_t *device, size_t *out_total,
                                         size_t *out_free) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_device_memory_info(device, out_total, out_free);
  return device_memory_info(device, out_total, out_free);
}
