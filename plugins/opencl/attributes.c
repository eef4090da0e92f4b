/* Device attributes from clGetDeviceInfo. */
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

/* An integer query of any width up to 64 bits; unsupported on failure or
 * (when `nonzero`) a zero answer. */
static void query_int(const ocl_device_t *dev, cl_device_info what,
                      size_t width, bool nonzero, int64_t scale,
                      BP_AttrValue *value) {
  uint64_t answer = 0;
  if (clGetDeviceInfo(dev->device, what, width, &answer, NULL) != CL_SUCCESS ||
      (nonzero && answer == 0))
    return;
  set_int(value, (int64_t)answer * scale);
}

static void thread_dimensions(const ocl_device_t *dev, BP_AttrValue *value) {
  size_t sizes[3] = {0, 0, 0};
  if (clGetDeviceInfo(dev->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes,
                      sizes, NULL) != CL_SUCCESS)
    return;
  char text[96];
  snprintf(text, sizeof text, "[%zu, %zu, %zu]", sizes[0], sizes[1], sizes[2]);
  set_string(value, text);
}

C_Status ocl_get_attribute(const C_Device device, int32_t attr,
                           BP_AttrValue *value) {
  if (!device || !value || ocl_device_count() == 0)
    return C_ERROR;
  ocl_device_t *dev = ocl_device_get(device);
  if (attr == BP_ATTR_EXIST) {
    set_int(value, dev ? 1 : 0);
    return C_SUCCESS;
  }
  if (!dev)
    return C_ERROR;
  unsigned major = CL_VERSION_MAJOR(dev->version);
  unsigned minor = CL_VERSION_MINOR(dev->version);
  switch ((BP_DeviceAttr)attr) {
  case BP_ATTR_MAX_THREADS_PER_BLOCK:
    query_int(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t), true, 1,
              value);
    break;
  case BP_ATTR_WARP_SIZE:
    if (major >= 3)
      query_int(dev, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                sizeof(size_t), true, 1, value);
    break;
  case BP_ATTR_MAX_SHARED_MEMORY_PER_BLOCK:
    query_int(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(cl_ulong), true, 1, value);
    break;
  case BP_ATTR_COMPUTE_VERSION: {
    char text[32];
    snprintf(text, sizeof text, "%u.%u", major, minor);
    set_string(value, text);
    break;
  }
  case BP_ATTR_DEVICE_NAME:
    set_string(value, dev->name);
    break;
  case BP_ATTR_MAX_CLOCK_RATE:
    query_int(dev, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(cl_uint), true, 1000,
              value);
    break;
  case BP_ATTR_MULTI_PROCESSOR_COUNT:
    query_int(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cl_uint), true, 1,
              value);
    break;
  case BP_ATTR_MAX_THREAD_DIMENSIONS:
    thread_dimensions(dev, value);
    break;
  case BP_ATTR_API_VERSION:
    set_int(value, (int64_t)major * 1000 + (int64_t)minor * 10);
    break;
  case BP_ATTR_DRIVER_VERSION: {
    char text[sizeof dev->vendor + sizeof dev->driver_version + 2];
    snprintf(text, sizeof text, "%s %s", dev->vendor, dev->driver_version);
    set_string(value, text);
    break;
  }
  case BP_ATTR_L2_CACHE_SIZE_BYTES:
    query_int(dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof(cl_ulong), true, 1,
              value);
    break;
  case BP_ATTR_TOTAL_GLOBAL_MEMORY:
  case BP_ATTR_AVAILABLE_GLOBAL_MEMORY: {
    size_t total = 0, free_memory = 0;
    ocl_device_memory_stats(device, &total, &free_memory);
    set_int(
        value,
        (int64_t)(attr == BP_ATTR_TOTAL_GLOBAL_MEMORY ? total : free_memory));
    break;
  }
  case BP_ATTR_IMAGE_PITCH_ALIGNMENT: {
    cl_bool images = CL_FALSE;
    if (clGetDeviceInfo(dev->device, CL_DEVICE_IMAGE_SUPPORT, sizeof images,
                        &images, NULL) == CL_SUCCESS &&
        images)
      query_int(dev, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof(cl_uint), true, 1,
                value);
    break;
  }
  default:
    break; /* unsupported: the value stays zeroed */
  }
  return C_SUCCESS;
}
