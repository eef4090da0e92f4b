/* What a stream runs for the collectives: one task per (communicator,
 * stream) hand-off, carried by value in a stream command (queue.h). A call
 * outside a group travels whole in it, so enqueuing a lone collective costs
 * no allocation and its worker reads one cache line for it; a group's calls
 * travel as a batch on the heap (comm/ops.c). 48 bytes. */
#ifndef BACKPLANE_VCPU_COMM_TASK_H_
#define BACKPLANE_VCPU_COMM_TASK_H_

#include <stdint.h>

#include "backplane/device_ext.h"

struct comm_batch;

/* comm_task.kind for a group's batch; otherwise the lone call's comm_kind. */
enum { COMM_TASK_BATCH = 0xff };

typedef struct comm_task {
  C_CCLComm comm;
  union {
    struct {
      const void *send;
      void *recv;
      uint64_t count;
      uint64_t seq;
    } call;
    struct comm_batch *batch; /* owned by the task */
  };
  uint32_t peer;
  uint8_t kind;  /* comm_kind, or COMM_TASK_BATCH */
  uint8_t dtype; /* C_DataType */
  uint8_t op;    /* C_CCLReduceOp */
} comm_task;

_Static_assert(sizeof(comm_task) == 48, "a comm_task fills a command cell");

/* Runs the task on the stream's worker (comm/ops.c); it frees the batch. */
void comm_run_task(const comm_task *task);

#endif /* BACKPLANE_VCPU_COMM_TASK_H_ */
