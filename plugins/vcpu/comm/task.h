/* What a stream runs for the collectives: one task per (communicator,
 * stream) hand-off, carried by value in a stream command (queue.h). Data
 * only: it sits below the queue, and the streams run a task through the
 * runner their device was given (device.h), vcpu_comm_run_task (comm/ops.h). A
 * call outside a group travels whole in it, so enqueuing a lone collective
 * costs no allocation and its worker reads one cache line for it; a group's
 * calls travel as a batch on the heap (comm/ops.c). 48 bytes. */
#ifndef BACKPLANE_VCPU_COMM_TASK_H_
#define BACKPLANE_VCPU_COMM_TASK_H_

#include <stdint.h>

#include "backplane/device_ext.h"
#include "reduce/call.h"

struct vcpu_comm_batch;

/* vcpu_comm_task_t.kind for a group's batch; otherwise the lone call's
 * vcpu_comm_kind_t. */
enum { VCPU_COMM_TASK_BATCH = 0xff };

typedef struct vcpu_comm_task {
  C_CCLComm comm;
  union {
    struct {
      const void *send;
      void *recv;
      uint64_t count;
      uint64_t seq;
    } call;
    struct vcpu_comm_batch *batch; /* owned by the task */
  };
  uint32_t peer;
  uint8_t kind;  /* vcpu_comm_kind_t, or VCPU_COMM_TASK_BATCH */
  uint8_t dtype; /* C_DataType */
  uint8_t op;    /* C_CCLReduceOp */
  /* A lone call begun on its caller's thread, whose world holds where it
   * stopped (comm/caller.h): the task finishes it. */
  uint8_t handed_on;
} vcpu_comm_task_t;

_Static_assert(sizeof(vcpu_comm_task_t) == 48, "a task fills a command cell");

/* The task of the lone call `desc` of `comm`. */
static inline vcpu_comm_task_t
vcpu_comm_lone_task(C_CCLComm comm, const vcpu_comm_desc_t *desc) {
  return (vcpu_comm_task_t){
      .comm = comm,
      .call = {desc->send, desc->recv, desc->count, desc->seq},
      .peer = (uint32_t)desc->peer,
      .kind = (uint8_t)desc->kind,
      .dtype = (uint8_t)desc->dtype,
      .op = (uint8_t)desc->op};
}

#endif /* BACKPLANE_VCPU_COMM_TASK_H_ */
