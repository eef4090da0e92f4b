#include "comm/ops.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/park.h"
#include "comm/arena_map.h"
#include "comm/caller.h"
#include "comm/data.h"
#include "comm/failure.h"
#include "comm/host.h"
#include "comm/meet.h"
#include "comm/mpi.h"
#include "comm/p2p.h"
#include "comm/small.h"
#include "reduce/reduce.h"

/* A group's calls for one (communicator, stream) pair, run as one task. */
typedef struct vcpu_comm_batch {
  struct vcpu_comm_batch *next; /* the group's list */
  C_CCLComm comm;
  C_Stream stream;
  vcpu_comm_desc_t *calls; /* &first_call until a second call comes */
  size_t count, capacity;
  vcpu_comm_desc_t first_call; /* a batch of one call costs one allocation */
} vcpu_comm_batch_t;

typedef struct vcpu_comm_group {
  unsigned depth;
  vcpu_comm_batch_t *batches;
  bp_status_t status; /* the first failure while recording */
} vcpu_comm_group_t;

static _Thread_local vcpu_comm_group_t group;

static void batch_free(vcpu_comm_batch_t *batch) {
  if (batch->calls != &batch->first_call)
    free(batch->calls);
  free(batch);
}

/* Small all_reduce: one meeting through the world's input areas
 * (comm/small.h). Otherwise, ranks all in this process: single copy through
 * the published buffers. Across processes: single copy through mapped device
 * arenas when every rank's buffers are in one and the call is large, else
 * staged through the world segment. */
static bp_status_t run_collective(C_CCLComm comm, const vcpu_comm_desc_t *desc,
                                  uint64_t deadline) {
  vcpu_comm_world_t *world = comm->world;
  if (world->mpi != NULL) {
    char error[512] = "";
    int status = world->mpi->collective(world->mpi_handle, desc, deadline,
                                        world->aborted, error, sizeof error);
    return status == BP_OK
               ? BP_OK
               : vcpu_comm_fail(comm, (bp_status_t)status, "%s rank %zu: %s",
                                comm->name, comm->rank, error);
  }
  if (vcpu_comm_small_all_reduce_fits(desc))
    return vcpu_comm_small_all_reduce(comm, desc, deadline);
  vcpu_comm_arena_publish(comm, desc);
  bp_status_t status = vcpu_comm_start_collective(comm, desc, deadline);
  return status == BP_OK ? vcpu_comm_collective_data(comm, desc, deadline)
                         : status;
}

static void run_p2p(C_CCLComm comm, const vcpu_comm_desc_t *ops, size_t n,
                    uint64_t deadline) {
  vcpu_comm_world_t *world = comm->world;
  if (world->mpi == NULL) {
    vcpu_comm_p2p_run(comm, ops, n, deadline);
    return;
  }
  char error[512] = "";
  int status = world->mpi->p2p(world->mpi_handle, ops, n, deadline,
                               world->aborted, error, sizeof error);
  if (status != BP_OK)
    vcpu_comm_fail(comm, (bp_status_t)status, "%s rank %zu: %s", comm->name,
                   comm->rank, error);
}

/* Runs the batch's collectives in call order, then all its sends and
 * receives together. */
static void run_batch(vcpu_comm_batch_t *batch, uint64_t deadline) {
  C_CCLComm comm = batch->comm;
  bp_status_t status = BP_OK;
  size_t p2p_count = 0;
  for (size_t i = 0; i < batch->count && status == BP_OK; i++) {
    if (batch->calls[i].kind >= VCPU_COMM_SEND) /* gather p2p at the front */
      batch->calls[p2p_count++] = batch->calls[i];
    else
      status = run_collective(comm, &batch->calls[i], deadline);
  }
  if (status == BP_OK && p2p_count != 0)
    run_p2p(comm, batch->calls, p2p_count, deadline);
}

static vcpu_comm_desc_t lone_call(const vcpu_comm_task_t *task) {
  return (vcpu_comm_desc_t){.kind = (vcpu_comm_kind_t)task->kind,
                            .send = task->call.send,
                            .recv = task->call.recv,
                            .count = task->call.count,
                            .dtype = (C_DataType)task->dtype,
                            .op = (C_CCLReduceOp)task->op,
                            .peer = task->peer,
                            .seq = task->call.seq};
}

