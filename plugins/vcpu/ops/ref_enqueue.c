/* Enqueueing through the public stream callback (a kernel launch can take
 * its place later without touching the ops). */
#include "ref_enqueue.h"

#include <stdlib.h>
#include <string.h>

#include <diopi/functions.h>

#include "backplane/stream.h"
#include "ref_error.h"

typedef struct ref_task {
  ref_task_fn_t fn;
  ref_check_fn_t check; /* NULL: none */
  bp_stream_t *stream;
  max_align_t args[]; /* the argument block */
} ref_task_t;

static void run_task(void *user_data) {
  ref_task_t *task = user_data;
  if (!task->check || task->check(task->args) == diopiSuccess)
    task->fn(task->args);
  else /* the message ref_fail left on this (the worker's) thread */
    bp_stream_fail(task->stream, BP_ERR_INVALID_ARGUMENT,
                   diopiGetLastErrorString());
  free(task);
}

diopiError_t ref_enqueue_checked(diopiContextHandle_t ctx, const char *op,
                                 ref_check_fn_t check, ref_task_fn_t fn,
                                 const void *args, size_t size) {
  diopiStreamHandle_t stream;
  if (diopiGetStream(ctx, &stream) != diopiSuccess || !stream)
    return ref_fail(op, "ctx: no stream (a NULL or foreign context)");
  ref_task_t *task = malloc(sizeof *task + size);
  if (!task)
    return ref_fail(op, "out of host memory for the task (%zu bytes)", size);
  task->fn = fn;
  task->check = check;
  task->stream = stream;
  memcpy(task->args, args, size);
  /* The op names its work in traces: a literal, as every op name is. On an
   * idle stream the task runs here and now (no hand-off either way). */
  if (bp_stream_add_inline_callback(stream, run_task, task, op) != BP_OK) {
    free(task);
    return ref_fail(op, "enqueue failed: %s", bp_last_error());
  }
  return diopiSuccess;
}

diopiError_t ref_enqueue(diopiContextHandle_t ctx, const char *op,
                         ref_task_fn_t fn, const void *args, size_t size) {
  return ref_enqueue_checked(ctx, op, NULL, fn, args, size);
}
