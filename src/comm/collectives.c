/* The collectives of the framework face: argument checks, then one call into
 * the plugin's xccl_* slot on the stream's native queue. */
#include <stdint.h>
#include <stdlib.h>

#include "backplane/memory.h"
#include "base/status.h"
#include "comm/comm_internal.h"
#include "core/active.h"
#include "core/observer.h"
#include "core/runtime_internal.h"
#include "core/stream_internal.h"
#include "core/vendor_types.h"

/* Checks the communicator, that the stream is on its device, that `dtype`
 * is a data type (written to *c_dtype in the plugin's terms) and, when
 * `slot_name` is given, that the plugin has `slot`. */
static bp_status_t check_call(bp_comm_t *comm, bp_stream_t **stream_inout,
                              bp_dtype_t dtype, C_DataType *c_dtype,
                              const char *what, const void *slot,
                              const char *slot_name) {
  if (comm == NULL || *stream_inout == NULL)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: comm or stream is NULL",
                    what);
  /* BP_STREAM_ACTIVE: the thread's active stream of the comm's device. */
  bp_status_t resolved = bp_stream_resolve(comm->device, stream_inout);
  if (resolved != BP_OK)
    return resolved;
  const bp_stream_t *stream = *stream_inout;
  if (stream->device != comm->device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: the stream belongs to %s, the communicator (rank "
                    "%zu) to %s",
                    what, stream->device->name, comm->rank, comm->device->name);
  if (!bp_dtype_to_c(dtype, c_dtype))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s on %s: dtype %d is not a "
                    "data type",
                    what, comm->device->name, (int)dtype);
  if (slot_name != NULL && slot == NULL)
    return bp_error(BP_ERR_UNSUPPORTED, "%s: plugin %s has no %s", what,
                    comm->device->plugin->device_type, slot_name);
  return bp_device_enter(comm->device);
}

static bp_status_t finish(const bp_comm_t *comm, const char *function,
                          C_Status result) {
  if (BP_C_OK(result))
    return BP_OK;
  return bp_comm_call_failed(comm, comm->device, comm->extension, function,
                             result);
}

/* The plugin's form of `op`, or BP_ERR_INVALID_ARGUMENT naming it. */
static bp_status_t check_op(const bp_comm_t *comm, const char *what,
                            bp_reduce_op_t op, C_CCLReduceOp *c_op) {
  if (bp_reduce_op_to_c(op, c_op))
    return BP_OK;
  return bp_error(BP_ERR_INVALID_ARGUMENT,
                  "%s on %s: reduce op %d is not a reduce op", what,
                  comm->device->name, (int)op);
}

/* The observer's note of a call (count * element size bytes), timed from
 * now when the device is observed (core/observer.h). */
static bp_collective_note_t note(const bp_comm_t *comm, const char *function,
                                 size_t count, bp_dtype_t dtype, int reduce_op,
                                 bp_collective_rank_role_t role, size_t rank) {
  return (bp_collective_note_t){
      .device = comm->device,
      .comm = comm,
      .native = comm->native,
      .comm_rank = comm->rank,
      .nranks = comm->nranks,
      .function = function,
      .count = count,
      .dtype = dtype,
      .bytes = count * bp_dtype_size(dtype),
      .reduce_op = reduce_op,
      .rank_role = role,
      .rank = rank,
      .start_ns = BP_OBSERVED(comm->device) ? bp_clock_now_ns() : 0};
}

/* Tells the observer about the call, then finishes it. */
static bp_status_t finish_noted(const bp_collective_note_t *call,
                                C_Status result) {
  bp_observer_note_collective(call, result);
  return finish(call->comm, call->function, result);
}

/* The ABI's buffers are non-const even where the plugin only reads. */
static void *unconst(const void *ptr) {
  return (void *)(uintptr_t)ptr;
}

BP_API bp_status_t bp_comm_all_reduce(const void *send, void *recv,
                                      size_t count, bp_dtype_t dtype,
                                      bp_reduce_op_t op, bp_comm_t *comm,
                                      bp_stream_t *stream) {
  C_DataType c_dtype;
  C_CCLReduceOp c_op;
  bp_status_t status = check_call(
      comm, &stream, dtype, &c_dtype, "bp_comm_all_reduce",
      comm ? (void *)comm->dispatch->xccl_all_reduce : NULL, "xccl_all_reduce");
  if (status == BP_OK)
    status = check_op(comm, "bp_comm_all_reduce", op, &c_op);
  if (status != BP_OK)
    return status;
  bp_collective_note_t call =
      note(comm, "xccl_all_reduce", count, dtype, (int)op, BP_NOTE_NO_RANK, 0);
  return finish_noted(&call, comm->dispatch->xccl_all_reduce(
                                 unconst(send), recv, count, c_dtype, c_op,
                                 comm->native, stream->native));
}

