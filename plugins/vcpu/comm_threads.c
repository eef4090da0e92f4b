#include "comm_threads.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_reduce.h"

typedef struct arrival {
  comm_world *world;
  uint64_t target;
} arrival;

static bool everyone_arrived(void *context) {
  arrival *a = context;
  for (size_t r = 0; r < a->world->nranks; r++)
    if (atomic_load_explicit(&a->world->slots[r].arrive, memory_order_acquire) <
        a->target)
      return false;
  return true;
}

static void describe_rank(const comm_world *world, size_t rank, char *out,
                          size_t capacity) {
  const comm_rank_slot *slot = &world->slots[rank];
  uint64_t at = atomic_load(&slot->arrive);
  if (!atomic_load(&slot->joined))
    snprintf(out, capacity, "rank %zu never joined", rank);
  else if (at == 0)
    snprintf(out, capacity, "rank %zu has not called any collective", rank);
  else
    snprintf(out, capacity, "rank %zu is at sequence %" PRIu64 " step %u", rank,
             at / COMM_PHASES, (unsigned)(at % COMM_PHASES));
}

/* Publishes that this rank reached `phase` of the collective and waits until
 * every rank has. */
static bp_status_t meet(C_CCLComm comm, const comm_desc *desc, unsigned phase,
                        uint64_t deadline_ns) {
  comm_world *world = comm->world;
  arrival a = {world, desc->seq * COMM_PHASES + phase};
  atomic_store_explicit(&world->slots[comm->rank].arrive, a.target,
                        memory_order_release);
  comm_signal_progress(&world->signal);
  comm_wait_result result = comm_wait(&world->signal, &world->aborted,
                                      deadline_ns, everyone_arrived, &a);
  if (result == COMM_WAIT_READY)
    return BP_OK;
  size_t late = 0;
  while (late < world->nranks &&
         atomic_load(&world->slots[late].arrive) >= a.target)
    late++;
  char who[96] = "no rank missing";
  if (late < world->nranks)
    describe_rank(world, late, who, sizeof who);
  if (result == COMM_WAIT_ABORTED)
    return comm_fail(comm, BP_ERR_ABORTED,
                     "%s rank %zu: %s sequence %" PRIu64
                     " aborted while waiting for rank %zu (%s)",
                     comm->name, comm->rank, comm_kind_name(desc->kind),
                     desc->seq, late, who);
  return comm_fail(comm, BP_ERR_TIMEOUT,
                   "%s rank %zu: %s sequence %" PRIu64
                   " timed out after %" PRIu64 " ms waiting for rank %zu (%s)",
                   comm->name, comm->rank, comm_kind_name(desc->kind),
                   desc->seq, comm->timeout_ns / 1000000u, late, who);
}

static bool is_reduction(comm_kind kind) {
  return kind == COMM_ALL_REDUCE || kind == COMM_REDUCE ||
         kind == COMM_REDUCE_SCATTER;
}

static bool is_rooted(comm_kind kind) {
  return kind == COMM_BROADCAST || kind == COMM_REDUCE;
}

static void describe_call(const comm_desc *d, char *out, size_t capacity) {
  int n = snprintf(out, capacity, "%s(count=%zu, %s", comm_kind_name(d->kind),
                   d->count, comm_dtype_name(d->dtype));
  if (n > 0 && (size_t)n < capacity && is_reduction(d->kind))
    n += snprintf(out + n, capacity - (size_t)n, ", %s", comm_op_name(d->op));
  if (n > 0 && (size_t)n < capacity && is_rooted(d->kind))
    n += snprintf(out + n, capacity - (size_t)n, ", root=%zu", d->peer);
  if (n > 0 && (size_t)n < capacity)
    snprintf(out + n, capacity - (size_t)n, ")");
}

static bool same_call(const comm_desc *a, const comm_desc *b) {
  if (a->kind != b->kind || a->count != b->count || a->dtype != b->dtype)
    return false;
  if (is_reduction(a->kind) && a->op != b->op)
    return false;
  return !is_rooted(a->kind) || a->peer == b->peer;
}

static bp_status_t check_same_call(C_CCLComm comm, const comm_desc *mine) {
  for (size_t r = 0; r < comm->nranks; r++) {
    const comm_desc *theirs = &comm->world->slots[r].desc;
    if (same_call(mine, theirs))
      continue;
    char a[128], b[128];
    describe_call(mine, a, sizeof a);
    describe_call(theirs, b, sizeof b);
    return comm_fail(comm, BP_ERR_INVALID_ARGUMENT,
                     "%s rank %zu: mismatched collectives at sequence %" PRIu64
                     ": rank %zu called %s but rank %zu called %s",
                     comm->name, comm->rank, mine->seq, comm->rank, a, r, b);
  }
  return BP_OK;
}