/* A poisoned communicator runs nothing (but the rest of a call handed on,
 * which its world holds). Counting the task done is its last
 * touch of the communicator: vcpu_comm_destroy may free it right after. */
void vcpu_comm_run_task(const vcpu_comm_task_t *task) {
  C_CCLComm comm = task->comm;
  uint64_t deadline = vcpu_now_ns() + comm->timeout_ns;
  bool healthy = atomic_load(&comm->error) == BP_OK;
  if (task->kind == VCPU_COMM_TASK_BATCH) {
    if (healthy)
      run_batch(task->batch, deadline);
    batch_free(task->batch);
  } else if (task->handed_on) {
    vcpu_comm_finish_handed_on(comm);
  } else {
    vcpu_comm_desc_t call = lone_call(task);
    if (healthy && call.kind >= VCPU_COMM_SEND)
      run_p2p(comm, &call, 1, deadline);
    else if (healthy)
      run_collective(comm, &call, deadline);
  }
  atomic_fetch_add_explicit(&comm->tasks_done, 1, memory_order_release);
}

static bp_status_t append(vcpu_comm_batch_t *batch,
                          const vcpu_comm_desc_t *desc) {
  if (batch->count == batch->capacity) {
    size_t capacity = 4 * batch->capacity;
    bool inline_calls = batch->calls == &batch->first_call;
    vcpu_comm_desc_t *calls =
        realloc(inline_calls ? NULL : batch->calls, capacity * sizeof *calls);
    if (calls == NULL)
      return vcpu_comm_reject(BP_ERR_OUT_OF_MEMORY, "%s: out of memory",
                              batch->comm->name);
    if (inline_calls)
      calls[0] = batch->first_call;
    batch->calls = calls;
    batch->capacity = capacity;
  }
  batch->calls[batch->count++] = *desc;
  return BP_OK;
}

static vcpu_comm_batch_t *batch_new(C_CCLComm comm, C_Stream stream) {
  vcpu_comm_batch_t *batch = calloc(1, sizeof *batch);
  if (batch != NULL) {
    batch->comm = comm;
    batch->stream = stream;
    batch->calls = &batch->first_call;
    batch->capacity = 1;
  }
  return batch;
}

/* Hands the task to the stream. Its calls already hold sequence numbers, so
 * a task that cannot run would desynchronize the ranks: its communicator is
 * poisoned instead. The caller frees a batch the stream did not take. */
static bp_status_t submit(C_Stream stream, const vcpu_comm_task_t *task) {
  C_CCLComm comm = task->comm;
  atomic_fetch_add_explicit(&comm->tasks_submitted, 1, memory_order_relaxed);
  if (vcpu_comm_host_enqueue(stream, task) == C_SUCCESS)
    return BP_OK;
  bp_status_t status = vcpu_comm_reject(
      BP_ERR_PLUGIN,
      "%s rank %zu: could not enqueue on the stream %p (not a live stream "
      "of the plugin, or out of resources)",
      comm->name, comm->rank, (void *)stream);
  atomic_fetch_sub_explicit(&comm->tasks_submitted, 1, memory_order_relaxed);
  vcpu_comm_fail(comm, status, "%s", vcpu_comm_last_error());
  return status;
}

static bp_status_t submit_batch(vcpu_comm_batch_t *batch) {
  if (batch->count == 1 && batch->calls[0].kind < VCPU_COMM_SEND) {
    /* One collective of a group on this stream: it runs as the lone call
     * it is (no batch to keep, and a trace can name it). */
    vcpu_comm_task_t task = vcpu_comm_lone_task(batch->comm, &batch->calls[0]);
    C_Stream stream = batch->stream;
    batch_free(batch);
    return submit(stream, &task);
  }
  vcpu_comm_task_t task = {
      .comm = batch->comm, .batch = batch, .kind = VCPU_COMM_TASK_BATCH};
  bp_status_t status = submit(batch->stream, &task);
  if (status != BP_OK)
    batch_free(batch);
  return status;
}

