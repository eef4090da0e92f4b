/* Calls on communicators, as the xccl_* functions make them: validation,
 * sequence numbers, groups, and hand-off to the rank's stream.
 *
 * A call outside a group becomes one task on its stream and returns at once.
 * Between comm_group_start() and the matching comm_group_end() calls of the
 * calling thread are only recorded; the outermost group end enqueues, per
 * (communicator, stream), one task that runs the group's collectives in call
 * order and then progresses all its sends and receives together, so they
 * never block each other. Groups are per thread and nest.
 *
 * Every function returns BP_OK or a status with comm_last_error() set: bad
 * arguments, an unsupported type/op, a poisoned communicator (the message
 * then repeats its first failure), or an enqueue failure. */
#ifndef BACKPLANE_VCPU_COMM_OPS_H_
#define BACKPLANE_VCPU_COMM_OPS_H_

#include "comm/comm.h"
#include "comm/task.h"

/* How a task reaches a stream: the stream keeps a copy of *task and calls
 * comm_run_task on it exactly once, in stream order, on a thread that may
 * block. C_SUCCESS or a failure (then it never runs it). */
typedef C_Status (*comm_enqueue_fn)(C_Stream stream, const comm_task *task);

/* Installs the stream hand-off (the plugin at InitPlugin; tests install
 * their own). Thread-safe; calls already enqueued keep theirs. */
void comm_set_enqueue(comm_enqueue_fn enqueue);

/* A collective (kind < COMM_SEND). `desc->seq` is assigned here. */
bp_status_t comm_call_collective(C_CCLComm comm, comm_desc desc,
                                 C_Stream stream);

/* A send or receive (desc.kind COMM_SEND/COMM_RECV, desc.peer the peer). */
bp_status_t comm_call_p2p(C_CCLComm comm, comm_desc desc, C_Stream stream);

/* Every rank sends send_count[r] elements of send_dtype[r] from send_buf[r]
 * to rank r and receives recv_count[r] of recv_dtype[r] into recv_buf[r],
 * as one group. Types must match per pair. */
bp_status_t comm_call_all_to_all(C_CCLComm comm, const void **send_buf,
                                 const size_t *send_count,
                                 const C_DataType *send_dtype, void **recv_buf,
                                 const size_t *recv_count,
                                 const C_DataType *recv_dtype, C_Stream stream);

void comm_group_start(void);
/* BP_ERR_INVALID_ARGUMENT without a matching start. */
bp_status_t comm_group_end(void);

#endif /* BACKPLANE_VCPU_COMM_OPS_H_ */
