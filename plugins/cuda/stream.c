/* Streams, their sticky errors and deadlines. */
#include "stream.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "backplane/status.h"

enum { CU_STREAM_MAGIC = 0x63757374 /* "cust" */ };

uint64_t cu_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

struct C_Stream_st *cu_stream_of(const cu_device_t *dev, C_Stream handle) {
  if (!dev || !handle || handle->magic != CU_STREAM_MAGIC ||
      handle->dev != dev) {
    cu_fail(C_ERROR, "cuda: %p is not a live stream of CUDA device %d",
            (void *)handle, dev ? dev->id : -1);
    return NULL;
  }
  return handle;
}

void cu_stream_fail(struct C_Stream_st *stream, int32_t status,
                    const char *format, ...) {
  pthread_mutex_lock(&stream->lock);
  if (stream->error_status == 0) {
    stream->error_status = status;
    va_list args;
    va_start(args, format);
    vsnprintf(stream->error_message, sizeof stream->error_message, format,
              args);
    va_end(args);
  }
  pthread_mutex_unlock(&stream->lock);
}

C_Status cu_create_stream(const C_Device device, C_Stream *out) {
  cu_device_t *dev = cu_device_enter(device);
  if (!dev || !out)
    return dev ? cu_fail(C_ERROR, "cuda create_stream: stream is NULL")
               : C_ERROR;
  struct C_Stream_st *stream = calloc(1, sizeof *stream);
  if (!stream)
    return cu_fail(C_FAILED, "out of host memory");
  cudaError_t error =
      cudaStreamCreateWithFlags(&stream->stream, cudaStreamNonBlocking);
  if (error != cudaSuccess) {
    free(stream);
    return cu_fail_cuda(error, "cudaStreamCreateWithFlags");
  }
  stream->dev = dev;
  pthread_mutex_init(&stream->lock, NULL);
  stream->magic = CU_STREAM_MAGIC;
  *out = stream;
  return C_SUCCESS;
}

C_Status cu_destroy_stream(const C_Device device, C_Stream handle) {
  cu_device_t *dev = cu_device_enter(device);
  struct C_Stream_st *stream = cu_stream_of(dev, handle);
  if (!stream)
    return C_ERROR;
  stream->magic = 0;
  cudaStreamSynchronize(stream->stream);
  cudaStreamDestroy(stream->stream);
  pthread_mutex_destroy(&stream->lock);
  free(stream);
  return C_SUCCESS;
}

static bool has_error(struct C_Stream_st *stream) {
  pthread_mutex_lock(&stream->lock);
  bool failed = stream->error_status != 0;
  pthread_mutex_unlock(&stream->lock);
  return failed;
}

/* A failure CUDA reports for the stream's work becomes its sticky error. */
static void record_fault(struct C_Stream_st *stream, cudaError_t error) {
  pthread_mutex_lock(&stream->lock);
  char label[sizeof stream->last_label];
  snprintf(label, sizeof label, "%s", stream->last_label);
  pthread_mutex_unlock(&stream->lock);
  cu_stream_fail(stream, BP_ERR_PLUGIN,
                 "cuda: work on a stream of device %d failed%s%s: %s (%s)",
                 stream->dev->id, label[0] ? " after kernel " : "", label,
                 cudaGetErrorName(error), cudaGetErrorString(error));
}

C_Status cu_query_stream(const C_Device device, C_Stream handle) {
  struct C_Stream_st *stream = cu_stream_of(cu_device_enter(device), handle);
  if (!stream)
    return C_ERROR;
  if (has_error(stream))
    return C_SUCCESS; /* the host asks stream_error next */
  cudaError_t error = cudaStreamQuery(stream->stream);
  if (error == cudaErrorNotReady)
    return C_FAILED;
  if (error != cudaSuccess)
    record_fault(stream, error);
  return C_SUCCESS;
}

/* How long a deadline wait polls without yielding the CPU: short kernels
 * finish within it, and a sched_yield per poll would add its system call to
 * every launch + synchronize. */
enum { CU_SPIN_NS = 50000 };

/* Polls the stream until it is done or the pending deadline passes. Returns
 * cudaErrorNotReady when the deadline passed (the stream then holds
 * BP_ERR_TIMEOUT), else the stream's final query result; cudaErrorNotReady
 * is never returned without a deadline, which leaves the wait to
 * cudaStreamSynchronize (*waited false). */
static cudaError_t wait_until_deadline(struct C_Stream_st *stream,
                                       bool *waited) {
  pthread_mutex_lock(&stream->lock);
  uint64_t deadline = stream->deadline_ns;
  char label[sizeof stream->deadline_label];
  snprintf(label, sizeof label, "%s", stream->deadline_label);
  pthread_mutex_unlock(&stream->lock);
  *waited = deadline != 0;
  if (!deadline)
    return cudaSuccess;
  uint64_t spin_until = cu_now_ns() + CU_SPIN_NS;
  cudaError_t error;
  while ((error = cudaStreamQuery(stream->stream)) == cudaErrorNotReady) {
    uint64_t now = cu_now_ns();
    if (now >= deadline) {
      cu_stream_fail(stream, BP_ERR_TIMEOUT,
                     "cuda: kernel %s on device %d passed its timeout", label,
                     stream->dev->id);
      return cudaErrorNotReady;
    }
    if (now >= spin_until)
      sched_yield();
  }
  pthread_mutex_lock(&stream->lock);
  if (stream->deadline_ns == deadline)
    stream->deadline_ns = 0;
  pthread_mutex_unlock(&stream->lock);
  return error;
}

C_Status cu_synchronize_stream(const C_Device device, C_Stream handle) {
  struct C_Stream_st *stream = cu_stream_of(cu_device_enter(device), handle);
  if (!stream)
    return C_ERROR;
  bool waited;
  cudaError_t error = wait_until_deadline(stream, &waited);
  if (error == cudaErrorNotReady)
    return C_SUCCESS; /* the sticky timeout tells */
  if (!waited)
    error = cudaStreamSynchronize(stream->stream);
  if (error != cudaSuccess)
    record_fault(stream, error);
  return C_SUCCESS;
}
