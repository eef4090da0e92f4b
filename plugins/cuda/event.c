/* Events over cudaEvent_t. */
#include "event.h"

#include <stdbool.h>
#include <stdlib.h>

enum { CU_EVENT_MAGIC = 0x63757665 /* "cuve" */ };

struct C_Event_st {
  uint32_t magic;
  cu_device_t *dev;
  cudaEvent_t event;
  bool recorded; /* elapsed time needs both ends recorded */
};

static struct C_Event_st *event_of(const cu_device_t *dev, C_Event event) {
  if (!dev || !event || event->magic != CU_EVENT_MAGIC || event->dev != dev) {
    cu_fail(C_ERROR, "cuda: %p is not a live event of CUDA device %d",
            (void *)event, dev ? dev->id : -1);
    return NULL;
  }
  return event;
}

C_Status cu_create_event(const C_Device device, C_Event *out) {
  cu_device_t *dev = cu_device_enter(device);
  if (!dev)
    return C_ERROR;
  if (!out)
    return cu_fail(C_ERROR, "cuda create_event: event is NULL");
  struct C_Event_st *event = calloc(1, sizeof *event);
  if (!event)
    return cu_fail(C_FAILED, "out of host memory");
  cudaError_t error = cudaEventCreate(&event->event);
  if (error != cudaSuccess) {
    free(event);
    return cu_fail_cuda(error, "cudaEventCreate");
  }
  event->dev = dev;
  event->magic = CU_EVENT_MAGIC;
  *out = event;
  return C_SUCCESS;
}

C_Status cu_destroy_event(const C_Device device, C_Event handle) {
  struct C_Event_st *event = event_of(cu_device_enter(device), handle);
  if (!event)
    return C_ERROR;
  event->magic = 0;
  cudaEventDestroy(event->event);
  free(event);
  return C_SUCCESS;
}

C_Status cu_record_event(const C_Device device, C_Stream stream_handle,
                         C_Event handle) {
  cu_device_t *dev = cu_device_enter(device);
  struct C_Event_st *event = event_of(dev, handle);
  struct C_Stream_st *stream = cu_stream_of(dev, stream_handle);
  if (!event || !stream)
    return C_ERROR;
  cudaError_t error = cudaEventRecord(event->event, stream->stream);
  if (error != cudaSuccess)
    return cu_fail_cuda(error, "cudaEventRecord");
  event->recorded = true;
  return C_SUCCESS;
}

C_Status cu_query_event(const C_Device device, C_Event handle) {
  struct C_Event_st *event = event_of(cu_device_enter(device), handle);
  if (!event)
    return C_ERROR;
  cudaError_t error = cudaEventQuery(event->event);
  if (error == cudaErrorNotReady)
    return C_FAILED;
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaEventQuery");
}

C_Status cu_synchronize_event(const C_Device device, C_Event handle) {
  struct C_Event_st *event = event_of(cu_device_enter(device), handle);
  if (!event)
    return C_ERROR;
  cudaError_t error = cudaEventSynchronize(event->event);
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaEventSynchronize");
}

C_Status cu_stream_wait_event(const C_Device device, C_Stream stream_handle,
                              C_Event handle) {
  cu_device_t *dev = cu_device_enter(device);
  struct C_Stream_st *stream = cu_stream_of(dev, stream_handle);
  if (!stream)
    return C_ERROR;
  /* The event may belong to another device: check it is one of ours. */
  if (!handle || handle->magic != CU_EVENT_MAGIC)
    return cu_fail(C_ERROR, "cuda stream_wait_event: %p is not a live event",
                   (void *)handle);
  cudaError_t error = cudaStreamWaitEvent(stream->stream, handle->event, 0);
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaStreamWaitEvent");
}

C_Status cu_event_elapsed_time(const C_Device device, C_Event start_handle,
                               C_Event end_handle, float *milliseconds) {
  cu_device_t *dev = cu_device_enter(device);
  struct C_Event_st *start = event_of(dev, start_handle);
  struct C_Event_st *end = event_of(dev, end_handle);
  if (!start || !end)
    return C_ERROR;
  if (!milliseconds)
    return cu_fail(C_ERROR, "cuda event_elapsed_time: milliseconds is NULL");
  if (!start->recorded || !end->recorded)
    return cu_fail(C_ERROR,
                   "cuda event_elapsed_time on device %d: an event "
                   "was never recorded",
                   dev->id);
  cudaError_t error =
      cudaEventElapsedTime(milliseconds, start->event, end->event);
  if (error == cudaErrorNotReady)
    return C_FAILED;
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaEventElapsedTime");
}
