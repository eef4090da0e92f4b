/* Opt-in access to the vendor face behind the framework face, for
 * conformance tools, benchmarks and vendor test harnesses that call a
 * plugin's functions directly. It brings in the plugin ABI (device_ext.h,
 * with its unprefixed enumerators), so backplane.h does not include it;
 * include it only where the vendor types are wanted. */
#ifndef BACKPLANE_VENDOR_ACCESS_H_
#define BACKPLANE_VENDOR_ACCESS_H_

#include <stddef.h>

#include "backplane/device.h"
#include "backplane/device_ext.h"
#include "backplane/runtime.h"
#include "backplane/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dispatch table the runtime calls plugin `index` through (the plugin's
 * own functions plus Backplane's fallbacks, layers spliced in); lives as
 * long as the runtime. NULL for a NULL runtime or an index out of range. */
BP_API const C_DeviceInterface *
bp_runtime_plugin_dispatch(const bp_runtime_t *runtime, size_t index);

/* The C_Device handle the runtime passes to the plugin for this device,
 * after initializing the device and binding it to the calling thread as any
 * call would. NULL (with bp_last_error()) for a NULL device or a device that
 * failed to initialize. */
BP_API C_Device bp_device_c_handle(const bp_device_t *device);

/* The C_Stream the plugin created for `stream` (NULL when the plugin has no
 * streams, or for a NULL stream). Valid while the stream lives; work the
 * caller enqueues on it directly is ordered with the stream's other work. */
BP_API C_Stream bp_stream_c_handle(const bp_stream_t *stream);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_VENDOR_ACCESS_H_ */
