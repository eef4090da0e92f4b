#include "comm/p2p.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/failure.h"
#include "comm/liveness.h"
#include "comm/meet.h"
#include "reduce/reduce.h"

typedef enum p2p_state {
  P2P_PENDING = 0,   /* header not posted (send) / not received (recv) */
  P2P_STREAMING = 1, /* header exchanged, bytes still moving */
  P2P_SENT = 2,      /* a send whose bytes are all out: waits for the ack */
  P2P_DONE = 3,
} p2p_state;

typedef struct p2p_op {
  unsigned char state;
  bool remote;  /* the peer lives in another process */
  size_t moved; /* bytes streamed so far */
} p2p_op;

typedef struct p2p_batch {
  C_CCLComm comm;
  const vcpu_comm_desc_t *ops;
  size_t n, remaining;
  p2p_op *op;
  /* Per peer: a remote call still streaming, so later calls to the same peer
   * wait (the pair's stream carries one message at a time). */
  bool *send_busy, *recv_busy;
  bool mismatch;
  size_t mismatch_op;
} p2p_batch;

static vcpu_comm_mailbox_t *mailbox(vcpu_comm_world_t *world, size_t src,
                                    size_t dst) {
  return &world->mailboxes[src * world->nranks + dst];
}

static unsigned char *pair_buffer(vcpu_comm_world_t *world, size_t src,
                                  size_t dst) {
  return world->pair_buffers + (src * world->nranks + dst) * world->pair_bytes;
}

static size_t bytes_of(const vcpu_comm_desc_t *d) {
  return d->count * vcpu_comm_dtype_size(d->dtype);
}

static void finish(p2p_batch *b, size_t i) {
  b->op[i].state = P2P_DONE;
  b->remaining--;
}

static void fail_mismatch(p2p_batch *b, size_t i) {
  b->mismatch = true;
  b->mismatch_op = i;
}

static bool progress_send(p2p_batch *b, size_t i) {
  const vcpu_comm_desc_t *d = &b->ops[i];
  vcpu_comm_world_t *world = b->comm->world;
  vcpu_comm_mailbox_t *box = mailbox(world, b->comm->rank, d->peer);
  p2p_op *op = &b->op[i];
  uint64_t k = d->seq;
  if (op->state == P2P_PENDING) {
    uint64_t posted = atomic_load_explicit(&box->posted, memory_order_acquire);
    uint64_t consumed =
        atomic_load_explicit(&box->consumed, memory_order_acquire);
    if (posted != k || consumed + VCPU_COMM_MAILBOX_SLOTS <= k)
      return false;
    box->ring[k % VCPU_COMM_MAILBOX_SLOTS] = (vcpu_comm_message_t){
        op->remote ? NULL : d->send, d->count, d->dtype, 0};
    atomic_store_explicit(&box->posted, k + 1, memory_order_release);
    op->state = op->remote && bytes_of(d) != 0 ? P2P_STREAMING : P2P_SENT;
    return true;
  }
  if (atomic_load_explicit(&box->consumed, memory_order_acquire) > k) {
    if (box->ring[k % VCPU_COMM_MAILBOX_SLOTS].status != 0)
      fail_mismatch(b, i);
    finish(b, i);
    return true;
  }
  if (op->state != P2P_STREAMING)
    return false;
  uint64_t chunks =
      atomic_load_explicit(&box->chunks_posted, memory_order_relaxed);
  if (atomic_load_explicit(&box->chunks_consumed, memory_order_acquire) !=
      chunks)
    return false; /* the receiver has not emptied the buffer yet */
  size_t left = bytes_of(d) - op->moved;
  size_t step = left < world->pair_bytes ? left : world->pair_bytes;
  memcpy(pair_buffer(world, b->comm->rank, d->peer),
         (const char *)d->send + op->moved, step);
  op->moved += step;
  atomic_store_explicit(&box->chunks_posted, chunks + 1, memory_order_release);
  if (op->moved == bytes_of(d))
    op->state = P2P_SENT;
  return true;
}

static bool progress_recv(p2p_batch *b, size_t i) {
  const vcpu_comm_desc_t *d = &b->ops[i];
  vcpu_comm_world_t *world = b->comm->world;
  vcpu_comm_mailbox_t *box = mailbox(world, d->peer, b->comm->rank);
  p2p_op *op = &b->op[i];
  uint64_t k = d->seq;
  vcpu_comm_message_t *message = &box->ring[k % VCPU_COMM_MAILBOX_SLOTS];
  if (op->state == P2P_PENDING) {
    if (atomic_load_explicit(&box->posted, memory_order_acquire) <= k ||
        atomic_load_explicit(&box->consumed, memory_order_acquire) != k)
      return false;
    if (message->count != d->count || message->dtype != d->dtype) {
      message->status = 1;
      fail_mismatch(b, i);
    } else if (!op->remote) {
      vcpu_comm_copy(d->recv, message->buf, bytes_of(d));
    } else if (bytes_of(d) != 0) {
      op->state = P2P_STREAMING;
      return true;
    }
    atomic_store_explicit(&box->consumed, k + 1, memory_order_release);
    finish(b, i);
    return true;
  }
  uint64_t taken =
      atomic_load_explicit(&box->chunks_consumed, memory_order_relaxed);
  if (atomic_load_explicit(&box->chunks_posted, memory_order_acquire) == taken)
    return false; /* no chunk waiting */
  size_t left = bytes_of(d) - op->moved;
  size_t step = left < world->pair_bytes ? left : world->pair_bytes;
  memcpy((char *)d->recv + op->moved,
         pair_buffer(world, d->peer, b->comm->rank), step);
  op->moved += step;
  atomic_store_explicit(&box->chunks_consumed, taken + 1, memory_order_release);
  if (op->moved == bytes_of(d)) {
    atomic_store_explicit(&box->consumed, k + 1, memory_order_release);
    finish(b, i);
  }
  return true;
}

