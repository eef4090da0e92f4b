/* Host callbacks of a stream. OpenCL runs an event callback on a driver
 * thread that must not block, while a stream callback may block for as long
 * as the framework likes (and later work of its stream must wait for it).
 * So each stream that ever gets a callback has a worker thread of its own:
 * the stream's queue holds a marker and behind it a barrier on a user event
 * (the gate); the marker's completion hands the callback to the worker,
 * which runs it and then opens the gate. Callbacks of one stream run one at
 * a time, in order, and never on the thread that enqueued them.
 */
#ifndef BACKPLANE_OPENCL_CALLBACK_H_
#define BACKPLANE_OPENCL_CALLBACK_H_

#include "device.h"

typedef struct ocl_callback_worker ocl_callback_worker_t;

/* Enqueues `callback` on `queue` (a queue of `dev`) behind what is already
 * there, creating *worker on first use (the caller serializes calls for one
 * stream). `stream` is what the callback receives. On failure nothing will
 * call the callback. */
C_Status ocl_callback_enqueue(ocl_device_t *dev, C_Stream stream,
                              cl_command_queue queue,
                              ocl_callback_worker_t **worker,
                              C_Callback callback, void *user_data);

/* Stops and joins a worker whose queue has been finished (clFinish), so no
 * callback is pending. NULL is a no-op. */
void ocl_callback_worker_destroy(ocl_callback_worker_t *worker);

#endif /* BACKPLANE_OPENCL_CALLBACK_H_ */
