/* Events as markers. */
#include "event.h"

#include <stdlib.h>

enum { OCL_EVENT_MAGIC = 0x6f636c65 /* "ocle" */ };

struct C_Event_st {
  uint32_t magic;
  ocl_device_t *dev;
  pthread_mutex_t lock;
  cl_event marker; /* the latest record (retained), NULL before the first */
};

static struct C_Event_st *event_of(const ocl_device_t *dev, C_Event event) {
  if (!dev || !event || event->magic != OCL_EVENT_MAGIC || event->dev != dev) {
    ocl_fail(C_ERROR, "%p is not a live event of opencl device %d",
             (void *)event, dev ? dev->id : -1);
    return NULL;
  }
  return event;
}

/* The latest marker, retained (release it), or NULL if never recorded. */
static cl_event latest(struct C_Event_st *event) {
  pthread_mutex_lock(&event->lock);
  cl_event marker = event->marker;
  if (marker)
    clRetainEvent(marker);
  pthread_mutex_unlock(&event->lock);
  return marker;
}

C_Status ocl_create_event(const C_Device device, C_Event *out) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !out)
    return C_ERROR;
  struct C_Event_st *event = calloc(1, sizeof *event);
  if (!event)
    return ocl_fail(C_FAILED, "out of host memory");
  event->dev = dev;
  pthread_mutex_init(&event->lock, NULL);
  event->magic = OCL_EVENT_MAGIC;
  *out = event;
  return C_SUCCESS;
}

C_Status ocl_destroy_event(const C_Device device, C_Event handle) {
  struct C_Event_st *event = event_of(ocl_device_get(device), handle);
  if (!event)
    return C_ERROR;
  event->magic = 0;
  if (event->marker)
    clReleaseEvent(event->marker);
  pthread_mutex_destroy(&event->lock);
  free(event);
  return C_SUCCESS;
}

C_Status ocl_record_event(const C_Device device, C_Stream stream_handle,
                          C_Event handle) {
  ocl_device_t *dev = ocl_device_get(device);
  struct C_Event_st *event = event_of(dev, handle);
  struct C_Stream_st *stream = ocl_stream_of(dev, stream_handle);
  if (!event || !stream)
    return C_ERROR;
  cl_event marker = NULL;
  cl_int error = clEnqueueMarkerWithWaitList(stream->queue, 0, NULL, &marker);
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error), "record_event on %s: %s", dev->name,
                    ocl_error_name(error));
  clFlush(stream->queue);
  pthread_mutex_lock(&event->lock);
  cl_event previous = event->marker;
  event->marker = marker;
  pthread_mutex_unlock(&event->lock);
  if (previous)
    clReleaseEvent(previous);
  return C_SUCCESS;
}

/* CL_COMPLETE, a pending state, or a negative error. */
static cl_int marker_state(cl_event marker) {
  cl_int state = CL_QUEUED;
  cl_int error = clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                sizeof state, &state, NULL);
  return error != CL_SUCCESS ? error : state;
}

C_Status ocl_query_event(const C_Device device, C_Event handle) {
  ocl_device_t *dev = ocl_device_get(device);
  struct C_Event_st *event = event_of(dev, handle);
  if (!event)
    return C_ERROR;
  cl_event marker = latest(event);
  if (!marker)
    return C_SUCCESS;
  cl_int state = marker_state(marker);
  clReleaseEvent(marker);
  if (state < 0)
    return ocl_fail(C_INTERNAL_ERROR, "an event of %s failed: %s", dev->name,
                    ocl_error_name(state));
  return state == CL_COMPLETE ? C_SUCCESS : C_FAILED;
}

C_Status ocl_synchronize_event(const C_Device device, C_Event handle) {
  ocl_device_t *dev = ocl_device_get(device);
  struct C_Event_st *event = event_of(dev, handle);
  if (!event)
    return C_ERROR;
  cl_event marker = latest(event);
  if (!marker)
    return C_SUCCESS;
  cl_int error = clWaitForEvents(1, &marker);
  clReleaseEvent(marker);
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error), "waiting for an event of %s: %s",
                    dev->name, ocl_error_name(error));
  return C_SUCCESS;
}

