/* Streams: in-order OpenCL command queues with profiling, one device each.
 *
 *  - query_stream: C_SUCCESS when everything enqueued has finished,
 *    C_FAILED ("not ready") otherwise.
 *  - synchronize_stream: clFinish.
 *  - destroy_stream: finishes what is queued, then releases the queue.
 *  - stream_add_callback: callback.h; like a CUDA host function it must not
 *    wait for later work of its own stream.
 * Every enqueue is flushed, so work starts without a synchronize. A stream
 * belongs to its device: naming another device, or passing something that
 * is not a live stream, is C_ERROR. Thread-safe.
 */
#ifndef BACKPLANE_OPENCL_STREAM_H_
#define BACKPLANE_OPENCL_STREAM_H_

#include "callback.h"
#include "device.h"

struct C_Stream_st {
  uint32_t magic; /* OCL_STREAM_MAGIC while live */
  ocl_device_t *dev;
  cl_command_queue queue;
  pthread_mutex_t callbacks_lock; /* serializes callback enqueues */
  ocl_callback_worker_t *callbacks;
};

/* The live stream of `dev` that `stream` is, or NULL (with a message). */
struct C_Stream_st *ocl_stream_of(const ocl_device_t *dev, C_Stream stream);

C_Status ocl_create_stream(const C_Device device, C_Stream *stream);
C_Status ocl_destroy_stream(const C_Device device, C_Stream stream);
C_Status ocl_query_stream(const C_Device device, C_Stream stream);
C_Status ocl_synchronize_stream(const C_Device device, C_Stream stream);
C_Status ocl_stream_add_callback(const C_Device device, C_Stream stream,
                                 C_Callback callback, void *user_data);

#endif /* BACKPLANE_OPENCL_STREAM_H_ */