static void copy_unless_same(void *dst, const void *src, size_t bytes) {
  if (dst != src && bytes != 0)
    memcpy(dst, src, bytes);
}

/* Rank r's chunk of `count` elements: whole cache lines, the last rank takes
 * the rest. */
static void chunk_of(size_t count, size_t elem_size, size_t nranks, size_t r,
                     size_t *out_begin, size_t *out_end) {
  size_t per_line = elem_size >= 64 ? 1 : 64 / elem_size;
  size_t chunk = (count + nranks - 1) / nranks;
  chunk = (chunk + per_line - 1) / per_line * per_line;
  size_t begin = r * chunk < count ? r * chunk : count;
  size_t end = begin + chunk < count ? begin + chunk : count;
  *out_begin = begin;
  *out_end = end;
}

/* Reduces elements [begin, end) of every rank's send buffer (offset by
 * `src_offset` elements) into dst. */
static bp_status_t reduce_from_all(C_CCLComm comm, const comm_desc *d,
                                   size_t src_offset, size_t begin, size_t end,
                                   void *dst) {
  size_t n = comm->nranks, es = comm_dtype_size(d->dtype);
  const void *stack_srcs[16];
  const void **srcs = n <= 16 ? stack_srcs : malloc(n * sizeof *srcs);
  if (srcs == NULL)
    return comm_fail(comm, BP_ERR_OUT_OF_MEMORY, "%s rank %zu: out of memory",
                     comm->name, comm->rank);
  for (size_t r = 0; r < n; r++)
    srcs[r] = (const char *)comm->world->slots[r].desc.send +
              (src_offset + begin) * es;
  comm_reduce(dst, srcs, n, end - begin, d->dtype, d->op, n);
  if (srcs != stack_srcs)
    free(srcs);
  return BP_OK;
}

bp_status_t comm_threads_collective(C_CCLComm comm, const comm_desc *d,
                                    uint64_t deadline_ns) {
  comm_world *world = comm->world;
  comm_rank_slot *slots = world->slots;
  size_t n = comm->nranks, me = comm->rank;
  size_t es = comm_dtype_size(d->dtype);
  slots[me].desc = *d;
  bp_status_t status = meet(comm, d, 1, deadline_ns);
  if (status == BP_OK)
    status = check_same_call(comm, d);
  if (status != BP_OK)
    return status;

  size_t begin, end;
  switch (d->kind) {
  case COMM_ALL_REDUCE:
    chunk_of(d->count, es, n, me, &begin, &end);
    status =
        reduce_from_all(comm, d, 0, begin, end, (char *)d->recv + begin * es);
    if (status == BP_OK)
      status = meet(comm, d, 2, deadline_ns);
    if (status != BP_OK)
      return status;
    for (size_t r = 0; r < n; r++) {
      if (r == me)
        continue;
      chunk_of(d->count, es, n, r, &begin, &end);
      copy_unless_same((char *)d->recv + begin * es,
                       (const char *)slots[r].desc.recv + begin * es,
                       (end - begin) * es);
    }
    return meet(comm, d, 3, deadline_ns);
  case COMM_BROADCAST:
    if (me != d->peer)
      copy_unless_same(d->recv, slots[d->peer].desc.send, d->count * es);
    return meet(comm, d, 2, deadline_ns);
  case COMM_REDUCE:
    chunk_of(d->count, es, n, me, &begin, &end);
    status = reduce_from_all(comm, d, 0, begin, end,
                             (char *)slots[d->peer].desc.recv + begin * es);
    return status == BP_OK ? meet(comm, d, 2, deadline_ns) : status;
  case COMM_ALL_GATHER:
    for (size_t r = 0; r < n; r++)
      copy_unless_same((char *)d->recv + r * d->count * es, slots[r].desc.send,
                       d->count * es);
    return meet(comm, d, 2, deadline_ns);
  case COMM_REDUCE_SCATTER:
    status = reduce_from_all(comm, d, me * d->count, 0, d->count, d->recv);
    return status == BP_OK ? meet(comm, d, 2, deadline_ns) : status;
  default:
    return comm_fail(comm, BP_ERR_INTERNAL,
                     "%s rank %zu: %s is not a collective", comm->name,
                     comm->rank, comm_kind_name(d->kind));
  }
}

/* ---- point to point ----------------------------------------------------- */

enum { P2P_PENDING = 0, P2P_POSTED = 1, P2P_DONE = 2 };

typedef struct p2p_batch {
  C_CCLComm comm;
  const comm_desc *ops;
  size_t n, remaining;
  unsigned char *state;
  bool mismatch;
  size_t mismatch_op;
} p2p_batch;

