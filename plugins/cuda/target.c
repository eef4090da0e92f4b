/* The cuda target kind and its parser hook. */
#include "target.h"

#include <stdio.h>

#include "comm.h"
#include "device.h"

static const BP_TargetAttrSchema g_attrs[] = {
    /* name, type, has_default, default_int, min_int, default_string */
    {"arch", BP_TARGET_ATTR_STRING, 1, 0, 0, "sm_90"},
    {"max_num_threads", BP_TARGET_ATTR_INT, 1, 1024, 1, NULL},
    {"warp_size", BP_TARGET_ATTR_INT, 1, 32, 1, NULL},
    {"max_shared_memory_per_block", BP_TARGET_ATTR_INT, 1, 49152, 0, NULL},
    {"num_cores", BP_TARGET_ATTR_INT, 1, 132, 1, NULL},
    {"registers_per_block", BP_TARGET_ATTR_INT, 1, 65536, 1, NULL},
};

static C_Status from_device(const C_Device device, char *json,
                            size_t capacity) {
  cu_device_t *dev = cu_device_get(device);
  if (!dev || !json || capacity == 0)
    return dev ? cu_fail(C_ERROR, "cuda target from_device: json is NULL "
                                  "or capacity 0")
               : C_ERROR;
  const struct cudaDeviceProp *p = &dev->properties;
  int written =
      snprintf(json, capacity,
               "{\"arch\": \"%s\", \"max_num_threads\": %d, \"warp_size\": %d, "
               "\"max_shared_memory_per_block\": %zu, \"num_cores\": %d, "
               "\"registers_per_block\": %d}",
               dev->arch, p->maxThreadsPerBlock, p->warpSize,
               p->sharedMemPerBlock, p->multiProcessorCount, p->regsPerBlock);
  return written > 0 && (size_t)written < capacity
             ? C_SUCCESS
             : cu_fail(C_FAILED,
                       "cuda target from_device: %zu bytes are "
                       "too few",
                       capacity);
}

const BP_TargetKindExtension cu_target_kind = {
    .base = {.struct_size = sizeof(BP_TargetKindExtension),
             .type = BP_EXTENSION_TARGET_KIND,
             .next = &cu_comm_extension.base},
    .name = "cuda",
    .device_type = "cuda",
    .attrs = g_attrs,
    .attr_count = sizeof g_attrs / sizeof g_attrs[0],
    .default_keys = "cuda,gpu",
    .from_device = from_device,
    .build = NULL,
};
