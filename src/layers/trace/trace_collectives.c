/* The observer through which src/comm reports its xccl_* calls: one host slice
 * per call, category "collective", on the calling thread's track, with the
 * communicator, op, sizes, root or peer and sequence number as args. The
 * args are formatted here, at record time: a collective takes microseconds,
 * and they are more than an event keeps raw. */
#include <inttypes.h>
#include <stdio.h>

#include "backplane/comm.h"
#include "base/status.h"
#include "core/device_table.h"
#include "layers/trace/trace_internal.h"

static const char *reduce_op_name(int op) {
  static const char *const names[BP_REDUCE_OP_COUNT] = {[BP_REDUCE_SUM] = "sum",
                                                        [BP_REDUCE_AVG] = "avg",
                                                        [BP_REDUCE_MAX] = "max",
                                                        [BP_REDUCE_MIN] = "min",
                                                        [BP_REDUCE_PRODUCT] =
                                                            "product"};
  return op >= 0 && (size_t)op < sizeof names / sizeof names[0] ? names[op]
                                                                : "unknown";
}

static bp_trace_comm_lane_t lane_of(bp_collective_rank_role_t role) {
  switch (role) {
  case BP_NOTE_SEND_PEER:
    return BP_TRACE_LANE_SEND;
  case BP_NOTE_RECV_PEER:
    return BP_TRACE_LANE_RECV;
  default:
    return BP_TRACE_LANE_COLLECTIVE;
  }
}

void bp_trace_observe_collective(void *context,
                                 const bp_collective_note_t *note,
                                 C_Status result) {
  bp_trace_layer_t *t = context;
  pthread_mutex_lock(&t->lock);
  uint64_t seq = bp_trace_comm_seq_next(&t->comm_seqs, note->comm, note->native,
                                        note->nranks, lane_of(note->rank_role),
                                        note->rank);
  pthread_mutex_unlock(&t->lock);
  char detail[320];
  int n =
      snprintf(detail, sizeof detail,
               ",\"comm\":\"%p\",\"rank\":%zu,\"nranks\":%zu,\"seq\":%" PRIu64
               ",\"count\":%zu,\"dtype\":\"%s\",\"bytes\":%zu",
               note->comm, note->comm_rank, note->nranks, seq, note->count,
               bp_dtype_name(note->dtype), note->bytes);
  if (note->reduce_op != BP_NOTE_NO_REDUCE_OP && n > 0 &&
      (size_t)n < sizeof detail)
    n += snprintf(detail + n, sizeof detail - (size_t)n,
                  ",\"reduce_op\":\"%s\"", reduce_op_name(note->reduce_op));
  if (note->rank_role != BP_NOTE_NO_RANK && n > 0 && (size_t)n < sizeof detail)
    snprintf(detail + n, sizeof detail - (size_t)n, ",\"%s\":%zu",
             note->rank_role == BP_NOTE_ROOT ? "root" : "peer", note->rank);
  bp_trace_record(t, BP_TRACE_CATEGORY_COLLECTIVE, note->function,
                  &note->device->c_device, note->start_ns, result, "%s",
                  detail);
}
