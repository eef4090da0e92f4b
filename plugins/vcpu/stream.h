/* Streams: each stream is a worker thread draining a FIFO of commands
 * (queue.h). Nothing enqueued runs on the caller's thread (the one exception
 * is asked for: vcpu_stream_run_callback_if_idle); commands of one stream run
 * one after another in enqueue order; streams run concurrently.
 *
 * ABI semantics:
 *  - query_stream: C_SUCCESS when every enqueued command has run, C_FAILED
 *    ("not ready") otherwise.
 *  - synchronize_stream / synchronize_device: spin briefly, then park until
 *    the commands enqueued before the call have run.
 *  - destroy_stream: runs what is still queued, then joins the worker.
 *  - stream_add_callback: the callback runs on the worker, in order, exactly
 *    once, with a pointer to a C_Status holding C_SUCCESS. Like a CUDA host
 *    function it must not wait for later work of its own stream (no
 *    synchronize_stream / synchronize_device on it, no destroy_stream).
 * A stream belongs to the device it was created on; passing it with another
 * device is C_ERROR. BACKPLANE_VCPU_JITTER_US makes the worker sleep a random
 * 0..N µs before each command.
 */
#ifndef BACKPLANE_VCPU_STREAM_H_
#define BACKPLANE_VCPU_STREAM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "device.h"
#include "queue.h"

C_Status vcpu_create_stream(const C_Device device, C_Stream *stream);
C_Status vcpu_destroy_stream(const C_Device device, C_Stream stream);
C_Status vcpu_query_stream(const C_Device device, C_Stream stream);
C_Status vcpu_stream_add_callback(const C_Device device, C_Stream stream,
                                  C_Callback callback, void *user_data);
/* The stream_inline extension (device_ext.h): when every command enqueued
 * on `stream` has run, runs the callback on the calling thread in the
 * stream's next place (vcpu_stream_claim_idle) and returns C_SUCCESS once it
 * returned, reporting it to the profiler as the worker would. C_FAILED,
 * nothing run, while a command is pending or running and under jitter (every
 * command then goes through the worker, whose delays flush out missing
 * synchronization); C_ERROR if `stream` is not `device`'s or `callback` is
 * NULL. */
C_Status vcpu_stream_run_callback_if_idle(const C_Device device,
                                          C_Stream stream, C_Callback callback,
                                          void *user_data);
C_Status vcpu_synchronize_stream(const C_Device device, C_Stream stream);
C_Status vcpu_synchronize_device(const C_Device device);

/* The event commands (semantics in event.h): record_event enqueues a record
 * of `event` (an event of `device`), stream_wait_event makes later commands
 * wait for the event's latest record. */
C_Status vcpu_record_event(const C_Device device, C_Stream stream,
                           C_Event event);
C_Status vcpu_stream_wait_event(const C_Device device, C_Stream stream,
                                C_Event event);

/* For the collectives: runs the device's comm_task runner (device.h) on a
 * copy of *task on the stream's worker after everything enqueued before.
 * C_ERROR if `stream` is not a live vcpu stream or `task` is NULL.
 * Thread-safe. */
C_Status vcpu_stream_enqueue_comm(C_Stream stream,
                                  const vcpu_comm_task_t *task);

/* For the collectives (comm/host.h): when every command enqueued on
 * `stream` has run, takes its next place for the calling thread, which does
 * that place's work itself, and returns true; commands enqueued meanwhile
 * run after it and synchronizing waits for it. When no more than
 * `own_pending` commands are pending (the caller's own), waits for them
 * first, up to a spin's budget (base/park.h). False (nothing taken) when a
 * command is still pending or running, when `stream` is not a live vcpu
 * stream, or under jitter (every command then goes through the worker).
 * The claim ends with vcpu_stream_end_claim: with `task` NULL the place is
 * done; else the worker runs the task there. Thread-safe. */
bool vcpu_stream_claim_idle(C_Stream stream, uint64_t own_pending,
                            uint64_t *out_place);
void vcpu_stream_end_claim(C_Stream stream, uint64_t place,
                           const vcpu_comm_task_t *task);

/* The device a live stream belongs to, or NULL if `stream` is not one. */
vcpu_device *vcpu_stream_device(C_Stream stream);

/* `stream` if it is a live stream of `device`, else NULL. */
C_Stream vcpu_stream_of(const vcpu_device *device, C_Stream stream);

/* Enqueues a command (the caller validated the stream). */
void vcpu_stream_enqueue(C_Stream stream, const vcpu_command *command);

/* Enqueues a command whose slot (queue.h) fill(context, slot) writes. */
void vcpu_stream_enqueue_filled(C_Stream stream, const vcpu_command *command,
                                void (*fill)(void *context,
                                             unsigned char *slot),
                                void *context);

/* On a stream worker, around a command that may never return: once
 * `deadline_ns` (vcpu_now_ns) passes, the watchdog thread (checking every
 * 2 ms) calls expired(stream, context) and abandons this thread to the
 * command: a new worker skips the command and drains the rest of the
 * stream. vcpu_worker_unwatch ends the watch; false means this thread was
 * abandoned: the caller must then not touch the stream, the command or its
 * slot again, and return (the worker thread then exits). */
void vcpu_worker_watch(uint64_t deadline_ns,
                       void (*expired)(C_Stream stream, void *context),
                       void *context);
bool vcpu_worker_unwatch(void);

/* Joins the watchdog thread (plugin finalize, every stream destroyed). */
void vcpu_streams_watchdog_stop(void);

/* Destroys (draining first) every stream of `device`; returns how many. */
size_t vcpu_streams_destroy_all(vcpu_device *device);

#endif /* BACKPLANE_VCPU_STREAM_H_ */
