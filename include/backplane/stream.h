/* Streams (in-order queues of device work) and events (points in a stream).
 * Handles are created by the caller and must be destroyed by it; each call is
 * thread-safe, but destroying an object while another thread uses it is not.
 * A plugin may have no streams at all (single-queue hardware): the stream is
 * then the device's one queue and everything still works, synchronously. */
#ifndef BACKPLANE_STREAM_H_
#define BACKPLANE_STREAM_H_

#include <stdint.h>

#include "backplane/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bp_stream bp_stream_t;
typedef struct bp_event bp_event_t;

/* Stands for the calling thread's active stream of the device a call names
 * (bp_stream_set_active), resolved when the call is made. Accepted by every
 * call that names a device besides the stream: bp_copy and
 * bp_copy_async_unsafe (the destination device, the source for a copy to
 * host), bp_copy_tensor (likewise), bp_memset (its device), bp_event_record
 * (the event's device), the allocator's stream-ordered calls (their device),
 * bp_launch (the module's device), bp_notify_record and bp_notify_wait (the
 * notify's device), the collectives (the communicator's device) and
 * bp_ops_context_create / bp_ops_tensor_create (their device; the context or
 * tensor keeps the stream resolved then). The calls that take only a stream
 * (bp_stream_synchronize, _query, _fail, _reset, _destroy, _wait_event,
 * _sync_from_to, _add_callback) name no device, so they refuse it with
 * BP_ERR_INVALID_ARGUMENT: resolve it with bp_stream_get_active first;
 * bp_stream_device and bp_stream_c_handle give NULL for it.
 * NULL keeps its own meaning in each call (bp_copy: synchronous, not
 * ordered after any stream). */
#define BP_STREAM_ACTIVE ((bp_stream_t *)(uintptr_t)1)

/* The device's default stream: created on first use, owned by the device
 * (bp_stream_destroy refuses it), destroyed with the runtime. It is an
 * ordinary stream, not synchronizing with the others (unlike CUDA's legacy
 * stream 0). */
BP_API bp_status_t bp_stream_get_default(bp_device_t *device,
                                         bp_stream_t **out_stream);

/* The active stream of `device` for the calling thread: what
 * BP_STREAM_ACTIVE means in calls on that device, and where kernel launches
 * and generated functions run. Per thread and per device; a thread that set
 * none (a new thread, a host callback's runtime thread) has the device's
 * default stream. `stream` must belong to `device`; NULL means the default
 * again. If the active stream is destroyed, every thread's active stream of
 * that device becomes the default again. Thread-safe: each thread sees only
 * its own setting. */
BP_API bp_status_t bp_stream_set_active(bp_device_t *device,
                                        bp_stream_t *stream);
BP_API bp_status_t bp_stream_get_active(bp_device_t *device,
                                        bp_stream_t **out_stream);

BP_API bp_status_t bp_stream_create(bp_device_t *device,
                                    bp_stream_t **out_stream);
/* Drains pending work first. NULL is a no-op; a default stream is
 * BP_ERR_INVALID_ARGUMENT. */
BP_API bp_status_t bp_stream_destroy(bp_stream_t *stream);
BP_API bp_device_t *bp_stream_device(const bp_stream_t *stream);
/* BP_OK when all enqueued work has finished, BP_ERR_NOT_READY otherwise.
 * Both report a failure a kernel or notify wait (kernel.h) or bp_stream_fail
 * left on the stream: sticky until bp_stream_reset or the stream's
 * destruction. */
BP_API bp_status_t bp_stream_query(bp_stream_t *stream);
BP_API bp_status_t bp_stream_synchronize(bp_stream_t *stream);
/* Leaves a sticky failure on `stream`, as a failing kernel does: query and
 * synchronize return `status` with a message naming the stream and
 * `message` (copied; NULL allowed) until bp_stream_reset. Work enqueued
 * later still runs. For host work that finds it cannot be done once it runs
 * (an op library refusing index values an earlier op wrote): callable from
 * any thread, including a host callback of `stream`. The first failure is
 * kept; later ones before a reset are dropped. BP_STREAM_ACTIVE, NULL or
 * `status` BP_OK is BP_ERR_INVALID_ARGUMENT. */
BP_API bp_status_t bp_stream_fail(bp_stream_t *stream, bp_status_t status,
                                  const char *message);
/* Clears the stream's sticky failure; its later work was never held back. */
BP_API bp_status_t bp_stream_reset(bp_stream_t *stream);
/* Work enqueued on `stream` after this waits until `event` completes; the
 * event may belong to another stream or device. The caller does not block. */