static comm_mailbox *mailbox(comm_world *world, size_t src, size_t dst) {
  return &world->mailboxes[src * world->nranks + dst];
}

static bool progress_send(p2p_batch *b, size_t i) {
  const comm_desc *d = &b->ops[i];
  comm_mailbox *box = mailbox(b->comm->world, b->comm->rank, d->peer);
  uint64_t k = d->seq;
  if (b->state[i] == P2P_PENDING) {
    uint64_t posted = atomic_load_explicit(&box->posted, memory_order_acquire);
    uint64_t consumed =
        atomic_load_explicit(&box->consumed, memory_order_acquire);
    if (posted != k || consumed + COMM_MAILBOX_SLOTS <= k)
      return false;
    box->ring[k % COMM_MAILBOX_SLOTS] =
        (comm_message){d->send, d->count, d->dtype, 0};
    atomic_store_explicit(&box->posted, k + 1, memory_order_release);
    b->state[i] = P2P_POSTED;
    return true;
  }
  if (atomic_load_explicit(&box->consumed, memory_order_acquire) <= k)
    return false;
  if (box->ring[k % COMM_MAILBOX_SLOTS].status != 0) {
    b->mismatch = true;
    b->mismatch_op = i;
  }
  b->state[i] = P2P_DONE;
  b->remaining--;
  return true;
}

static bool progress_recv(p2p_batch *b, size_t i) {
  const comm_desc *d = &b->ops[i];
  comm_mailbox *box = mailbox(b->comm->world, d->peer, b->comm->rank);
  uint64_t k = d->seq;
  if (atomic_load_explicit(&box->posted, memory_order_acquire) <= k ||
      atomic_load_explicit(&box->consumed, memory_order_acquire) != k)
    return false;
  comm_message *message = &box->ring[k % COMM_MAILBOX_SLOTS];
  if (message->count != d->count || message->dtype != d->dtype) {
    message->status = 1;
    b->mismatch = true;
    b->mismatch_op = i;
  } else if (d->count != 0) {
    memcpy(d->recv, message->buf, d->count * comm_dtype_size(d->dtype));
  }
  atomic_store_explicit(&box->consumed, k + 1, memory_order_release);
  b->state[i] = P2P_DONE;
  b->remaining--;
  return true;
}

/* One pass over the batch; true once it is finished (or failed). */
static bool p2p_progress(void *context) {
  p2p_batch *b = context;
  bool moved = false;
  for (size_t i = 0; i < b->n; i++) {
    if (b->state[i] == P2P_DONE)
      continue;
    if (b->ops[i].kind == COMM_SEND ? progress_send(b, i) : progress_recv(b, i))
      moved = true;
  }
  if (moved)
    comm_signal_progress(&b->comm->world->signal);
  return b->remaining == 0 || b->mismatch;
}

bp_status_t comm_threads_p2p(C_CCLComm comm, const comm_desc *ops, size_t n,
                             uint64_t deadline_ns) {
  unsigned char *state = calloc(n ? n : 1, 1);
  if (state == NULL)
    return comm_fail(comm, BP_ERR_OUT_OF_MEMORY, "%s rank %zu: out of memory",
                     comm->name, comm->rank);
  p2p_batch b = {comm, ops, n, n, state, false, 0};
  comm_wait_result result =
      comm_wait(&comm->world->signal, &comm->world->aborted, deadline_ns,
                p2p_progress, &b);
  bp_status_t status = BP_OK;
  if (b.mismatch) {
    const comm_desc *d = &ops[b.mismatch_op];
    status = comm_fail(comm, BP_ERR_INVALID_ARGUMENT,
                       "%s rank %zu: mismatched %s #%" PRIu64
                       " with rank %zu: send and recv disagree on count or "
                       "type (this side: count=%zu, %s)",
                       comm->name, comm->rank, comm_kind_name(d->kind), d->seq,
                       d->peer, d->count, comm_dtype_name(d->dtype));
  } else if (result != COMM_WAIT_READY) {
    size_t i = 0;
    while (i < n && state[i] == P2P_DONE)
      i++;
    const comm_desc *d = &ops[i];
    char who[96];
    describe_rank(comm->world, d->peer, who, sizeof who);
    bool aborted = result == COMM_WAIT_ABORTED;
    status = comm_fail(
        comm, aborted ? BP_ERR_ABORTED : BP_ERR_TIMEOUT,
        "%s rank %zu: %s #%" PRIu64 " %s rank %zu %s (%s)", comm->name,
        comm->rank, comm_kind_name(d->kind), d->seq,
        d->kind == COMM_SEND ? "to" : "from", d->peer,
        aborted ? "aborted" : "timed out: the peer never matched it", who);
  }
  free(state);
  return status;
}
