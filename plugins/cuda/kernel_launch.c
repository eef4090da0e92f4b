/* Launches and the stream errors they leave. */
#include <stdio.h>

#include "backplane/status.h"
#include "kernel_internal.h"
#include "kernel_status.h"

/* One ordinary kernel on the stream. A kernel with one parameter past the
 * block takes a status word, checked by a host function behind it. */
static C_Status launch_kernel(const cu_driver_t *driver,
                              struct C_Stream_st *stream,
                              const struct BP_KernelFunction_st *function,
                              uint32_t blocks, const void *args,
                              size_t args_size, const char *name) {
  cu_kernel_status_t *status = NULL;
  unsigned *word = NULL;
  if (function->kernel.params == (args_size ? 2u : 1u) &&
      function->kernel.last_param_size == sizeof word) {
    if (!(status = cu_kernel_status_take(stream, name)))
      return C_FAILED;
    word = cu_kernel_status_word(status);
  }
  /* The by-value struct parameter (the driver copies it here), then the
   * status word's address. */
  void *params[] = {(void *)args, &word};
  CUresult r = driver->launch_kernel(function->kernel.function, blocks, 1, 1,
                                     function->kernel.threads, 1, 1, 0,
                                     (CUstream)stream->stream,
                                     args_size ? params
                                     : status  ? params + 1
                                               : NULL,
                                     NULL);
  if (r != CUDA_SUCCESS) {
    if (status)
      cu_kernel_status_give_back(status);
    return cu_fail_driver(driver, r, "cuLaunchKernel");
  }
  /* If this fails the word stays out of use (the kernel may still write it)
   * until the last finalize. */
  cudaError_t error =
      status
          ? cudaLaunchHostFunc(stream->stream, cu_kernel_status_check, status)
          : cudaSuccess;
  return error == cudaSuccess
             ? C_SUCCESS
             : cu_fail_cuda(error, "cudaLaunchHostFunc (kernel status)");
}

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
  C_Status launched = function->generated
                          ? cu_generated_launch(driver, stream, function,
                                                blocks, args, args_size)
                          : launch_kernel(driver, stream, function, blocks,
                                          args, args_size, name);
  if (launched != C_SUCCESS)
    return launched;
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
