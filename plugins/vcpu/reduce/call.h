/* What one collective call is, as every rank describes it: its kind and
 * arguments, their names in messages, and whether two ranks' calls match.
 * Pure data and pure functions, thread-safe; shared by the vcpu collectives
 * and the MPI transport module (backplane_vcpu_reduce). */
#ifndef BACKPLANE_VCPU_REDUCE_CALL_H_
#define BACKPLANE_VCPU_REDUCE_CALL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"

typedef enum vcpu_comm_kind {
  VCPU_COMM_ALL_REDUCE,
  VCPU_COMM_BROADCAST,
  VCPU_COMM_REDUCE,
  VCPU_COMM_ALL_GATHER,
  VCPU_COMM_REDUCE_SCATTER,
  VCPU_COMM_SEND,
  VCPU_COMM_RECV,
} vcpu_comm_kind_t;

/* One call as every rank describes it; `count` is per rank for all_gather and
 * reduce_scatter (NCCL's convention), `peer` is root or p2p peer. */
typedef struct vcpu_comm_desc {
  vcpu_comm_kind_t kind;
  const void *send;
  void *recv;
  size_t count;
  C_DataType dtype;
  C_CCLReduceOp op;
  size_t peer;
  uint64_t seq; /* collective sequence, or the p2p message number per pair */
  /* A stage of the hybrid transport (comm/hybrid.c): the whole call it is
   * part of, vcpu_comm_stage_of(); 0 for a call of its own. Ranks agree on
   * a stage only when they agree on the whole call, so checking a stage
   * checks the call. */
  uint64_t stage_of;
} vcpu_comm_desc_t;

/* `whole`'s kind, op and root packed for vcpu_comm_desc_t.stage_of (its
 * count and type are the stage's own); with `disagreed`, a call of a rank
 * whose own stage found ranks that called something else, which then
 * matches no other rank's. */
uint64_t vcpu_comm_stage_of(const vcpu_comm_desc_t *whole, bool disagreed);

/* "all_reduce", "broadcast", ... */
const char *vcpu_comm_kind_name(vcpu_comm_kind_t kind);

/* Whether two ranks' calls at one sequence number are the same collective:
 * kind, count and type, the op or root where the kind has one, and the
 * whole call of a stage. */
bool vcpu_comm_same_call(const vcpu_comm_desc_t *a, const vcpu_comm_desc_t *b);
/* "all_reduce(count=4, float32, sum)", "broadcast(count=8, int32, root=1)";
 * a stage is described as its whole call ("..., on a host that disagreed"
 * after a disagreement). */
void vcpu_comm_describe_call(const vcpu_comm_desc_t *d, char *out,
                             size_t capacity);

#endif /* BACKPLANE_VCPU_REDUCE_CALL_H_ */
