/* bp_comm_kernel_resources: the resource context of a custom communication
 * kernel (kernel.h), prepared by the plugin's kernels extension. */
#include <string.h>

#include "backplane/kernel.h"
#include "backplane/kernel_ext.h"
#include "base/status.h"
#include "comm/comm_internal.h"

BP_API bp_status_t bp_comm_kernel_resources(bp_comm_t *comm, const char *name,
                                            void *local, size_t size,
                                            const uint32_t *notify_ids,
                                            size_t notify_count,
                                            bp_kernel_resources_t *out) {
  if (!comm || !name || !out || (notify_count && !notify_ids))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_comm_kernel_resources: comm, name, out or notify_ids "
                    "is NULL");
  bp_device_t *device = comm->device;
  if (notify_count > BP_KERNEL_NOTIFY_SLOTS ||
      comm->nranks > BP_KERNEL_MAX_PEERS ||
      strlen(name) >= BP_KERNEL_COMM_NAME_MAX || name[0] == '\0')
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_comm_kernel_resources on %s: %zu notifies (at most "
                    "%d), %zu ranks (at most %d), name of %zu bytes (1 to %d)",
                    device->name, notify_count, BP_KERNEL_NOTIFY_SLOTS,
                    comm->nranks, BP_KERNEL_MAX_PEERS, strlen(name),
                    BP_KERNEL_COMM_NAME_MAX - 1);
  const BP_KernelExtension *kernels = device->plugin->extensions.kernels;
  if (!kernels)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_comm_kernel_resources on %s: plugin %s has no kernels "
                    "extension (kernel_ext.h)",
                    device->name, device->plugin->device_type);
  bp_status_t status = bp_device_enter(device);
  if (status != BP_OK)
    return status;
  bp_kernel_resources_t resources;
  memset(&resources, 0, sizeof resources);
  C_Status result = kernels->comm_kernel_resources(
      &device->c_device, comm->native, name, local, size, &resources);
  if (result != C_SUCCESS)
    return bp_error(result == C_ERROR ? BP_ERR_INVALID_ARGUMENT
                                      : BP_ERR_TIMEOUT,
                    "%s: comm_kernel_resources on %s returned %s: %s",
                    device->plugin->device_type, device->name,
                    bp_c_status_name(result), kernels->last_error());
  memcpy(resources.notify_ids, notify_ids, notify_count * sizeof *notify_ids);
  resources.notify_count = (uint32_t)notify_count;
  *out = resources;
  return BP_OK;
}