/* One pass over the batch; true once it is finished (or failed). */
static bool p2p_progress(void *context) {
  p2p_batch *b = context;
  bool moved = false;
  size_t nranks = b->comm->nranks;
  memset(b->send_busy, 0, nranks * sizeof *b->send_busy);
  memset(b->recv_busy, 0, nranks * sizeof *b->recv_busy);
  for (size_t i = 0; i < b->n && !b->mismatch; i++) {
    const vcpu_comm_desc_t *d = &b->ops[i];
    p2p_op *op = &b->op[i];
    bool *busy = d->kind == VCPU_COMM_SEND ? b->send_busy : b->recv_busy;
    if (op->state == P2P_DONE)
      continue;
    if (op->remote && busy[d->peer])
      continue;
    if (d->kind == VCPU_COMM_SEND ? progress_send(b, i) : progress_recv(b, i))
      moved = true;
    if (op->remote && op->state != P2P_DONE &&
        (d->kind == VCPU_COMM_RECV || op->state != P2P_SENT))
      busy[d->peer] = true;
  }
  if (moved)
    vcpu_comm_signal_progress(b->comm->world->signal);
  return b->remaining == 0 || b->mismatch;
}

static bp_status_t report(p2p_batch *b, vcpu_comm_wait_result_t result) {
  C_CCLComm comm = b->comm;
  if (b->mismatch) {
    const vcpu_comm_desc_t *d = &b->ops[b->mismatch_op];
    return vcpu_comm_fail(comm, BP_ERR_INVALID_ARGUMENT,
                          "%s rank %zu: mismatched %s #%" PRIu64
                          " with rank %zu: send and recv disagree on count or "
                          "type (this side: count=%zu, %s)",
                          comm->name, comm->rank, vcpu_comm_kind_name(d->kind),
                          d->seq, d->peer, d->count,
                          vcpu_comm_dtype_name(d->dtype));
  }
  if (result == VCPU_COMM_WAIT_READY)
    return BP_OK;
  size_t i = 0;
  while (i < b->n && b->op[i].state == P2P_DONE)
    i++;
  const vcpu_comm_desc_t *d = &b->ops[i];
  char who[96];
  vcpu_comm_describe_rank(comm->world, d->peer, who, sizeof who);
  bool aborted = result == VCPU_COMM_WAIT_ABORTED;
  char what[64];
  snprintf(what, sizeof what, "%s #%" PRIu64, vcpu_comm_kind_name(d->kind),
           d->seq);
  bp_status_t lost = BP_OK;
  if (aborted && vcpu_comm_fail_if_peer_lost(comm, what, &lost))
    return lost;
  return vcpu_comm_fail(
      comm, aborted ? BP_ERR_ABORTED : BP_ERR_TIMEOUT,
      "%s rank %zu: %s #%" PRIu64 " %s rank %zu %s (%s)", comm->name,
      comm->rank, vcpu_comm_kind_name(d->kind), d->seq,
      d->kind == VCPU_COMM_SEND ? "to" : "from", d->peer,
      aborted ? "aborted" : "timed out: the peer never matched it", who);
}

/* Waits until every peer of the batch has joined, so whether it is local is
 * known. */
static bool peers_joined(void *context) {
  p2p_batch *b = context;
  for (size_t i = 0; i < b->n; i++)
    if (!atomic_load(&b->comm->world->slots[b->ops[i].peer].joined))
      return false;
  return true;
}

bp_status_t vcpu_comm_p2p_run(C_CCLComm comm, const vcpu_comm_desc_t *ops,
                              size_t n, uint64_t deadline_ns) {
  p2p_batch b = {.comm = comm, .ops = ops, .n = n, .remaining = n};
  b.op = calloc(n ? n : 1, sizeof *b.op);
  b.send_busy = calloc(comm->nranks, sizeof *b.send_busy);
  b.recv_busy = calloc(comm->nranks, sizeof *b.recv_busy);
  bp_status_t status;
  if (b.op == NULL || b.send_busy == NULL || b.recv_busy == NULL) {
    status =
        vcpu_comm_fail(comm, BP_ERR_OUT_OF_MEMORY, "%s rank %zu: out of memory",
                       comm->name, comm->rank);
  } else {
    vcpu_comm_world_t *world = comm->world;
    vcpu_comm_wait_result_t result =
        vcpu_comm_wait_world(world, deadline_ns, peers_joined, NULL, &b);
    if (result == VCPU_COMM_WAIT_READY) {
      for (size_t i = 0; i < n; i++)
        b.op[i].remote = !vcpu_comm_peer_is_local(world, ops[i].peer);
      result = vcpu_comm_wait_world(world, deadline_ns, p2p_progress, NULL, &b);
    }
    status = report(&b, result);
  }
  free(b.op);
  free(b.send_busy);
  free(b.recv_busy);
  return status;
}
