/* Devices: found by plugin name and index, or as a DLPack DLDevice. Device
 * handles are owned by the runtime and valid until it is destroyed. All calls
 * here are thread-safe. */
#ifndef BACKPLANE_DEVICE_H_
#define BACKPLANE_DEVICE_H_

#include <stdint.h>

#include <dlpack/dlpack.h>

#include "backplane/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bp_device bp_device_t;

/* Every device the runtime shows; a device's position here is its ordinal.
 * The order: the built-in "vcpu" devices first, then the other device types
 * in byte order of their names ("cuda" before "opencl"), each type's devices
 * by index. BACKPLANE_VISIBLE_DEVICES (or bp_runtime_options_t's
 * visible_devices), a comma-separated list of `type:index` and bare `type`
 * entries ("vcpu:1,opencl:0", "opencl"), shows only the devices listed, in
 * the order listed, and numbers each type's devices from 0 in that order,
 * as CUDA_VISIBLE_DEVICES does: with "vcpu:1,vcpu:0" the second vcpu device
 * is vcpu:0 (bp_device_get, bp_device_name) and ordinal 0. */
BP_API size_t bp_device_count(const bp_runtime_t *runtime);
BP_API bp_status_t bp_device_at(bp_runtime_t *runtime, size_t ordinal,
                                bp_device_t **out_device);

/* The `index`-th device of the plugin whose device_type is `device_type`
 * (numbered as above). */
BP_API bp_status_t bp_device_get(bp_runtime_t *runtime, const char *device_type,
                                 size_t index, bp_device_t **out_device);

/* DLPack at the edge: plugin devices are kDLExtDev with device_id equal to the
 * device's ordinal. */
BP_API DLDevice bp_device_to_dl(const bp_device_t *device);
BP_API bp_status_t bp_device_from_dl(bp_runtime_t *runtime, DLDevice dl_device,
                                     bp_device_t **out_device);

BP_API const char *bp_device_type(const bp_device_t *device); /* "vcpu" */
BP_API size_t
bp_device_index(const bp_device_t *device); /* within its plugin */
BP_API size_t
bp_device_ordinal(const bp_device_t *device); /* within the runtime */
/* "vcpu:1": for messages. */
BP_API const char *bp_device_name(const bp_device_t *device);

/* Device attributes, numbered as TVM's DeviceAttrKind. */
typedef enum bp_device_attr {
  BP_DEVICE_ATTR_EXIST = 0,
  BP_DEVICE_ATTR_MAX_THREADS_PER_BLOCK = 1,
  BP_DEVICE_ATTR_WARP_SIZE = 2,
  BP_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 3,
  BP_DEVICE_ATTR_COMPUTE_VERSION = 4,
  BP_DEVICE_ATTR_DEVICE_NAME = 5,
  BP_DEVICE_ATTR_MAX_CLOCK_RATE = 6,
  BP_DEVICE_ATTR_MULTI_PROCESSOR_COUNT = 7,
  BP_DEVICE_ATTR_MAX_THREAD_DIMENSIONS = 8,
  BP_DEVICE_ATTR_MAX_REGISTERS_PER_BLOCK = 9,
  BP_DEVICE_ATTR_GCN_ARCH = 10,
  BP_DEVICE_ATTR_API_VERSION = 11,
  BP_DEVICE_ATTR_DRIVER_VERSION = 12,
  BP_DEVICE_ATTR_L2_CACHE_SIZE_BYTES = 13,
  BP_DEVICE_ATTR_TOTAL_GLOBAL_MEMORY = 14,
  BP_DEVICE_ATTR_AVAILABLE_GLOBAL_MEMORY = 15,
  BP_DEVICE_ATTR_IMAGE_PITCH_ALIGNMENT = 16,
  BP_DEVICE_ATTR_COUNT = 17,
} bp_device_attr_t;

typedef enum bp_device_attr_value_kind {
  BP_DEVICE_ATTR_VALUE_INT = 1,    /* the answer is in i64 */
  BP_DEVICE_ATTR_VALUE_STRING = 2, /* the answer is in str, NUL-terminated */
} bp_device_attr_value_kind_t;

typedef struct bp_device_attr_value {
  bp_device_attr_value_kind_t kind;
  int64_t i64;
  char str[256];
} bp_device_attr_value_t;

/* Writes the answer to *out_value on BP_OK. An attribute the device cannot
 * answer is BP_ERR_UNSUPPORTED, never a zero; an attribute out of range is
 * BP_ERR_INVALID_ARGUMENT. */
BP_API bp_status_t bp_device_attribute(bp_device_t *device,
                                       bp_device_attr_t attr,
                                       bp_device_attr_value_t *out_value);
/* "max_threads_per_block" for BP_DEVICE_ATTR_MAX_THREADS_PER_BLOCK; NULL if
 * out of range. */
BP_API const char *bp_device_attribute_name(bp_device_attr_t attr);

/* Total and free device memory as the plugin reports them. */
BP_API bp_status_t bp_device_memory_info(bp_device_t *device, size_t *out_total,
                                         size_t *out_free);

/* The active device (TVM's SetDevice, Paddle's DeviceManager::SetDevice):
 * per thread and per plugin (device type), through the plugin's set_device
 * and get_device. bp_device_set_active initializes the device if needed,
 * calls set_device and checks that get_device then reports it
 * (BP_ERR_PLUGIN, naming both, if not). Calls that name a device still run
 * on the device they name; the active device is what code that names none
 * (generated functions, kernel launches by name) runs on. */
BP_API bp_status_t bp_device_set_active(bp_device_t *device);
/* The calling thread's active device of the plugin `device_type` (NULL:
 * the plugin of the device at ordinal 0): the one it set last, else the
 * plugin's first device, as the plugin's get_device reports it after the thread
 * is bound to it. A new thread, and a host callback's runtime thread, starts
 * with none set. BP_ERR_NOT_FOUND for an unknown device type. */
BP_API bp_status_t bp_device_get_active(bp_runtime_t *runtime,
                                        const char *device_type,
                                        bp_device_t **out_device);

/* Blocks until all work on every stream of the device has finished. */
BP_API bp_status_t bp_device_synchronize(bp_device_t *device);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_DEVICE_H_ */
