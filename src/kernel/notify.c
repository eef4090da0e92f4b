/* Notifies: flags between streams and device code, by id. */
#include <stdlib.h>

#include "base/status.h"
#include "core/active.h"
#include "core/stream_internal.h"
#include "kernel/kernel_internal.h"

BP_API bp_status_t bp_notify_create(bp_device_t *device,
                                    bp_notify_t **out_notify) {
  const BP_KernelExtension *kernels = NULL;
  bp_status_t status = bp_kernels_of(device, "bp_notify_create", &kernels);
  if (status != BP_OK)
    return status;
  if (!out_notify)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_notify_create on %s: out_notify is NULL", device->name);
  bp_notify_t *notify = calloc(1, sizeof *notify);
  if (!notify)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_notify_create on %s: out of memory", device->name);
  notify->device = device;
  notify->kernels = kernels;
  C_Status result = kernels->notify_create(&device->c_device, &notify->native);
  if (result == C_SUCCESS)
    result = kernels->notify_id(&device->c_device, notify->native, &notify->id);
  if (result != C_SUCCESS) {
    status = bp_kernels_call_failed(device, kernels, "notify_create", result,
                                    bp_status_from_c(result));
    if (notify->native)
      kernels->notify_destroy(&device->c_device, notify->native);
    free(notify);
    return status;
  }
  *out_notify = notify;
  return BP_OK;
}

BP_API bp_status_t bp_notify_destroy(bp_notify_t *notify) {
  if (!notify)
    return BP_OK;
  bp_device_t *device = notify->device;
  bp_status_t status = bp_device_enter(device);
  if (status == BP_OK) {
    C_Status result =
        notify->kernels->notify_destroy(&device->c_device, notify->native);
    if (result != C_SUCCESS)
      status = bp_kernels_call_failed(device, notify->kernels, "notify_destroy",
                                      result, bp_status_from_c(result));
  }
  free(notify);
  return status;
}

BP_API bp_status_t bp_notify_id(const bp_notify_t *notify, uint32_t *out_id) {
  if (!notify || !out_id)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_notify_id: notify or out_id is NULL");
  *out_id = notify->id;
  return BP_OK;
}

/* Checks `*stream` (BP_STREAM_ACTIVE: resolved on the notify's device) and
 * binds the thread to its device. */
static bp_status_t check_stream(const char *what, bp_notify_t *notify,
                                bp_stream_t **stream_inout) {
  if (!notify || !*stream_inout)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: notify or stream is NULL",
                    what);
  bp_status_t resolved = bp_stream_resolve(notify->device, stream_inout);
  if (resolved != BP_OK)
    return resolved;
  bp_stream_t *stream = *stream_inout;
  if (stream->device != notify->device) {
    bp_status_t status =
        bp_error(BP_ERR_INVALID_ARGUMENT,
                 "%s: notify %u belongs to %s, the stream to %s", what,
                 notify->id, notify->device->name, stream->device->name);
    bp_api_refused(stream->device, what);
    return status;
  }
  return bp_device_enter(stream->device);
}

BP_API bp_status_t bp_notify_record(bp_notify_t *notify, bp_stream_t *stream) {
  bp_status_t status = check_stream("bp_notify_record", notify, &stream);
  if (status != BP_OK)
    return status;
  C_Status result = notify->kernels->notify_record(
      &notify->device->c_device, stream->native, notify->native);
  return result == C_SUCCESS
             ? BP_OK
             : bp_kernels_call_failed(notify->device, notify->kernels,
                                      "notify_record", result,
                                      bp_status_from_c(result));
}

BP_API bp_status_t bp_notify_wait(bp_notify_t *notify, bp_stream_t *stream,
                                  uint32_t timeout_ms) {
  bp_status_t status = check_stream("bp_notify_wait", notify, &stream);
  if (status != BP_OK)
    return status;
  atomic_store_explicit(&stream->may_have_failed, true, memory_order_relaxed);
  C_Status result = notify->kernels->notify_wait(
      &notify->device->c_device, stream->native, notify->native,
      bp_kernel_timeout_ns(timeout_ms));
  return result == C_SUCCESS
             ? BP_OK
             : bp_kernels_call_failed(notify->device, notify->kernels,
                                      "notify_wait", result,
                                      bp_status_from_c(result));
}
