/* Events: cudaEvent_t with timing, recorded on a stream, waited for by the
 * host or by another stream (of any device). Thread-safe. */
#ifndef BACKPLANE_CUDA_EVENT_H_
#define BACKPLANE_CUDA_EVENT_H_

#include "stream.h"

C_Status cu_create_event(const C_Device device, C_Event *event);
C_Status cu_destroy_event(const C_Device device, C_Event event);
C_Status cu_record_event(const C_Device device, C_Stream stream, C_Event event);
/* C_SUCCESS when done (or never recorded), C_FAILED while pending. */
C_Status cu_query_event(const C_Device device, C_Event event);
C_Status cu_synchronize_event(const C_Device device, C_Event event);
C_Status cu_stream_wait_event(const C_Device device, C_Stream stream,
                              C_Event event);
/* Milliseconds between two recorded, completed events: C_FAILED while one
 * is pending, C_ERROR when one was never recorded. */
C_Status cu_event_elapsed_time(const C_Device device, C_Event start,
                               C_Event end, float *milliseconds);

#endif /* BACKPLANE_CUDA_EVENT_H_ */
