/* Streams: one non-blocking cudaStream_t each, plus what the kernels
 * extension keeps per stream: the sticky error (kernel.h) and the deadline
 * of the launches that asked for one.
 *
 * query_stream answers "done" while the stream holds a sticky error, so the
 * host asks stream_error next. synchronize_stream waits for the stream; with
 * a launch deadline pending it waits only until that deadline, and past it
 * leaves a sticky BP_ERR_TIMEOUT naming the kernel (CUDA cannot cancel a
 * kernel: it runs on, and the stream behind it waits for it). A failure the
 * stream reports (a kernel's fault) becomes its sticky BP_ERR_PLUGIN.
 * Thread-safe. */
#ifndef BACKPLANE_CUDA_STREAM_H_
#define BACKPLANE_CUDA_STREAM_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "device.h"

struct C_Stream_st {
  uint32_t magic;
  cu_device_t *dev;
  cudaStream_t stream;
  pthread_mutex_t lock; /* everything below */
  int32_t error_status; /* sticky bp_status_t; 0 while healthy */
  char error_message[512];
  uint64_t deadline_ns;     /* CLOCK_MONOTONIC; 0: no launch deadline pending */
  char deadline_label[128]; /* the kernel the deadline belongs to */
  char last_label[128];     /* the last kernel launched, for fault messages */
};

/* The stream if `handle` is a live stream of `dev`, else NULL (with a
 * message). */
struct C_Stream_st *cu_stream_of(const cu_device_t *dev, C_Stream handle);

/* Leaves the sticky `status` (a bp_status_t) with the message, unless the
 * stream holds one already. */
void cu_stream_fail(struct C_Stream_st *stream, int32_t status,
                    const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Monotonic nanoseconds, the clock of deadline_ns. */
uint64_t cu_now_ns(void);

C_Status cu_create_stream(const C_Device device, C_Stream *stream);
C_Status cu_destroy_stream(const C_Device device, C_Stream stream);
C_Status cu_query_stream(const C_Device device, C_Stream stream);
C_Status cu_synchronize_stream(const C_Device device, C_Stream stream);
/* Runs `callback` on a CUDA host thread in stream order (cudaLaunchHostFunc).
 * It must not call CUDA; a non-success status it reports becomes the
 * stream's sticky BP_ERR_PLUGIN. */
C_Status cu_stream_add_callback(const C_Device device, C_Stream stream,
                                C_Callback callback, void *user_data);

#endif /* BACKPLANE_CUDA_STREAM_H_ */
