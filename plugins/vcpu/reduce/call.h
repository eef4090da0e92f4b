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

typedef enum comm_kind {
  COMM_ALL_REDUCE,
  COMM_BROADCAST,
  COMM_REDUCE,
  COMM_ALL_GATHER,
  COMM_REDUCE_SCATTER,
  COMM_SEND,
  COMM_RECV,
} comm_kind;

/* One call as every rank describes it; `count` is per rank for all_gather and
 * reduce_scatter (NCCL's convention), `peer` is root or p2p peer. */
typedef struct comm_desc {
  comm_kind kind;
  const void *send;
  void *recv;
  size_t count;
  C_DataType dtype;
  C_CCLReduceOp op;
  size_t peer;
  uint64_t seq; /* collective sequence, or the p2p message number per pair */
} comm_desc;

/* "all_reduce", "broadcast", ... */
const char *comm_kind_name(comm_kind kind);

/* Whether two ranks' calls at one sequence number are the same collective:
 * kind, count and type, and the op or root where the kind has one. */
bool comm_same_call(const comm_desc *a, const comm_desc *b);
/* "all_reduce(count=4, float32, sum)", "broadcast(count=8, int32, root=1)". */
void comm_describe_call(const comm_desc *d, char *out, size_t capacity);

#endif /* BACKPLANE_VCPU_REDUCE_CALL_H_ */
