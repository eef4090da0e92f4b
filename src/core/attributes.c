/* Device attributes: the plugin's device_attributes extension first, then
 * what can be derived from the base ABI; otherwise BP_ERR_UNSUPPORTED. A
 * slice of the trace when traced (core/observer.h). */
#include <string.h>

#include "base/status.h"
#include "core/observer.h"
#include "core/stream_internal.h"
#include "core/vendor_types.h"

static const char *const attribute_names[BP_DEVICE_ATTR_COUNT] = {
    [BP_DEVICE_ATTR_EXIST] = "exist",
    [BP_DEVICE_ATTR_MAX_THREADS_PER_BLOCK] = "max_threads_per_block",
    [BP_DEVICE_ATTR_WARP_SIZE] = "warp_size",
    [BP_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK] =
        "max_shared_memory_per_block",
    [BP_DEVICE_ATTR_COMPUTE_VERSION] = "compute_version",
    [BP_DEVICE_ATTR_DEVICE_NAME] = "device_name",
    [BP_DEVICE_ATTR_MAX_CLOCK_RATE] = "max_clock_rate",
    [BP_DEVICE_ATTR_MULTI_PROCESSOR_COUNT] = "multi_processor_count",
    [BP_DEVICE_ATTR_MAX_THREAD_DIMENSIONS] = "max_thread_dimensions",
    [BP_DEVICE_ATTR_MAX_REGISTERS_PER_BLOCK] = "max_registers_per_block",
    [BP_DEVICE_ATTR_GCN_ARCH] = "gcn_arch",
    [BP_DEVICE_ATTR_API_VERSION] = "api_version",
    [BP_DEVICE_ATTR_DRIVER_VERSION] = "driver_version",
    [BP_DEVICE_ATTR_L2_CACHE_SIZE_BYTES] = "l2_cache_size_bytes",
    [BP_DEVICE_ATTR_TOTAL_GLOBAL_MEMORY] = "total_global_memory",
    [BP_DEVICE_ATTR_AVAILABLE_GLOBAL_MEMORY] = "available_global_memory",
    [BP_DEVICE_ATTR_IMAGE_PITCH_ALIGNMENT] = "image_pitch_alignment",
};

BP_API const char *bp_device_attribute_name(bp_device_attr_t attr) {
  if ((int)attr < 0 || attr >= BP_DEVICE_ATTR_COUNT)
    return NULL;
  return attribute_names[attr];
}

static bp_status_t set_int(bp_device_attr_value_t *out, int64_t value) {
  memset(out, 0, sizeof *out);
  out->kind = BP_DEVICE_ATTR_VALUE_INT;
  out->i64 = value;
  return BP_OK;
}

/* A device-independent version query of the base ABI. */
static bp_status_t version_query(bp_device_t *device, bp_device_attr_t attr,
                                 C_Status (*query)(size_t *),
                                 const char *query_name,
                                 bp_device_attr_value_t *out) {
  if (!query)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "%s: attribute %s is unsupported (no device_attributes "
                    "extension answer and %s is not provided)",
                    device->name, attribute_names[attr], query_name);
  size_t value = 0;
  C_Status result = query(&value);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(device, query_name, result);
  return set_int(out, (int64_t)value);
}

/* Attributes the base ABI can answer. */
static bp_status_t derive(bp_device_t *device, bp_device_attr_t attr,
                          bp_device_attr_value_t *out) {
  const C_DeviceInterface *d = &device->plugin->dispatch;
  switch (attr) {
  case BP_DEVICE_ATTR_EXIST:
    return set_int(out, 1);
  case BP_DEVICE_ATTR_TOTAL_GLOBAL_MEMORY:
  case BP_DEVICE_ATTR_AVAILABLE_GLOBAL_MEMORY: {
    size_t total = 0, free_bytes = 0;
    bp_status_t status =
        bp_device_memory_info_internal(device, &total, &free_bytes);
    if (status != BP_OK)
      return status;
    return set_int(out, (int64_t)(attr == BP_DEVICE_ATTR_TOTAL_GLOBAL_MEMORY
                                      ? total
                                      : free_bytes));
  }
  case BP_DEVICE_ATTR_API_VERSION:
    return version_query(device, attr, d->get_runtime_version,
                         "get_runtime_version", out);
  case BP_DEVICE_ATTR_DRIVER_VERSION:
    return version_query(device, attr, d->get_driver_version,
                         "get_driver_version", out);
  case BP_DEVICE_ATTR_COMPUTE_VERSION:
    return version_query(device, attr, d->get_compute_capability,
                         "get_compute_capability", out);
  default:
    return bp_error(BP_ERR_UNSUPPORTED,
                    "%s: attribute %s is unsupported by the plugin",
                    device->name, attribute_names[attr]);
  }
}

BP_API_BODY bp_status_t device_attribute(bp_device_t *device,
                                         bp_device_attr_t attr,
                                         bp_device_attr_value_t *out_value) {
  if (!device || !out_value)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_attribute: device or out_value is NULL");
  if ((int)attr < 0 || attr >= BP_DEVICE_ATTR_COUNT)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_attribute: attribute %d is out of range "
                    "(0..%d)",
                    (int)attr, BP_DEVICE_ATTR_COUNT - 1);
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  const BP_DeviceAttributesExtension *attributes =
      device->plugin->extensions.device_attributes;
  BP_DeviceAttr vendor_attr;
  if (attributes && bp_device_attr_to_c(attr, &vendor_attr)) {
    BP_AttrValue value;
    memset(&value, 0, sizeof value);
    C_Status result = attributes->get_attribute(&device->c_device,
                                                (int32_t)vendor_attr, &value);
    if (!BP_C_OK(result))
      return bp_plugin_call_error(device, "get_attribute", result);
    if (bp_device_attr_value_from_c(&value, out_value))
      return BP_OK;
    if (value.kind != BP_ATTR_VALUE_UNSUPPORTED)
      return bp_error(BP_ERR_PLUGIN,
                      "%s: get_attribute(%s) on %s gave unknown value kind "
                      "%d",
                      device->plugin->device_type, attribute_names[attr],
                      device->name, (int)value.kind);
  }
  return derive(device, attr, out_value);
}

static __attribute__((noinline, cold)) bp_status_t
traced_device_attribute(bp_device_t *device, bp_device_attr_t attr,
                        bp_device_attr_value_t *out_value) {
  BP_TRACE_CALL(
      device, "bp_device_attribute", device_attribute(device, attr, out_value),
      ",\"attribute\":\"%s\"",
      (int)attr >= 0 && attr < BP_DEVICE_ATTR_COUNT ? attribute_names[attr]
                                                    : "out of range");
}

BP_API bp_status_t bp_device_attribute(bp_device_t *device,
                                       bp_device_attr_t attr,
                                       bp_device_attr_value_t *out_value) {
  if (device != NULL && BP_OBSERVED(device))
    return traced_device_attribute(device, attr, out_value);
  return device_attribute(device, attr, out_value);
}