BP_API bp_status_t bp_comm_broadcast(void *buf, size_t count, bp_dtype_t dtype,
                                     size_t root, bp_comm_t *comm,
                                     bp_stream_t *stream) {
  C_DataType c_dtype;
  bp_status_t status = check_call(
      comm, &stream, dtype, &c_dtype, "bp_comm_broadcast",
      comm ? (void *)comm->dispatch->xccl_broadcast : NULL, "xccl_broadcast");
  if (status != BP_OK)
    return status;
  bp_collective_note_t call = note(comm, "xccl_broadcast", count, dtype,
                                   BP_NOTE_NO_REDUCE_OP, BP_NOTE_ROOT, root);
  return finish_noted(&call, comm->dispatch->xccl_broadcast(buf, count, c_dtype,
                                                            root, comm->native,
                                                            stream->native));
}

BP_API bp_status_t bp_comm_reduce(const void *send, void *recv, size_t count,
                                  bp_dtype_t dtype, bp_reduce_op_t op,
                                  size_t root, bp_comm_t *comm,
                                  bp_stream_t *stream) {
  C_DataType c_dtype;
  C_CCLReduceOp c_op;
  bp_status_t status = check_call(
      comm, &stream, dtype, &c_dtype, "bp_comm_reduce",
      comm ? (void *)comm->dispatch->xccl_reduce : NULL, "xccl_reduce");
  if (status == BP_OK)
    status = check_op(comm, "bp_comm_reduce", op, &c_op);
  if (status != BP_OK)
    return status;
  bp_collective_note_t call =
      note(comm, "xccl_reduce", count, dtype, (int)op, BP_NOTE_ROOT, root);
  return finish_noted(&call, comm->dispatch->xccl_reduce(
                                 unconst(send), recv, count, c_dtype, c_op,
                                 root, comm->native, stream->native));
}

BP_API bp_status_t bp_comm_all_gather(const void *send, void *recv,
                                      size_t count, bp_dtype_t dtype,
                                      bp_comm_t *comm, bp_stream_t *stream) {
  C_DataType c_dtype;
  bp_status_t status = check_call(
      comm, &stream, dtype, &c_dtype, "bp_comm_all_gather",
      comm ? (void *)comm->dispatch->xccl_all_gather : NULL, "xccl_all_gather");
  if (status != BP_OK)
    return status;
  bp_collective_note_t call = note(comm, "xccl_all_gather", count, dtype,
                                   BP_NOTE_NO_REDUCE_OP, BP_NOTE_NO_RANK, 0);
  return finish_noted(&call, comm->dispatch->xccl_all_gather(
                                 unconst(send), recv, count, c_dtype,
                                 comm->native, stream->native));
}

BP_API bp_status_t bp_comm_reduce_scatter(const void *send, void *recv,
                                          size_t count, bp_dtype_t dtype,
                                          bp_reduce_op_t op, bp_comm_t *comm,
                                          bp_stream_t *stream) {
  C_DataType c_dtype;
  C_CCLReduceOp c_op;
  bp_status_t status =
      check_call(comm, &stream, dtype, &c_dtype, "bp_comm_reduce_scatter",
                 comm ? (void *)comm->dispatch->xccl_reduce_scatter : NULL,
                 "xccl_reduce_scatter");
  if (status == BP_OK)
    status = check_op(comm, "bp_comm_reduce_scatter", op, &c_op);
  if (status != BP_OK)
    return status;
  bp_collective_note_t call = note(comm, "xccl_reduce_scatter", count, dtype,
                                   (int)op, BP_NOTE_NO_RANK, 0);
  return finish_noted(&call, comm->dispatch->xccl_reduce_scatter(
                                 unconst(send), recv, count, c_dtype, c_op,
                                 comm->native, stream->native));
}

BP_API bp_status_t bp_comm_send(const void *send, size_t count,
                                bp_dtype_t dtype, size_t peer, bp_comm_t *comm,
                                bp_stream_t *stream) {
  C_DataType c_dtype;
  bp_status_t status =
      check_call(comm, &stream, dtype, &c_dtype, "bp_comm_send",
                 comm ? (void *)comm->dispatch->xccl_send : NULL, "xccl_send");
  if (status != BP_OK)
    return status;
  bp_collective_note_t call =
      note(comm, "xccl_send", count, dtype, BP_NOTE_NO_REDUCE_OP,
           BP_NOTE_SEND_PEER, peer);
  return finish_noted(
      &call, comm->dispatch->xccl_send(unconst(send), count, c_dtype, peer,
                                       comm->native, stream->native));
}

BP_API bp_status_t bp_comm_recv(void *recv, size_t count, bp_dtype_t dtype,
                                size_t peer, bp_comm_t *comm,
                                bp_stream_t *stream) {
  C_DataType c_dtype;
  bp_status_t status =
      check_call(comm, &stream, dtype, &c_dtype, "bp_comm_recv",
                 comm ? (void *)comm->dispatch->xccl_recv : NULL, "xccl_recv");
  if (status != BP_OK)
    return status;
  bp_collective_note_t call =
      note(comm, "xccl_recv", count, dtype, BP_NOTE_NO_REDUCE_OP,
           BP_NOTE_RECV_PEER, peer);
  return finish_noted(&call,
                      comm->dispatch->xccl_recv(recv, count, c_dtype, peer,
                                                comm->native, stream->native));
}

