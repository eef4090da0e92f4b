/* The opencl target kind and its parser hook. */
#include "target.h"

#include <stdio.h>

#include "device.h"

static const BP_TargetAttrSchema g_attrs[] = {
    /* name, type, has_default, default_int, min_int, default_string */
    {"max_num_threads", BP_TARGET_ATTR_INT, 1, 256, 1, NULL},
    {"num_cores", BP_TARGET_ATTR_INT, 1, 1, 1, NULL},
    {"warp_size", BP_TARGET_ATTR_INT, 1, 1, 1, NULL},
    {"max_shared_memory_per_block", BP_TARGET_ATTR_INT, 1, 16384, 0, NULL},
    {"vector_width", BP_TARGET_ATTR_INT, 1, 1, 1, NULL},
};

static C_Status from_device(const C_Device device, char *json,
                            size_t capacity) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !json || capacity == 0)
    return C_ERROR;
  cl_uint width = 0;
  if (clGetDeviceInfo(dev->device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
                      sizeof width, &width, NULL) != CL_SUCCESS ||
      width == 0)
    width = 1;
  int written = snprintf(json, capacity, "{\"vector_width\": %u}", width);
  return written > 0 && (size_t)written < capacity ? C_SUCCESS : C_FAILED;
}

const BP_TargetKindExtension ocl_target_kind = {
    .base = {.struct_size = sizeof(BP_TargetKindExtension),
             .type = BP_EXTENSION_TARGET_KIND,
             .next = NULL},
    .name = "opencl",
    .device_type = "opencl",
    .attrs = g_attrs,
    .attr_count = sizeof g_attrs / sizeof g_attrs[0],
    .default_keys = "opencl,gpu",
    .from_device = from_device,
    .build = NULL,
};
