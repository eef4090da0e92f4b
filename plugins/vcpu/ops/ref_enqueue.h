/* How a reference op reaches its stream: the one place that knows. An op
 * validates its arguments on the caller's thread, packs everything its work
 * needs into an argument block (by value: tensor handles may die as soon as
 * the op returns), and enqueues a task; the task runs on the stream's worker
 * in stream order, never on the caller's thread. */
#ifndef BACKPLANE_REF_OPS_ENQUEUE_H_
#define BACKPLANE_REF_OPS_ENQUEUE_H_

#include <stddef.h>

#include <diopi/diopirt.h>

typedef void (*ref_task_fn_t)(void *args);

/* Copies `size` bytes of `args` and enqueues `task` on the context's stream.
 * diopiErrorOccurred (message naming `op`) if the stream refuses. */
diopiError_t ref_enqueue(diopiContextHandle_t ctx, const char *op,
                         ref_task_fn_t task, const void *args, size_t size);

/* Waits until the context's stream has run everything enqueued so far, so
 * that the caller may read data earlier work writes (an op that must refuse
 * bad index values before it returns). diopiErrorOccurred naming `op` if the
 * stream cannot be waited for (e.g. from a host callback of that stream) or
 * has failed. */
diopiError_t ref_wait_for_stream(diopiContextHandle_t ctx, const char *op);

#endif /* BACKPLANE_REF_OPS_ENQUEUE_H_ */
