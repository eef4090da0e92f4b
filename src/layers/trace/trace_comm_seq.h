/* Sequence numbers of the communicator calls the trace layer records
 * (internal). Per communicator, its collectives are numbered 1, 2, ... in
 * call order; every rank issues them in the same order, so one collective
 * has the same number on every rank. Sends to and receives from each peer
 * are numbered on their own, also from 1. A communicator is known by its
 * address and its plugin handle: one created where a destroyed one was,
 * with another plugin handle, starts again at 1 (layers see no destroy).
 * Not synchronized: the trace layer holds its lock. */
#ifndef BACKPLANE_LAYERS_TRACE_TRACE_COMM_SEQ_H_
#define BACKPLANE_LAYERS_TRACE_TRACE_COMM_SEQ_H_

#include <stddef.h>
#include <stdint.h>

#include "base/pointer_map.h"

/* communicator -> its bp_trace_comm_counts (trace_comm_seq.c), owned. */
typedef struct bp_trace_comm_seqs {
  bp_pointer_map_t by_comm;
} bp_trace_comm_seqs_t;

typedef enum bp_trace_comm_lane {
  BP_TRACE_LANE_COLLECTIVE,
  BP_TRACE_LANE_SEND,
  BP_TRACE_LANE_RECV,
} bp_trace_comm_lane_t;

/* The number of this call of `comm` (plugin handle `native`, `nranks`
 * ranks) in `lane`; `peer` (< nranks) is used by the send and receive
 * lanes. 0 when out of memory or `peer` is out of range. */
uint64_t bp_trace_comm_seq_next(bp_trace_comm_seqs_t *seqs, const void *comm,
                                const void *native, size_t nranks,
                                bp_trace_comm_lane_t lane, size_t peer);
void bp_trace_comm_seqs_release(bp_trace_comm_seqs_t *seqs);

#endif /* BACKPLANE_LAYERS_TRACE_TRACE_COMM_SEQ_H_ */
