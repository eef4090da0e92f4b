/* Events: markers recorded into a stream. Recording bumps the event's
 * generation and enqueues a command that, when the stream reaches it, marks
 * that generation complete and takes a CLOCK_MONOTONIC timestamp. Recording
 * again starts a new generation (the event is pending until it completes).
 * An event never recorded is complete.
 *
 *  - query_event: C_SUCCESS when the latest record completed, else C_FAILED.
 *  - synchronize_event: spin briefly, then park until then.
 *  - stream_wait_event: commands enqueued on the stream later wait for the
 *    event's latest record as of the call (the event may belong to another
 *    stream or device); a never-recorded event adds no wait.
 *  - destroy_event: safe while records or waits are pending (commands hold a
 *    reference; the memory goes when the last one ran).
 * An event belongs to the device it was created on: recording it on a stream
 * of another device, or naming another device, is C_ERROR. Thread-safe.
 * record_event and stream_wait_event enqueue on a stream, so they live with
 * the streams (stream.h), which sit above events.
 */
#ifndef BACKPLANE_VCPU_EVENT_H_
#define BACKPLANE_VCPU_EVENT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "device.h"
#include "queue.h"

C_Status vcpu_create_event(const C_Device device, C_Event *event);
C_Status vcpu_destroy_event(const C_Device device, C_Event event);
C_Status vcpu_query_event(const C_Device device, C_Event event);
C_Status vcpu_synchronize_event(const C_Device device, C_Event event);

/* BP_EventTimingExtension: milliseconds from `start` to `end`, both of
 * `device`. C_FAILED while either is pending, C_ERROR if one was never
 * recorded (or an argument is bad). */
C_Status vcpu_event_elapsed_time(const C_Device device, C_Event start,
                                 C_Event end, float *milliseconds);

/* Producer side of the RECORD and WAIT commands (stream.h enqueues them).
 * record_command: false if `event` is not a live event of `device`; else
 * the RECORD of the event's next generation, holding a reference.
 * wait_command: C_ERROR if `event` is not a live event (of any device);
 * else C_SUCCESS, with *needed false if its latest record already completed,
 * or the WAIT for that record, holding a reference. */
bool vcpu_event_record_command(const vcpu_device *device, C_Event event,
                               vcpu_command *command);
C_Status vcpu_event_wait_command(C_Event event, vcpu_command *command,
                                 bool *needed);

/* Worker side of the RECORD and WAIT commands. */
void vcpu_event_complete(C_Event event, uint64_t generation);
void vcpu_event_wait(C_Event event, uint64_t generation);
void vcpu_event_release(C_Event event); /* drops a command's reference */

/* Destroys every event of `device` still alive (no command may hold one);
 * returns how many. */
size_t vcpu_events_destroy_all(vcpu_device *device);

#endif /* BACKPLANE_VCPU_EVENT_H_ */
