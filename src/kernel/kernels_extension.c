/* Finding the kernels extension of a device and reporting its failures. */
#include <stddef.h>

#include "base/status.h"
#include "kernel/kernel_internal.h"

bp_status_t bp_kernels_of(bp_device_t *device, const char *what,
                          const BP_KernelExtension **out_kernels) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: device is NULL", what);
  const BP_KernelExtension *kernels = device->plugin->extensions.kernels;
  if (!kernels)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "%s on %s: plugin %s (%s) has no kernels extension "
                    "(kernel_ext.h), so it cannot run kernels",
                    what, device->name, device->plugin->device_type,
                    device->plugin->path);
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  *out_kernels = kernels;
  return BP_OK;
}

bp_status_t bp_kernels_call_failed(const bp_device_t *device,
                                   const BP_KernelExtension *kernels,
                                   const char *function, C_Status result,
                                   bp_status_t status) {
  if (kernels->base.struct_size >= offsetof(BP_KernelExtension, last_status) +
                                       sizeof(kernels->last_status) &&
      kernels->last_status) {
    int32_t reported = kernels->last_status();
    if (reported > BP_OK && reported <= BP_ERR_INTERNAL)
      status = (bp_status_t)reported;
  }
  return bp_error(status, "%s: %s on %s returned %s: %s",
                  device->plugin->device_type, function, device->name,
                  bp_c_status_name(result), kernels->last_error());
}
