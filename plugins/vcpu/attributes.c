/* Device attributes and version queries. */
#include "attributes.h"

#include <stdio.h>
#include <unistd.h>

#include "arena.h"
#include "device.h"

static void set_int(BP_AttrValue *value, int64_t i64) {
  value->kind = BP_ATTR_VALUE_INT;
  value->i64 = i64;
}

C_Status vcpu_get_attribute(const C_Device device, int32_t attr,
                            BP_AttrValue *value) {
  if (!device || !value || vcpu_device_count() == 0)
    return C_ERROR;
  vcpu_device *dev = vcpu_device_get(device);
  if (attr == BP_ATTR_EXIST) {
    set_int(value, dev ? 1 : 0);
    return C_SUCCESS;
  }
  if (!dev)
    return C_ERROR;
  switch ((BP_DeviceAttr)attr) {
  case BP_ATTR_MAX_THREADS_PER_BLOCK:
  case BP_ATTR_WARP_SIZE:
    set_int(value, 1);
    break;
  case BP_ATTR_DEVICE_NAME:
    value->kind = BP_ATTR_VALUE_STRING;
    snprintf(value->str, sizeof value->str, "vcpu virtual device %d", dev->id);
    break;
  case BP_ATTR_MULTI_PROCESSOR_COUNT: {
    long cpus = dev->cores ? (long)dev->cores : sysconf(_SC_NPROCESSORS_ONLN);
    set_int(value, cpus > 0 ? cpus : 1);
    break;
  }
  case BP_ATTR_L2_CACHE_SIZE_BYTES: {
    long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (bytes > 0)
      set_int(value, bytes);
    break;
  }
  case BP_ATTR_TOTAL_GLOBAL_MEMORY:
    set_int(value, (int64_t)dev->arena.capacity);
    break;
  case BP_ATTR_AVAILABLE_GLOBAL_MEMORY:
    set_int(value, (int64_t)(dev->arena.capacity -
                             vcpu_arena_usage(&dev->arena).used));
    break;
  case BP_ATTR_API_VERSION:
  case BP_ATTR_DRIVER_VERSION:
    set_int(value, VCPU_VERSION);
    break;
  default:
    break; /* unsupported: the value stays zeroed */
  }
  return C_SUCCESS;
}

C_Status vcpu_get_compute_capability(size_t *capability) {
  if (!capability)
    return C_ERROR;
  *capability = VCPU_COMPUTE_CAPABILITY;
  return C_SUCCESS;
}

C_Status vcpu_get_runtime_version(size_t *version) {
  if (!version)
    return C_ERROR;
  *version = VCPU_VERSION;
  return C_SUCCESS;
}

C_Status vcpu_get_driver_version(size_t *version) {
  if (!version)
    return C_ERROR;
  *version = VCPU_VERSION;
  return C_SUCCESS;
}
