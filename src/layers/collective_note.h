/* Collectives in the trace (internal): src/comm describes each xccl_* call
 * it makes in a bp_collective_note_t, taken just before the call, and hands
 * it with the call's result to bp_layers_note_collective, the one hook
 * between the communicators and the layers. The xccl_* functions take no
 * C_Device, so the trace layer cannot intercept them in the dispatch table;
 * the communicator knows its device, hence its plugin's layers. When the
 * plugin has no trace layer the note costs three loads and a branch. */
#ifndef BACKPLANE_LAYERS_COLLECTIVE_NOTE_H_
#define BACKPLANE_LAYERS_COLLECTIVE_NOTE_H_

#include <stddef.h>
#include <stdint.h>

#include "comm/comm_internal.h"
#include "layers/layers.h"
#include "layers/trace_clock.h"

/* bp_collective_note_t.reduce_op of a call that does not reduce. */
#define BP_NOTE_NO_REDUCE_OP (-1)

/* What bp_collective_note_t.rank is. */
typedef enum bp_collective_rank_role {
  BP_NOTE_NO_RANK,   /* nothing */
  BP_NOTE_ROOT,      /* broadcast, reduce */
  BP_NOTE_SEND_PEER, /* send */
  BP_NOTE_RECV_PEER, /* recv */
} bp_collective_rank_role_t;

typedef struct bp_collective_note {
  const bp_comm_t *comm;
  const char *function; /* "xccl_all_reduce": the slice's name */
  size_t count;         /* elements, as passed */
  bp_dtype_t dtype;
  size_t bytes;  /* of this rank's send buffer */
  int reduce_op; /* a bp_reduce_op_t, or BP_NOTE_NO_REDUCE_OP */
  bp_collective_rank_role_t rank_role;
  size_t rank;       /* the root or peer, as rank_role says */
  uint64_t start_ns; /* 0: the plugin is not traced */
} bp_collective_note_t;

/* A note about to be made on `comm` (non-NULL, checked), timed from now
 * when its plugin is traced. */
static inline bp_collective_note_t
bp_collective_note_begin(const bp_comm_t *comm, const char *function,
                         size_t count, bp_dtype_t dtype, size_t bytes,
                         int reduce_op, bp_collective_rank_role_t rank_role,
                         size_t rank) {
  const bp_layers_t *layers = comm->device->plugin->layers;
  return (bp_collective_note_t){
      .comm = comm,
      .function = function,
      .count = count,
      .dtype = dtype,
      .bytes = bytes,
      .reduce_op = reduce_op,
      .rank_role = rank_role,
      .rank = rank,
      .start_ns = layers && layers->trace ? bp_trace_now_ns() : 0};
}

/* Adds the call's slice to the host thread's track of the trace, with the
 * communicator, op, count, dtype, bytes, root or peer and the
 * communicator's sequence number (trace_collectives.c). No-op when the note
 * was not timed. Thread-safe. */
void bp_layers_note_collective(const bp_collective_note_t *note,
                               C_Status result);

#endif /* BACKPLANE_LAYERS_COLLECTIVE_NOTE_H_ */