/* Enqueues the call alone, or records it in the thread's group. */
static bp_status_t dispatch(C_CCLComm comm, const vcpu_comm_desc_t *desc,
                            C_Stream stream) {
  if (group.depth == 0) {
    if (vcpu_comm_run_on_caller(comm, desc, stream))
      return BP_OK;
    vcpu_comm_task_t task = vcpu_comm_lone_task(comm, desc);
    return submit(stream, &task);
  }
  vcpu_comm_batch_t **link = &group.batches;
  while (*link && !((*link)->comm == comm && (*link)->stream == stream))
    link = &(*link)->next;
  if (*link == NULL && (*link = batch_new(comm, stream)) == NULL)
    return vcpu_comm_reject(BP_ERR_OUT_OF_MEMORY, "%s: out of memory",
                            comm->name);
  return append(*link, desc);
}

/* The call already holds its sequence number: if it cannot be dispatched,
 * the ranks are out of step, so the communicator is poisoned. */
static bp_status_t dispatch_numbered(C_CCLComm comm,
                                     const vcpu_comm_desc_t *desc,
                                     C_Stream stream) {
  bp_status_t status = dispatch(comm, desc, stream);
  if (status != BP_OK)
    vcpu_comm_fail(comm, status, "%s", vcpu_comm_last_error());
  return status;
}

static bp_status_t check_comm(C_CCLComm comm, const char *what,
                              C_Stream stream) {
  if (comm == NULL)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT, "%s: comm is NULL", what);
  if (stream == NULL)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT, "%s on %s: stream is NULL",
                            what, comm->name);
  char message[512];
  bp_status_t status = vcpu_comm_error(comm, message, sizeof message);
  if (status != BP_OK)
    return vcpu_comm_reject(status,
                            "%s on %s rank %zu: the communicator failed "
                            "earlier: %s",
                            what, comm->name, comm->rank, message);
  return BP_OK;
}

/* Count, type and buffer checks shared by every call. `elements` is the
 * largest element count any buffer of the call spans. */
static bp_status_t check_data(C_CCLComm comm, const vcpu_comm_desc_t *d,
                              size_t elements, bool needs_send,
                              bool needs_recv) {
  const char *what = vcpu_comm_kind_name(d->kind);
  size_t size = vcpu_comm_dtype_size(d->dtype);
  if (size == 0)
    return vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT, "%s on %s: data type %s (%d) is not supported",
        what, comm->name, vcpu_comm_dtype_name(d->dtype), (int)d->dtype);
  if (elements > SIZE_MAX / size / 2)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "%s on %s: count %zu overflows the address space",
                            what, comm->name, d->count);
  if (d->count != 0 &&
      ((needs_send && d->send == NULL) || (needs_recv && d->recv == NULL)))
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "%s on %s rank %zu: buffer is NULL with count %zu",
                            what, comm->name, comm->rank, d->count);
  return BP_OK;
}

bp_status_t vcpu_comm_group_note(bp_status_t status) {
  if (status != BP_OK && group.depth != 0 && group.status == BP_OK)
    group.status = status;
  return status;
}

static bp_status_t collective(C_CCLComm comm, vcpu_comm_desc_t d,
                              C_Stream stream) {
  const char *what = vcpu_comm_kind_name(d.kind);
  bp_status_t status = check_comm(comm, what, stream);
  if (status != BP_OK)
    return status;
  bool reduces = d.kind == VCPU_COMM_ALL_REDUCE || d.kind == VCPU_COMM_REDUCE ||
                 d.kind == VCPU_COMM_REDUCE_SCATTER;
  if (reduces && !vcpu_comm_op_valid(d.op))
    return vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "%s on %s: reduce op %d is not one of sum, avg, max, "
        "min, prod",
        what, comm->name, (int)d.op);
  if ((d.kind == VCPU_COMM_BROADCAST || d.kind == VCPU_COMM_REDUCE) &&
      d.peer >= comm->nranks)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "%s on %s: root %zu out of range for %zu ranks",
                            what, comm->name, d.peer, comm->nranks);
  bool gathers =
      d.kind == VCPU_COMM_ALL_GATHER || d.kind == VCPU_COMM_REDUCE_SCATTER;
  size_t elements = d.count;
  if (gathers && d.count > SIZE_MAX / comm->nranks)
    elements = SIZE_MAX;
  else if (gathers)
    elements = d.count * comm->nranks;
  /* A non-root rank of reduce may pass no receive buffer. */
  bool needs_recv = d.kind != VCPU_COMM_REDUCE || d.peer == comm->rank;
  status = check_data(comm, &d, elements, true, needs_recv);
  if (status != BP_OK)
    return status;
  d.seq = atomic_fetch_add(&comm->next_seq, 1) + 1;
  return dispatch_numbered(comm, &d, stream);
}

