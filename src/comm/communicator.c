/* Communicator lifetime, unique ids, abort and async errors. */
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "comm/comm_internal.h"
#include "core/vendor_types.h"

bp_status_t bp_comm_call_failed(const bp_comm_t *comm,
                                const bp_device_t *device,
                                const BP_CommExtension *extension,
                                const char *function, C_Status result) {
  char message[1024] = "";
  if (comm != NULL && extension && extension->comm_get_async_error) {
    int32_t status = 0;
    if (extension->comm_get_async_error(comm->native, &status, message,
                                        sizeof message) == C_SUCCESS &&
        status != BP_COMM_EXT_OK)
      return bp_error(bp_status_from_comm_ext(status), "%s: %s on %s: %s",
                      device->plugin->device_type, function, device->name,
                      message);
  }
  const char *why = extension && extension->last_error
                        ? extension->last_error()
                        : "the plugin gives no reason";
  return bp_error(bp_status_from_c(result), "%s: %s on %s returned %s: %s",
                  device->plugin->device_type, function, device->name,
                  bp_c_status_name(result), why);
}

static bp_status_t check_device(bp_device_t *device, const char *what,
                                const void *slot, const char *slot_name) {
  if (device == NULL)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: device is NULL", what);
  if (slot == NULL)
    return bp_error(BP_ERR_UNSUPPORTED, "%s: plugin %s has no %s", what,
                    device->plugin->device_type, slot_name);
  return bp_device_enter(device);
}

BP_API bp_status_t bp_comm_unique_id_size(bp_device_t *device,
                                          size_t *out_size) {
  bp_status_t status = check_device(
      device, "bp_comm_unique_id_size",
      device ? (void *)device->plugin->dispatch.xccl_get_unique_id_size : NULL,
      "xccl_get_unique_id_size");
  if (status != BP_OK)
    return status;
  if (out_size == NULL)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_comm_unique_id_size: out_size is NULL");
  size_t size = 0;
  C_Status result = device->plugin->dispatch.xccl_get_unique_id_size(&size);
  if (!BP_C_OK(result))
    return bp_comm_call_failed(NULL, device, device->plugin->extensions.comm,
                               "xccl_get_unique_id_size", result);
  *out_size = size;
  return BP_OK;
}

BP_API bp_status_t bp_comm_get_unique_id(bp_device_t *device, void *id,
                                         size_t size) {
  bp_status_t status = check_device(
      device, "bp_comm_get_unique_id",
      device ? (void *)device->plugin->dispatch.xccl_get_unique_id : NULL,
      "xccl_get_unique_id");
  if (status != BP_OK)
    return status;
  size_t needed = 0;
  status = bp_comm_unique_id_size(device, &needed);
  if (status != BP_OK)
    return status;
  if (id == NULL || size < needed)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_comm_get_unique_id on %s: needs a buffer of %zu "
                    "bytes, got %s of %zu",
                    device->name, needed, id ? "one" : "NULL", size);
  C_CCLRootId root = {needed, id};
  C_Status result = device->plugin->dispatch.xccl_get_unique_id(&root);
  if (!BP_C_OK(result))
    return bp_comm_call_failed(NULL, device, device->plugin->extensions.comm,
                               "xccl_get_unique_id", result);
  return BP_OK;
}

BP_API bp_status_t bp_comm_init_rank(bp_device_t *device, size_t nranks,
                                     const void *id, size_t id_size,
                                     size_t rank, bp_comm_t **out_comm) {
  bp_status_t status = check_device(
      device, "bp_comm_init_rank",
      device ? (void *)device->plugin->dispatch.xccl_comm_init_rank : NULL,
      "xccl_comm_init_rank");
  if (status != BP_OK)
    return status;
  if (id == NULL || out_comm == NULL)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_comm_init_rank on %s: id or out_comm is NULL",
                    device->name);
  if (nranks == 0 || rank >= nranks)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_comm_init_rank on %s: rank %zu out of range for %zu "
                    "ranks",
                    device->name, rank, nranks);
  bp_comm_t *comm = calloc(1, sizeof *comm);
  if (comm == NULL)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_comm_init_rank on %s: out of memory", device->name);
  comm->device = device;
  comm->dispatch = &device->plugin->dispatch;
  comm->extension = device->plugin->extensions.comm;
  comm->rank = rank;
  comm->nranks = nranks;
  /* The ABI takes a non-const root id; the plugin only reads it. */
  C_CCLRootId root = {id_size, (void *)(uintptr_t)id};
  C_Status result =
      comm->dispatch->xccl_comm_init_rank(nranks, &root, rank, &comm->native);
  if (!BP_C_OK(result)) {
    status = bp_comm_call_failed(NULL, device, comm->extension,
                                 "xccl_comm_init_rank", result);
    free(comm);
    return status;
  }
  *out_comm = comm;
  return BP_OK;
}

