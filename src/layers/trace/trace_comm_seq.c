/* Communicator sequence numbers (contract in trace_comm_seq.h): each
 * communicator's counters live on the heap, found through the map. */
#include "layers/trace/trace_comm_seq.h"

#include <stdlib.h>

typedef struct bp_trace_comm_counts {
  const void *native;
  size_t nranks;
  uint64_t collectives;
  uint64_t messages[]; /* [2 * peer] sends, [2 * peer + 1] receives */
} bp_trace_comm_counts_t;

/* The counters of `comm`, fresh when it is new or its handle changed;
 * NULL when out of memory. */
static bp_trace_comm_counts_t *counts_of(bp_trace_comm_seqs_t *seqs,
                                         const void *comm, const void *native,
                                         size_t nranks) {
  bp_trace_comm_counts_t *counts =
      (void *)(uintptr_t)bp_pointer_map_get(&seqs->by_comm, comm);
  if (counts && counts->native == native && counts->nranks == nranks)
    return counts;
  bp_trace_comm_counts_t *fresh =
      calloc(1, sizeof *fresh + 2 * nranks * sizeof *fresh->messages);
  if (!fresh)
    return NULL;
  *fresh = (bp_trace_comm_counts_t){native, nranks, 0};
  if (!bp_pointer_map_set(&seqs->by_comm, comm, (uintptr_t)fresh)) {
    free(fresh);
    return NULL;
  }
  free(counts);
  return fresh;
}

uint64_t bp_trace_comm_seq_next(bp_trace_comm_seqs_t *seqs, const void *comm,
                                const void *native, size_t nranks,
                                bp_trace_comm_lane_t lane, size_t peer) {
  bp_trace_comm_counts_t *counts = counts_of(seqs, comm, native, nranks);
  if (!counts)
    return 0;
  if (lane == BP_TRACE_LANE_COLLECTIVE)
    return ++counts->collectives;
  if (peer >= nranks)
    return 0;
  return ++counts->messages[2 * peer + (lane == BP_TRACE_LANE_RECV)];
}

void bp_trace_comm_seqs_release(bp_trace_comm_seqs_t *seqs) {
  for (size_t i = 0; i < seqs->by_comm.capacity; ++i)
    free((void *)(uintptr_t)seqs->by_comm.slots[i].value);
  bp_pointer_map_release(&seqs->by_comm);
}