/* Completes the stand-in user event when the foreign marker completes. */
static void CL_CALLBACK complete_stand_in(cl_event marker, cl_int status,
                                          void *arg) {
  (void)marker;
  cl_event stand_in = arg;
  clSetUserEventStatus(stand_in, status < 0 ? status : CL_COMPLETE);
  clReleaseEvent(stand_in);
}

C_Status ocl_stream_wait_event(const C_Device device, C_Stream stream_handle,
                               C_Event handle) {
  ocl_device_t *dev = ocl_device_get(device);
  struct C_Stream_st *stream = ocl_stream_of(dev, stream_handle);
  if (!stream || !handle || handle->magic != OCL_EVENT_MAGIC)
    return ocl_fail(C_ERROR,
                    "stream_wait_event on opencl device %d: not a "
                    "live stream and event",
                    dev ? dev->id : -1);
  cl_event marker = latest(handle);
  if (!marker)
    return C_SUCCESS;
  cl_event wait_for = marker;
  cl_int error = CL_SUCCESS;
  if (handle->dev->context != dev->context) {
    wait_for = clCreateUserEvent(dev->context, &error);
    if (wait_for) {
      clRetainEvent(wait_for); /* the callback's reference */
      error =
          clSetEventCallback(marker, CL_COMPLETE, complete_stand_in, wait_for);
      if (error != CL_SUCCESS) {
        clSetUserEventStatus(wait_for, CL_COMPLETE);
        clReleaseEvent(wait_for);
      }
    }
  }
  if (error == CL_SUCCESS)
    error = clEnqueueBarrierWithWaitList(stream->queue, 1, &wait_for, NULL);
  if (error == CL_SUCCESS)
    clFlush(stream->queue);
  if (wait_for && wait_for != marker)
    clReleaseEvent(wait_for);
  clReleaseEvent(marker);
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error), "stream_wait_event on %s: %s",
                    dev->name, ocl_error_name(error));
  return C_SUCCESS;
}

C_Status ocl_event_elapsed_time(const C_Device device, C_Event start_handle,
                                C_Event end_handle, float *milliseconds) {
  ocl_device_t *dev = ocl_device_get(device);
  struct C_Event_st *start = event_of(dev, start_handle);
  struct C_Event_st *end = event_of(dev, end_handle);
  if (!start || !end || !milliseconds)
    return C_ERROR;
  cl_event markers[2] = {latest(start), latest(end)};
  C_Status status = C_SUCCESS;
  cl_ulong times[2] = {0, 0};
  if (!markers[0] || !markers[1])
    status = ocl_fail(C_ERROR,
                      "elapsed time on %s: an event was never "
                      "recorded",
                      dev->name);
  for (int i = 0; i < 2 && status == C_SUCCESS; ++i) {
    cl_int state = marker_state(markers[i]);
    if (state < 0)
      status = ocl_fail(C_INTERNAL_ERROR, "an event of %s failed: %s",
                        dev->name, ocl_error_name(state));
    else if (state != CL_COMPLETE)
      status = C_FAILED;
    else if ((state = clGetEventProfilingInfo(
                  markers[i], CL_PROFILING_COMMAND_END, sizeof times[i],
                  &times[i], NULL)) != CL_SUCCESS)
      status = ocl_fail(C_INTERNAL_ERROR, "clGetEventProfilingInfo on %s: %s",
                        dev->name, ocl_error_name(state));
  }
  for (int i = 0; i < 2; ++i)
    if (markers[i])
      clReleaseEvent(markers[i]);
  if (status == C_SUCCESS)
    *milliseconds = (float)(((double)times[1] - (double)times[0]) / 1e6);
  return status;
}