BP_API bp_status_t bp_comm_init_all(bp_device_t *const *devices,
                                    size_t ndevices, bp_comm_t **out_comms) {
  if (devices == NULL || out_comms == NULL || ndevices == 0)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_comm_init_all: devices or out_comms is NULL, or no "
                    "devices");
  for (size_t i = 0; i < ndevices; i++) {
    if (devices[i] == NULL || devices[i]->plugin != devices[0]->plugin)
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "bp_comm_init_all: device %zu is NULL or of another "
                      "plugin than device 0",
                      i);
  }
  size_t size = 0;
  bp_status_t status = bp_comm_unique_id_size(devices[0], &size);
  if (status != BP_OK)
    return status;
  void *id = malloc(size ? size : 1);
  bp_comm_t **comms = calloc(ndevices, sizeof *comms);
  if (id == NULL || comms == NULL) {
    free(id);
    free(comms);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_comm_init_all: out of memory");
  }
  status = bp_comm_get_unique_id(devices[0], id, size);
  /* Ranks join inside a group, so a plugin whose init waits for its peers
   * can be driven by this one thread (NCCL's CommInitAll). */
  const C_DeviceInterface *d = &devices[0]->plugin->dispatch;
  if (status == BP_OK && d->xccl_group_start)
    d->xccl_group_start();
  for (size_t i = 0; i < ndevices && status == BP_OK; i++)
    status = bp_comm_init_rank(devices[i], ndevices, id, size, i, &comms[i]);
  if (d->xccl_group_end && d->xccl_group_start) {
    C_Status result = d->xccl_group_end();
    if (status == BP_OK && !BP_C_OK(result))
      status = bp_comm_call_failed(NULL, devices[0],
                                   devices[0]->plugin->extensions.comm,
                                   "xccl_group_end", result);
  }
  if (status == BP_OK) {
    memcpy(out_comms, comms, ndevices * sizeof *comms);
  } else {
    for (size_t i = 0; i < ndevices; i++)
      if (comms[i] && comms[i]->dispatch->xccl_destroy_comm)
        comms[i]->dispatch->xccl_destroy_comm(comms[i]->native);
    for (size_t i = 0; i < ndevices; i++)
      free(comms[i]);
  }
  free(id);
  free(comms);
  return status;
}

BP_API bp_status_t bp_comm_destroy(bp_comm_t *comm) {
  if (comm == NULL)
    return BP_OK;
  bp_status_t status = BP_OK;
  if (comm->dispatch->xccl_destroy_comm) {
    C_Status result = comm->dispatch->xccl_destroy_comm(comm->native);
    if (!BP_C_OK(result))
      status = bp_comm_call_failed(NULL, comm->device, comm->extension,
                                   "xccl_destroy_comm", result);
  }
  free(comm);
  return status;
}

BP_API bp_status_t bp_comm_abort(bp_comm_t *comm) {
  if (comm == NULL)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_comm_abort: comm is NULL");
  if (comm->extension == NULL || comm->extension->comm_abort == NULL)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_comm_abort: plugin %s has no collectives extension",
                    comm->device->plugin->device_type);
  C_Status result = comm->extension->comm_abort(comm->native);
  if (!BP_C_OK(result))
    return bp_comm_call_failed(NULL, comm->device, comm->extension,
                               "comm_abort", result);
  return BP_OK;
}

BP_API bp_status_t bp_comm_async_error(bp_comm_t *comm) {
  if (comm == NULL)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_comm_async_error: comm is NULL");
  if (comm->extension == NULL || comm->extension->comm_get_async_error == NULL)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_comm_async_error: plugin %s has no collectives "
                    "extension",
                    comm->device->plugin->device_type);
  char message[1024] = "";
  int32_t status = 0;
  C_Status result = comm->extension->comm_get_async_error(
      comm->native, &status, message, sizeof message);
  if (!BP_C_OK(result))
    return bp_comm_call_failed(NULL, comm->device, comm->extension,
                               "comm_get_async_error", result);
  if (status != BP_COMM_EXT_OK)
    return bp_error(bp_status_from_comm_ext(status),
                    "%s: rank %zu of %zu on %s: %s",
                    comm->device->plugin->device_type, comm->rank, comm->nranks,
                    comm->device->name, message);
  return BP_OK;
}

BP_API size_t bp_comm_rank(const bp_comm_t *comm) {
  return comm ? comm->rank : 0;
}

BP_API size_t bp_comm_size(const bp_comm_t *comm) {
  return comm ? comm->nranks : 0;
}

BP_API bp_device_t *bp_comm_device(const bp_comm_t *comm) {
  return comm ? comm->device : NULL;
}
