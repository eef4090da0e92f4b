/* Stream callbacks through cudaLaunchHostFunc. */
#include <stdlib.h>

#include "backplane/status.h"
#include "stream.h"

typedef struct cu_callback {
  C_Callback callback;
  void *user_data;
  struct C_Stream_st *stream;
} cu_callback_t;

static void CUDART_CB run_callback(void *arg) {
  cu_callback_t *call = arg;
  C_Status status = C_SUCCESS;
  call->callback(&call->stream->dev->handle, call->stream, call->user_data,
                 &status);
  if (status != C_SUCCESS)
    cu_stream_fail(call->stream, BP_ERR_PLUGIN,
                   "cuda: a stream callback on device %d reported status %d",
                   call->stream->dev->id, (int)status);
  free(call);
}

C_Status cu_stream_add_callback(const C_Device device, C_Stream handle,
                                C_Callback callback, void *user_data) {
  struct C_Stream_st *stream = cu_stream_of(cu_device_enter(device), handle);
  if (!stream)
    return C_ERROR;
  if (!callback)
    return cu_fail(C_ERROR, "cuda stream_add_callback: callback is NULL");
  cu_callback_t *call = malloc(sizeof *call);
  if (!call)
    return cu_fail(C_FAILED, "out of host memory");
  *call = (cu_callback_t){callback, user_data, stream};
  cudaError_t error = cudaLaunchHostFunc(stream->stream, run_callback, call);
  if (error != cudaSuccess) {
    free(call);
    return cu_fail_cuda(error, "cudaLaunchHostFunc");
  }
  return C_SUCCESS;
}