/* Paddle's substitute for a plugin without xccl_all_to_all, as one group:
 * receive from lower ranks, send to every other rank, copy the own chunk on
 * the stream, receive from higher ranks. */
static bp_status_t
all_to_all_fallback(const void *const *send_bufs, const size_t *send_counts,
                    void *const *recv_bufs, const size_t *recv_counts,
                    bp_dtype_t dtype, bp_comm_t *comm, bp_stream_t *stream,
                    size_t element_size) {
  const C_DeviceInterface *d = comm->dispatch;
  if (d->xccl_send == NULL || d->xccl_recv == NULL)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_comm_all_to_all: plugin %s has neither "
                    "xccl_all_to_all nor xccl_send/xccl_recv",
                    comm->device->plugin->device_type);
  if (d->xccl_group_start)
    d->xccl_group_start();
  bp_status_t status = BP_OK;
  size_t me = comm->rank;
  for (size_t r = 0; r < me && status == BP_OK; r++)
    status = bp_comm_recv(recv_bufs[r], recv_counts[r], dtype, r, comm, stream);
  for (size_t r = 0; r < comm->nranks && status == BP_OK; r++)
    if (r != me)
      status =
          bp_comm_send(send_bufs[r], send_counts[r], dtype, r, comm, stream);
  if (status == BP_OK && send_counts[me] != 0)
    status = bp_copy(comm->device, recv_bufs[me], comm->device, send_bufs[me],
                     send_counts[me] * element_size, stream);
  for (size_t r = me + 1; r < comm->nranks && status == BP_OK; r++)
    status = bp_comm_recv(recv_bufs[r], recv_counts[r], dtype, r, comm, stream);
  if (d->xccl_group_end && d->xccl_group_start) {
    C_Status result = d->xccl_group_end();
    if (status == BP_OK)
      status = finish(comm, "xccl_group_end", result);
  }
  return status;
}

BP_API bp_status_t bp_comm_all_to_all(const void *const *send_bufs,
                                      const size_t *send_counts,
                                      void *const *recv_bufs,
                                      const size_t *recv_counts,
                                      bp_dtype_t dtype, bp_comm_t *comm,
                                      bp_stream_t *stream) {
  C_DataType c_dtype;
  bp_status_t status = check_call(comm, &stream, dtype, &c_dtype,
                                  "bp_comm_all_to_all", "", "xccl_all_to_all");
  if (status != BP_OK)
    return status;
  size_t size = bp_dtype_size(dtype);
  if (!send_bufs || !send_counts || !recv_bufs || !recv_counts)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_comm_all_to_all on %s: an array is NULL",
                    comm->device->name);
  if (comm->dispatch->xccl_all_to_all == NULL)
    return all_to_all_fallback(send_bufs, send_counts, recv_bufs, recv_counts,
                               dtype, comm, stream, size);
  C_DataType *dtypes = malloc(comm->nranks * sizeof *dtypes);
  if (dtypes == NULL)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_comm_all_to_all on %s: out of memory",
                    comm->device->name);
  size_t total = 0;
  for (size_t r = 0; r < comm->nranks; r++) {
    dtypes[r] = c_dtype;
    total += send_counts[r];
  }
  bp_collective_note_t call = note(comm, "xccl_all_to_all", total, dtype,
                                   BP_NOTE_NO_REDUCE_OP, BP_NOTE_NO_RANK, 0);
  C_Status result = comm->dispatch->xccl_all_to_all(
      (const void **)(uintptr_t)send_bufs, send_counts, dtypes,
      (void **)(uintptr_t)recv_bufs, recv_counts, dtypes, comm->rank,
      comm->nranks, comm->native, stream->native);
  free(dtypes);
  return finish_noted(&call, result);
}

/* Calls group_start or group_end (by slot offset) of every plugin that has
 * groups; a plugin without them treats a group as a no-op (Paddle). */
static bp_status_t for_each_plugin_group(bp_runtime_t *runtime,
                                         const char *what, bool start) {
  if (runtime == NULL)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: runtime is NULL", what);
  bp_status_t status = BP_OK;
  for (size_t i = 0; i < runtime->plugin_count; i++) {
    const C_DeviceInterface *d = &runtime->plugins[i]->dispatch;
    if (d->xccl_group_start == NULL || d->xccl_group_end == NULL)
      continue;
    C_Status result = start ? d->xccl_group_start() : d->xccl_group_end();
    if (!BP_C_OK(result) && status == BP_OK) {
      const BP_CommExtension *ext = runtime->plugins[i]->extensions.comm;
      status = bp_error(bp_status_from_c(result), "%s: %s %s returned %s: %s",
                        what, runtime->plugins[i]->device_type,
                        start ? "xccl_group_start" : "xccl_group_end",
                        bp_c_status_name(result),
                        ext && ext->last_error ? ext->last_error()
                                               : "no reason given");
    }
  }
  return status;
}

BP_API bp_status_t bp_comm_group_start(bp_runtime_t *runtime) {
  return for_each_plugin_group(runtime, "bp_comm_group_start", true);
}

BP_API bp_status_t bp_comm_group_end(bp_runtime_t *runtime) {
  return for_each_plugin_group(runtime, "bp_comm_group_end", false);
}
