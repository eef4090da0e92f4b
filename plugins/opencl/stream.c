/* Streams over in-order command queues. */
#include "stream.h"

#include <stdlib.h>

enum { OCL_STREAM_MAGIC = 0x6f636c73 /* "ocls" */ };

struct C_Stream_st *ocl_stream_of(const ocl_device_t *dev, C_Stream stream) {
  if (!dev || !stream || stream->magic != OCL_STREAM_MAGIC ||
      stream->dev != dev) {
    ocl_fail(C_ERROR, "%p is not a live stream of opencl device %d",
             (void *)stream, dev ? dev->id : -1);
    return NULL;
  }
  return stream;
}

C_Status ocl_create_stream(const C_Device device, C_Stream *out) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !out)
    return C_ERROR;
  struct C_Stream_st *stream = calloc(1, sizeof *stream);
  if (!stream)
    return ocl_fail(C_FAILED, "out of host memory");
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES,
                                      CL_QUEUE_PROFILING_ENABLE, 0};
  cl_int error = CL_SUCCESS;
  stream->queue = clCreateCommandQueueWithProperties(dev->context, dev->device,
                                                     properties, &error);
  if (!stream->queue) {
    free(stream);
    return ocl_fail(ocl_status_of(error), "clCreateCommandQueue on %s: %s",
                    dev->name, ocl_error_name(error));
  }
  C_Status status = ocl_device_add_queue(dev, stream->queue);
  if (status != C_SUCCESS) {
    clReleaseCommandQueue(stream->queue);
    free(stream);
    return status;
  }
  stream->dev = dev;
  pthread_mutex_init(&stream->callbacks_lock, NULL);
  stream->magic = OCL_STREAM_MAGIC;
  *out = stream;
  return C_SUCCESS;
}

C_Status ocl_destroy_stream(const C_Device device, C_Stream handle) {
  struct C_Stream_st *stream = ocl_stream_of(ocl_device_get(device), handle);
  if (!stream)
    return C_ERROR;
  stream->magic = 0;
  ocl_device_remove_queue(stream->dev, stream->queue);
  clFinish(stream->queue);
  ocl_callback_worker_destroy(stream->callbacks);
  clReleaseCommandQueue(stream->queue);
  pthread_mutex_destroy(&stream->callbacks_lock);
  free(stream);
  return C_SUCCESS;
}

C_Status ocl_query_stream(const C_Device device, C_Stream handle) {
  struct C_Stream_st *stream = ocl_stream_of(ocl_device_get(device), handle);
  if (!stream)
    return C_ERROR;
  cl_event marker = NULL;
  cl_int error = clEnqueueMarkerWithWaitList(stream->queue, 0, NULL, &marker);
  cl_int state = CL_QUEUED;
  if (error == CL_SUCCESS) {
    clFlush(stream->queue);
    error = clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS,
                           sizeof state, &state, NULL);
    clReleaseEvent(marker);
  }
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error), "query_stream on %s: %s",
                    stream->dev->name, ocl_error_name(error));
  if (state < 0)
    return ocl_fail(C_INTERNAL_ERROR, "a command on a stream of %s failed: %s",
                    stream->dev->name, ocl_error_name(state));
  return state == CL_COMPLETE ? C_SUCCESS : C_FAILED;
}

C_Status ocl_synchronize_stream(const C_Device device, C_Stream handle) {
  struct C_Stream_st *stream = ocl_stream_of(ocl_device_get(device), handle);
  if (!stream)
    return C_ERROR;
  cl_int error = clFinish(stream->queue);
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error), "clFinish on %s: %s",
                    stream->dev->name, ocl_error_name(error));
  return C_SUCCESS;
}

C_Status ocl_stream_add_callback(const C_Device device, C_Stream handle,
                                 C_Callback callback, void *user_data) {
  struct C_Stream_st *stream = ocl_stream_of(ocl_device_get(device), handle);
  if (!stream || !callback)
    return C_ERROR;
  pthread_mutex_lock(&stream->callbacks_lock);
  C_Status status =
      ocl_callback_enqueue(stream->dev, stream, stream->queue,
                           &stream->callbacks, callback, user_data);
  pthread_mutex_unlock(&stream->callbacks_lock);
  return status;
}
