/* Device attributes from cudaDeviceProp. */
#include "attributes.h"

#include <stdio.h>
#include <string.h>

#include "device.h"
#include "memory.h"

static void set_int(BP_AttrValue *value, int64_t i64) {
  value->kind = BP_ATTR_VALUE_INT;
  value->i64 = i64;
}

static void set_string(BP_AttrValue *value, const char *text) {
  value->kind = BP_ATTR_VALUE_STRING;
  size_t length = strnlen(text, sizeof value->str - 1); /* truncates */
  memcpy(value->str, text, length);
  value->str[length] = '\0';
}

/* The CUDA version numbers (1000 * major + 10 * minor) as "13.0". */
static void set_version(BP_AttrValue *value, int version) {
  char text[32];
  snprintf(text, sizeof text, "%d.%d", version / 1000, version % 1000 / 10);
  set_string(value, text);
}

C_Status cu_get_attribute(const C_Device device, int32_t attr,
                          BP_AttrValue *value) {
  if (!device || !value)
    return cu_fail(C_ERROR, "cuda get_attribute: %s is NULL",
                   !device ? "device" : "value");
  if (attr == BP_ATTR_EXIST) {
    set_int(value, device->id >= 0 && device->id < cu_device_count());
    return C_SUCCESS;
  }
  cu_device_t *dev = cu_device_get(device);
  if (!dev)
    return C_ERROR;
  const struct cudaDeviceProp *p = &dev->properties;
  switch ((BP_DeviceAttr)attr) {
  case BP_ATTR_MAX_THREADS_PER_BLOCK:
    set_int(value, p->maxThreadsPerBlock);
    break;
  case BP_ATTR_WARP_SIZE:
    set_int(value, p->warpSize);
    break;
  case BP_ATTR_MAX_SHARED_MEMORY_PER_BLOCK:
    set_int(value, (int64_t)p->sharedMemPerBlock);
    break;
  case BP_ATTR_COMPUTE_VERSION: {
    char text[32];
    snprintf(text, sizeof text, "%d.%d", p->major, p->minor);
    set_string(value, text);
    break;
  }
  case BP_ATTR_DEVICE_NAME:
    set_string(value, p->name);
    break;
  case BP_ATTR_MAX_CLOCK_RATE: {
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev->id) ==
            cudaSuccess &&
        khz > 0)
      set_int(value, khz);
    break;
  }
  case BP_ATTR_MULTI_PROCESSOR_COUNT:
    set_int(value, p->multiProcessorCount);
    break;
  case BP_ATTR_MAX_THREAD_DIMENSIONS: {
    char text[96];
    snprintf(text, sizeof text, "[%d, %d, %d]", p->maxThreadsDim[0],
             p->maxThreadsDim[1], p->maxThreadsDim[2]);
    set_string(value, text);
    break;
  }
  case BP_ATTR_MAX_REGISTERS_PER_BLOCK:
    set_int(value, p->regsPerBlock);
    break;
  case BP_ATTR_API_VERSION: {
    int version = 0;
    if (cudaRuntimeGetVersion(&version) == cudaSuccess)
      set_int(value, version);
    break;
  }
  case BP_ATTR_DRIVER_VERSION: {
    int version = 0;
    if (cudaDriverGetVersion(&version) == cudaSuccess)
      set_version(value, version);
    break;
  }
  case BP_ATTR_L2_CACHE_SIZE_BYTES:
    set_int(value, p->l2CacheSize);
    break;
  case BP_ATTR_TOTAL_GLOBAL_MEMORY:
  case BP_ATTR_AVAILABLE_GLOBAL_MEMORY: {
    size_t total = 0, free_memory = 0;
    if (cu_device_memory_stats(device, &total, &free_memory) == C_SUCCESS)
      set_int(
          value,
          (int64_t)(attr == BP_ATTR_TOTAL_GLOBAL_MEMORY ? total : free_memory));
    break;
  }
  case BP_ATTR_IMAGE_PITCH_ALIGNMENT:
    set_int(value, (int64_t)p->texturePitchAlignment);
    break;
  default:
    break; /* unsupported (GCN arch): the value stays zeroed */
  }
  return C_SUCCESS;
}
