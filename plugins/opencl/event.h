/* Events: the latest marker recorded into a stream (a cl_event from a
 * profiling queue, so it carries the device's timestamps). Recording again
 * replaces the marker. An event never recorded is complete.
 *
 *  - query_event: C_SUCCESS when the latest record completed, else C_FAILED.
 *  - synchronize_event: clWaitForEvents.
 *  - stream_wait_event: later commands of the stream wait for the latest
 *    record as of the call, through a barrier with the marker in its wait
 *    list; for an event of another device (another context) a user event of
 *    the stream's context stands in, completed by a callback on the marker.
 *  - event_elapsed_time (the event-timing extension): the difference of the
 *    markers' CL_PROFILING_COMMAND_END, in milliseconds.
 *  - destroy_event: safe while the marker is pending (OpenCL counts
 *    references).
 * An event belongs to the device it was created on. Thread-safe.
 */
#ifndef BACKPLANE_OPENCL_EVENT_H_
#define BACKPLANE_OPENCL_EVENT_H_

#include "device.h"
#include "stream.h"

C_Status ocl_create_event(const C_Device device, C_Event *event);
C_Status ocl_destroy_event(const C_Device device, C_Event event);
C_Status ocl_record_event(const C_Device device, C_Stream stream,
                          C_Event event);
C_Status ocl_query_event(const C_Device device, C_Event event);
C_Status ocl_synchronize_event(const C_Device device, C_Event event);
C_Status ocl_stream_wait_event(const C_Device device, C_Stream stream,
                               C_Event event);
C_Status ocl_event_elapsed_time(const C_Device device, C_Event start,
                                C_Event end, float *milliseconds);

#endif /* BACKPLANE_OPENCL_EVENT_H_ */
