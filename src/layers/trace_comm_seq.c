/* An open-addressing hash map from communicator address to its counters,
 * with linear probing; entries are reset, never removed. */
#include "layers/trace_comm_seq.h"

#include <stdlib.h>

static size_t home_of(const void *comm, size_t capacity) {
  uint64_t h = (uint64_t)(uintptr_t)comm * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 32) & (capacity - 1);
}

/* The slot holding `comm`, or the empty slot where it would go. */
static size_t find(const bp_trace_comm_seqs_t *seqs, const void *comm) {
  size_t i = home_of(comm, seqs->capacity);
  while (seqs->slots[i].comm && seqs->slots[i].comm != comm)
    i = (i + 1) & (seqs->capacity - 1);
  return i;
}

static int grow(bp_trace_comm_seqs_t *seqs) {
  size_t capacity = seqs->capacity ? seqs->capacity * 2 : 16;
  bp_trace_comm_seqs_t grown = {calloc(capacity, sizeof *grown.slots), capacity,
                                seqs->count};
  if (!grown.slots)
    return 0;
  for (size_t i = 0; i < seqs->capacity; ++i)
    if (seqs->slots[i].comm)
      grown.slots[find(&grown, seqs->slots[i].comm)] = seqs->slots[i];
  free(seqs->slots);
  *seqs = grown;
  return 1;
}

/* The counters of `comm`, fresh when it is new or its handle changed;
 * NULL when out of memory. */
static bp_trace_comm_counts_t *counts_of(bp_trace_comm_seqs_t *seqs,
                                         const void *comm, const void *native,
                                         size_t nranks) {
  if ((seqs->count + 1) * 2 > seqs->capacity && !grow(seqs))
    return NULL;
  bp_trace_comm_counts_t *slot = &seqs->slots[find(seqs, comm)];
  if (slot->comm && slot->native == native && slot->nranks == nranks)
    return slot;
  uint64_t *messages = calloc(nranks ? 2 * nranks : 1, sizeof *messages);
  if (!messages)
    return NULL;
  if (!slot->comm)
    seqs->count++;
  free(slot->messages);
  *slot = (bp_trace_comm_counts_t){comm, native, nranks, 0, messages};
  return slot;
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
  for (size_t i = 0; i < seqs->capacity; ++i)
    free(seqs->slots[i].messages);
  free(seqs->slots);
  *seqs = (bp_trace_comm_seqs_t){NULL, 0, 0};
}