bp_status_t vcpu_comm_call_collective(C_CCLComm comm, vcpu_comm_desc_t desc,
                                      C_Stream stream) {
  return vcpu_comm_group_note(collective(comm, desc, stream));
}

static bp_status_t p2p(C_CCLComm comm, vcpu_comm_desc_t d, C_Stream stream) {
  const char *what = vcpu_comm_kind_name(d.kind);
  bp_status_t status = check_comm(comm, what, stream);
  if (status != BP_OK)
    return status;
  if (d.peer >= comm->nranks)
    return vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "%s on %s: peer rank %zu out of range for %zu ranks", what, comm->name,
        d.peer, comm->nranks);
  bool sends = d.kind == VCPU_COMM_SEND;
  status = check_data(comm, &d, d.count, sends, !sends);
  if (status != BP_OK)
    return status;
  _Atomic uint64_t *counter =
      sends ? &comm->sends_to[d.peer] : &comm->recvs_from[d.peer];
  d.seq = atomic_fetch_add(counter, 1);
  return dispatch_numbered(comm, &d, stream);
}

bp_status_t vcpu_comm_call_p2p(C_CCLComm comm, vcpu_comm_desc_t desc,
                               C_Stream stream) {
  return vcpu_comm_group_note(p2p(comm, desc, stream));
}

bp_status_t vcpu_comm_call_all_to_all(C_CCLComm comm, const void **send_buf,
                                      const size_t *send_count,
                                      const C_DataType *send_dtype,
                                      void **recv_buf, const size_t *recv_count,
                                      const C_DataType *recv_dtype,
                                      C_Stream stream) {
  if (comm == NULL)
    return vcpu_comm_group_note(
        vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT, "all_to_all: comm is NULL"));
  if (!send_buf || !send_count || !send_dtype || !recv_buf || !recv_count ||
      !recv_dtype)
    return vcpu_comm_group_note(vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT, "all_to_all on %s: an array argument is NULL",
        comm->name));
  vcpu_comm_group_start();
  for (size_t r = 0; r < comm->nranks; r++) {
    vcpu_comm_desc_t send = {.kind = VCPU_COMM_SEND,
                             .send = send_buf[r],
                             .count = send_count[r],
                             .dtype = send_dtype[r],
                             .peer = r};
    vcpu_comm_desc_t recv = {.kind = VCPU_COMM_RECV,
                             .recv = recv_buf[r],
                             .count = recv_count[r],
                             .dtype = recv_dtype[r],
                             .peer = r};
    if (vcpu_comm_call_p2p(comm, send, stream) != BP_OK ||
        vcpu_comm_call_p2p(comm, recv, stream) != BP_OK)
      break;
  }
  return vcpu_comm_group_end();
}

void vcpu_comm_group_start(void) {
  group.depth++;
}

bp_status_t vcpu_comm_group_end(void) {
  if (group.depth == 0)
    return vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "xccl_group_end without a matching xccl_group_start");
  if (--group.depth != 0)
    return BP_OK;
  bp_status_t status = group.status;
  vcpu_comm_batch_t *batch = group.batches;
  group.batches = NULL;
  group.status = BP_OK;
  char first_error[512] = "";
  if (status != BP_OK)
    snprintf(first_error, sizeof first_error, "%s", vcpu_comm_last_error());
  while (batch != NULL) {
    vcpu_comm_batch_t *next = batch->next;
    batch->next = NULL;
    if (status != BP_OK) { /* a failed group enqueues nothing more */
      vcpu_comm_fail(batch->comm, status,
                     "%s rank %zu: a call of its group "
                     "failed: %s",
                     batch->comm->name, batch->comm->rank, first_error);
      batch_free(batch);
    } else {
      status = submit_batch(batch);
      if (status != BP_OK)
        snprintf(first_error, sizeof first_error, "%s", vcpu_comm_last_error());
    }
    batch = next;
  }
  if (status != BP_OK)
    return vcpu_comm_reject(status, "%s", first_error);
  return BP_OK;
}
