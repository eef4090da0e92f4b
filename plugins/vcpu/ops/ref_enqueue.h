/* How a reference op reaches its stream: the one place that knows. An op
 * validates its arguments on the caller's thread, packs everything its work
 * needs into an argument block (by value: tensor handles may die as soon as
 * the op returns), and enqueues a task; the task runs in stream order and
 * the op never waits for its stream. Where the task runs is the plugin's
 * choice (bp_stream_add_inline_callback): on an idle vcpu stream, on the
 * caller's thread before the op returns (a stream worker's hand-off, and
 * the one back to a caller that synchronizes, cost about as much as a short
 * op), else on the stream's worker. Either way it runs as a host callback of
 * the stream: a task must not wait for its own stream, nor for anything its
 * op's caller holds. */
#ifndef BACKPLANE_REF_OPS_ENQUEUE_H_
#define BACKPLANE_REF_OPS_ENQUEUE_H_

#include <stddef.h>

#include <diopi/diopirt.h>

typedef void (*ref_task_fn_t)(void *args);
/* Checks values that only exist once earlier work on the stream has run
 * (index values an earlier op wrote): runs on the worker just before the
 * task, and fails through ref_fail. */
typedef diopiError_t (*ref_check_fn_t)(const void *args);

/* Copies `size` bytes of `args` and enqueues `task` on the context's stream.
 * diopiErrorOccurred (message naming `op`) if the stream refuses. */
diopiError_t ref_enqueue(diopiContextHandle_t ctx, const char *op,
                         ref_task_fn_t task, const void *args, size_t size);

/* ref_enqueue, with `check` run on the worker first: when it fails, the task
 * is skipped (its outputs left unwritten) and the stream gets a sticky
 * BP_ERR_INVALID_ARGUMENT carrying the check's message (bp_stream_fail), which
 * bp_stream_synchronize / bp_stream_query report until bp_stream_reset. The
 * op itself returns at once, as a device op refusing bad index values does in
 * PyTorch's asynchronous devices. */
diopiError_t ref_enqueue_checked(diopiContextHandle_t ctx, const char *op,
                                 ref_check_fn_t check, ref_task_fn_t task,
                                 const void *args, size_t size);

#endif /* BACKPLANE_REF_OPS_ENQUEUE_H_ */
