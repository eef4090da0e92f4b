/* Devices: found by plugin name and index, or as a DLPack DLDevice. Device
 * handles are owned by the runtime and valid until it is destroyed. All calls
 * here are thread-safe. */
#ifndef BACKPLANE_DEVICE_H_
#define BACKPLANE_DEVICE_H_

#include <dlpack/dlpack.h>

#include "backplane/device_ext.h"
#include "backplane/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bp_device bp_device_t;

/* Every device of every loaded plugin, in plugin load order; a device's
 * position here is its ordinal. */
BP_API size_t bp_device_count(const bp_runtime_t *runtime);
BP_API bp_status_t bp_device_at(bp_runtime_t *runtime, size_t ordinal,
                                bp_device_t **out_device);

/* The `index`-th device of the plugin whose device_type is `device_type`. */
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

/* Attributes use TVM's DeviceAttrKind numbering (BP_ATTR_*). An attribute the
 * device cannot answer is BP_ERR_UNSUPPORTED, never a zero. */
BP_API bp_status_t bp_device_attribute(bp_device_t *device, BP_DeviceAttr attr,
                                       BP_AttrValue *out_value);
/* "max_threads_per_block" for BP_ATTR_MAX_THREADS_PER_BLOCK; NULL if out of
 * range. */
BP_API const char *bp_device_attribute_name(BP_DeviceAttr attr);

/* Total and free device memory as the plugin reports them. */
BP_API bp_status_t bp_device_memory_info(bp_device_t *device, size_t *out_total,
                                         size_t *out_free);

/* The C_Device handle the runtime passes to the plugin for this device. */
BP_API C_Device bp_device_c_handle(const bp_device_t *device);

/* Blocks until all work on every stream of the device has finished. */
BP_API bp_status_t bp_device_synchronize(bp_device_t *device);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_DEVICE_H_ */
