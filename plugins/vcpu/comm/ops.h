/* Calls on communicators, as the xccl_* functions make them: validation,
 * sequence numbers, groups, and hand-off to the rank's stream.
 *
 * A call outside a group becomes one task on its stream and returns at once.
 * Between vcpu_comm_group_start() and the matching vcpu_comm_group_end() calls
 * of the calling thread are only recorded; the outermost group end enqueues,
 * per (communicator, stream), one task that runs the group's collectives in
 * call order and then progresses all its sends and receives together, so they
 * never block each other. Groups are per thread and nest.
 *
 * Every function returns BP_OK or a status with vcpu_comm_last_error() set: bad
 * arguments, an unsupported type/op, a poisoned communicator (the message
 * then repeats its first failure), or an enqueue failure. */
#ifndef BACKPLANE_VCPU_COMM_OPS_H_
#define BACKPLANE_VCPU_COMM_OPS_H_

#include "comm/comm.h"
#include "comm/task.h"

/* Runs a task on the stream's worker, the devices' comm_task runner
 * (device.h, given at initialize by plugin.c); it frees a batch. */
void vcpu_comm_run_task(const vcpu_comm_task_t *task);

/* A collective (kind < VCPU_COMM_SEND). `desc->seq` is assigned here. */
bp_status_t vcpu_comm_call_collective(C_CCLComm comm, vcpu_comm_desc_t desc,
                                      C_Stream stream);

/* A send or receive (desc.kind VCPU_COMM_SEND/VCPU_COMM_RECV, desc.peer the
 * peer). */
bp_status_t vcpu_comm_call_p2p(C_CCLComm comm, vcpu_comm_desc_t desc,
                               C_Stream stream);

/* Every rank sends send_count[r] elements of send_dtype[r] from send_buf[r]
 * to rank r and receives recv_count[r] of recv_dtype[r] into recv_buf[r],
 * as one group. Types must match per pair. */
bp_status_t vcpu_comm_call_all_to_all(C_CCLComm comm, const void **send_buf,
                                      const size_t *send_count,
                                      const C_DataType *send_dtype,
                                      void **recv_buf, const size_t *recv_count,
                                      const C_DataType *recv_dtype,
                                      C_Stream stream);

/* A call rejected inside a group fails the whole group: for a call that the
 * plugin refused before it reached the library. Returns `status`. */
bp_status_t vcpu_comm_group_note(bp_status_t status);

void vcpu_comm_group_start(void);
/* BP_ERR_INVALID_ARGUMENT without a matching start. */
bp_status_t vcpu_comm_group_end(void);

#endif /* BACKPLANE_VCPU_COMM_OPS_H_ */