BP_API bp_status_t bp_stream_wait_event(bp_stream_t *stream, bp_event_t *event);
/* Makes later work on `to` wait for everything enqueued on `from` so far
 * (TVM's StreamStreamSynchronize / SyncStreamFromTo). */
BP_API bp_status_t bp_stream_sync_from_to(bp_stream_t *from, bp_stream_t *to);

/* A host function run once, in stream order, on a runtime thread.
 *
 * What a callback of stream S (of device D) may call: anything that does not
 * wait for the callback itself. A call that would is refused at once with
 * BP_ERR_INVALID_ARGUMENT and a message naming the call, S and why
 * ("bp_stream_synchronize: called from a host callback of stream vcpu:0/s3:
 * waiting for that stream would deadlock ..."), leaving every object as it
 * was (and, with the validation layer on, one validation line):
 * - bp_stream_synchronize(S), bp_stream_destroy(S), and the calls that drain
 *   S first (bp_memset on S; bp_copy on S when it takes the synchronous path;
 *   bp_stream_sync_from_to(S, a stream of another plugin));
 * - bp_event_synchronize and bp_event_destroy of an event recorded on S after
 *   the callback was added, and bp_stream_wait_event with such an event when
 *   the wait happens on the host (the waiting stream belongs to another
 *   plugin or has no queue);
 * - bp_device_synchronize(D), and calls that wait for all of D (on a stream
 *   of D without a queue).
 * Waits for other streams, other devices and events recorded before the
 * callback work as usual. Only direct dependencies are detected: work of
 * another stream made to wait for S after the callback (bp_stream_wait_event,
 * bp_stream_sync_from_to) still deadlocks if the callback waits for it.
 * Allocation inside a callback never waits for streams: it reclaims what has
 * completed and otherwise fails with BP_ERR_OUT_OF_MEMORY. Enqueuing more
 * work on S itself should be avoided: a plugin with a bounded queue may block
 * until the callback returns. */
typedef void (*bp_host_fn_t)(void *user_data);
BP_API bp_status_t bp_stream_add_callback(bp_stream_t *stream, bp_host_fn_t fn,
                                          void *user_data);
/* As bp_stream_add_callback, with `label` naming the work in a trace (the
 * callback's slice on its stream's track, e.g. "diopiConvolution2d"
 * instead of "callback"). `label` is not copied: it must stay valid until
 * the callback has run (a string literal does). NULL: no label. */
BP_API bp_status_t bp_stream_add_labeled_callback(bp_stream_t *stream,
                                                  bp_host_fn_t fn,
                                                  void *user_data,
                                                  const char *label);
/* As bp_stream_add_labeled_callback, except that while nothing is pending
 * on `stream` the callback may run on the calling thread, before this
 * returns, instead of on a runtime thread: no hand-off to that thread and
 * none back to a caller that synchronizes, which on vcpu is most of a short
 * op's cost. It still runs in stream order (work other threads enqueue
 * meanwhile runs after it; synchronize and query see it pending), as a
 * callback (the same waits are refused inside it), in the same trace slice.
 * For host work that any thread may run and that needs nothing the caller
 * holds (an op library's kernels): a callback that takes a lock its
 * enqueuer holds, or waits for it, deadlocks. Plugins without the ability
 * (BP_StreamInlineExtension), every plugin while a layer wraps its callbacks
 * (validation, trace, fault), and vcpu under BACKPLANE_VCPU_JITTER_US
 * enqueue it as bp_stream_add_labeled_callback does. */
BP_API bp_status_t bp_stream_add_inline_callback(bp_stream_t *stream,
                                                 bp_host_fn_t fn,
                                                 void *user_data,
                                                 const char *label);

BP_API bp_status_t bp_event_create(bp_device_t *device, bp_event_t **out_event);
/* NULL is a no-op. */
BP_API bp_status_t bp_event_destroy(bp_event_t *event);
/* Captures the work enqueued on `stream` so far; `stream` must belong to the
 * event's device. Re-recording moves the event. */
BP_API bp_status_t bp_event_record(bp_event_t *event, bp_stream_t *stream);
/* BP_OK once the captured work has finished (or if never recorded),
 * BP_ERR_NOT_READY before. */
BP_API bp_status_t bp_event_query(bp_event_t *event);
BP_API bp_status_t bp_event_synchronize(bp_event_t *event);
/* Milliseconds between two completed events of one device. BP_ERR_NOT_READY
 * while pending; BP_ERR_UNSUPPORTED if the plugin has no event timing. */
BP_API bp_status_t bp_event_elapsed_time(bp_event_t *start, bp_event_t *end,
                                         float *out_milliseconds);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_STREAM_H_ */
