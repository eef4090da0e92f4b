/* Launches and the stream errors they leave. */
#include <stdio.h>

#include "backplane/status.h"
#include "kernel_internal.h"

C_Status cu_launch(const C_Device device, C_Stream stream_handle,
                   BP_KernelFunction function, uint32_t blocks,
                   const void *args, size_t args_size,
                   const BP_LaunchConfig *config, const char *label) {
  cu_device_t *dev = cu_device_enter(device);
  struct C_Stream_st *stream = cu_stream_of(dev, stream_handle);
  if (!stream)
    return C_ERROR;
  if (!function || function->module->dev != dev || blocks == 0 ||
      (args_size && !args))
    return cu_fail(C_ERROR,
                   "cuda launch: expected a function of device %d, blocks "
                   ">= 1 and args for %zu bytes (blocks %u)",
                   dev->id, args_size, blocks);
  if (blocks > (uint32_t)dev->properties.maxGridSize[0])
    return cu_fail(C_ERROR, "cuda launch: %u blocks, the device takes %d",
                   blocks, dev->properties.maxGridSize[0]);
  const cu_driver_t *driver = cu_driver();
  if (!driver)
    return C_FAILED;
  const char *name = label ? label : function->name;
  if (function->generated) {
    C_Status status =
        cu_generated_launch(driver, stream, function, blocks, args, args_size);
    if (status != C_SUCCESS)
      return status;
  } else {
    /* The single by-value struct parameter: the driver copies it here. */
    void *params[] = {(void *)args};
    CUresult r = driver->launch_kernel(
        function->kernel.function, blocks, 1, 1, function->kernel.threads, 1, 1,
        0, (CUstream)stream->stream, args_size ? params : NULL, NULL);
    if (r != CUDA_SUCCESS)
      return cu_fail_driver(driver, r, "cuLaunchKernel");
  }
  pthread_mutex_lock(&stream->lock);
  snprintf(stream->last_label, sizeof stream->last_label, "%s", name);
  uint64_t timeout =
      config && config->struct_size >= sizeof *config ? config->timeout_ns : 0;
  if (timeout) {
    uint64_t deadline = cu_now_ns() + timeout;
    if (!stream->deadline_ns || deadline > stream->deadline_ns) {
      stream->deadline_ns = deadline;
      snprintf(stream->deadline_label, sizeof stream->deadline_label, "%s",
               name);
    }
  }
  pthread_mutex_unlock(&stream->lock);
  return C_SUCCESS;
}

C_Status cu_kernel_stream_error(const C_Device device, C_Stream handle,
                                int32_t *out_status, char *message,
                                size_t capacity) {
  struct C_Stream_st *stream = cu_stream_of(cu_device_get(device), handle);
  if (!stream)
    return C_ERROR;
  if (!out_status)
    return cu_fail(C_ERROR, "cuda stream_error: out_status is NULL");
  pthread_mutex_lock(&stream->lock);
  *out_status = stream->error_status;
  if (message && capacity)
    snprintf(message, capacity, "%s", stream->error_message);
  pthread_mutex_unlock(&stream->lock);
  return C_SUCCESS;
}

C_Status cu_kernel_stream_reset(const C_Device device, C_Stream handle) {
  struct C_Stream_st *stream = cu_stream_of(cu_device_get(device), handle);
  if (!stream)
    return C_ERROR;
  pthread_mutex_lock(&stream->lock);
  stream->error_status = 0;
  stream->error_message[0] = '\0';
  stream->deadline_ns = 0;
  pthread_mutex_unlock(&stream->lock);
  return C_SUCCESS;
}
