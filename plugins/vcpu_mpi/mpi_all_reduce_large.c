/* The all-reduce over MPI_SMALL_ALL_REDUCE_MAX_BYTES (mpi_all_reduce.h):
 * Rabenseifner's algorithm, which Open MPI's tuned MPI_Allreduce picks for
 * these sizes (with two ranks its ring is the same exchange), over
 * point-to-point messages polled like the small one's. Open MPI's
 * MPI_Iallreduce, which keeps deadlines and aborts too, took about 1.5x the
 * blocking call's time at 64 KiB - 1 MiB: below four ranks, below 64 KiB and in
 * place, libnbc reduces into one rank and broadcasts back.
 *
 * In pieces of at most HALVING_PIECE_BYTES (the scratch buffer's size). The
 * ranks pair up as in mpi_exchange_plan.h (the handing rank sends its piece to
 * its helper and gets the result back at the end); the survivors
 * reduce-scatter by recursive halving (at step k survivor i keeps the half
 * of its span that bit k of i selects, sends the other half to survivor
 * i ^ 2^k and reduces what that one sent into its own), then all-gather by
 * recursive doubling in the reverse order. Up to the end of its
 * reduce-scatter the first piece runs the call check of every other
 * collective (mpi_call_check_step) beside its exchanges, which meet the
 * same partners in the same order: each exchange's partner sends the call
 * words of the ranks it stands for in the check's own message (through the
 * host's mailbox or over MPI), so then every survivor, and after the
 * hand-back every rank, holds every rank's call, whatever each called (a
 * broadcast, a small all-reduce); ranks that disagree stop there and name
 * the mismatch. Data from a partner lands in the scratch buffer until the
 * calls are known to agree (a partner that called another count cannot
 * overflow it), in place afterwards; an exchange with a partner that called
 * anything but a larger all-reduce (which sends no data) is given up once
 * its words say so. Each element is reduced by one rank and copied to the
 * others, so every rank ends with the same bits. */
#include <stdlib.h>
#include <string.h>

#include "mpi_all_reduce.h"
#include "mpi_call_words.h"
#include "mpi_exchange_plan.h"
#include "mpi_wait.h"
#include "reduce/reduce.h"

enum { HALVING_PIECE_BYTES = 4 << 20, HALVING_TAG_BASE = 16001 };

/* How long a wait for a step of the call check goes before it tests the
 * exchange's own requests again: a send over the eager limit moves only
 * while its sender calls into MPI, and the check's words may come through
 * the mailbox, which polls no MPI (the handing rank's words come only once
 * its helper has received all of its data). */
enum { CHECK_SLICE_NS = 2000 };

/* One exchange of a large all-reduce: receives from `from` (at most
 * in_capacity bytes into `in`) and sends to `to` (out_bytes of `out`);
 * MPI_PROC_NULL on a side means nothing there. `checked`: a step of the
 * call check goes with it (the first piece's, mpi_call_check_step). */
typedef struct halving_exchange {
  int from, to;
  bool checked;
  void *in;
  size_t in_capacity;
  const void *out;
  size_t out_bytes;
} halving_exchange;

/* A large all-reduce in progress: the call, its piece, and what this rank
 * learnt of the others' calls. */
typedef struct halving_call {
  mpi_world *world;
  const vcpu_comm_desc_t *call;
  uint64_t deadline_ns;
  const atomic_bool *aborted;
  mpi_plan plan;
  int tag;
  size_t piece;       /* element offset of the piece */
  size_t count;       /* elements in the piece */
  const char *source; /* this rank's input for the piece (send, then recv) */
  bool first;         /* the first piece: its messages carry the calls */
  bool agreed;
  char *error;
  size_t capacity;
} halving_call;

static size_t element_bytes(const halving_call *h) {
  return vcpu_comm_dtype_size(h->call->dtype);
}

static char *piece_at(const halving_call *h, size_t element) {
  return (char *)h->call->recv + (h->piece + element) * element_bytes(h);
}

/* Whether world rank `rank` called an all-reduce of this file (whose
 * exchanges send and receive data), by the words the call check brought. */
static bool exchanges_data(const mpi_world *world, size_t rank) {
  vcpu_comm_desc_t theirs =
      mpi_call_from_words(world->calls + rank * CALL_WORDS);
  return theirs.kind == VCPU_COMM_ALL_REDUCE &&
         !mpi_small_all_reduce_fits(&theirs);
}

/* Leaves requests that no partner will match (it called another
 * collective): given up unless done, as MPI cannot cancel a send. */
static void halving_drop(mpi_world *world, MPI_Request *requests, int n) {
  int done = 0;
  if (MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS ||
      !done)
    mpi_give_up(world);
}

/* Ends the exchange's step of the call check, testing the exchange's own
 * requests between slices of the wait (*done, with their statuses, once
 * they completed). */
static int halving_check(halving_call *h, MPI_Request *requests,
                         MPI_Status *statuses, bool *done) {
  for (;;) {
    int status = mpi_call_check_step(h->world, mpi_now_ns() + CHECK_SLICE_NS,
                                     h->aborted, h->error, h->capacity);
    if (status != BP_ERR_NOT_READY)
      return status;
    int completed = 1;
    if (!*done)
      MPI_Testall(2, requests, &completed, statuses);
    *done = completed != 0;
  }
}

/* Runs one exchange, with its step of the call check when `checked`;
 * *received: the data bytes that came, or -1 when the partner called
 * another collective and the data was given up. */
static int halving_run(halving_call *h, const halving_exchange *x,
                       int *received) {
  mpi_world *world = h->world;
  MPI_Request requests[2];
  MPI_Status statuses[2];
  MPI_Irecv(x->in, (int)x->in_capacity, MPI_BYTE, x->from, h->tag, world->comm,
            &requests[0]);
  MPI_Isend(x->out, (int)x->out_bytes, MPI_BYTE, x->to, h->tag, world->comm,
            &requests[1]);
  *received = 0;
  bool done = false;
  int status = BP_OK;
  if (x->checked) {
    status = halving_check(h, requests, statuses, &done);
    h->agreed = world->small.agreed;
    size_t partner = (size_t)(x->from != MPI_PROC_NULL ? x->from : x->to);
    if (status != BP_OK || (!h->agreed && !exchanges_data(world, partner))) {
      if (!done)
        halving_drop(world, requests, 2);
      *received = -1;
      return status;
    }
  }
  if (!done)
    status =
        mpi_wait_all(world, requests, 2, statuses, h->deadline_ns, h->aborted,
                     mpi_call_name(h->call), h->error, h->capacity);
  if (status == BP_OK)
    MPI_Get_count(&statuses[0], MPI_BYTE, received);
  return status;
}

/* Data that did not come whole from ranks that agree on the call. */
static int halving_short(halving_call *h, size_t partner, int received,
                         size_t expected) {
  return mpi_fail(BP_ERR_INTERNAL, h->error, h->capacity,
                  "%s sequence %" PRIu64 ": %d bytes came from %s %zu, not %zu",
                  vcpu_comm_kind_name(h->call->kind), h->call->seq, received,
                  h->world->member, partner, expected);
}

/* Reduces `in` (from `partner`) and this rank's input over `count`
 * elements from `element` of the piece into the result, the lower rank's
 * part first. */
static void halving_combine(halving_call *h, const void *in, size_t partner,
                            size_t element, size_t count) {
  size_t me = h->world->rank;
  const char *mine = h->source + element * element_bytes(h);
  C_CCLReduceOp op = h->call->op == AVG ? SUM : h->call->op;
  const void *srcs[2] = {partner < me ? in : mine, partner < me ? mine : in};
  vcpu_comm_reduce(piece_at(h, element), srcs, 2, count, h->call->dtype, op, 1);
}

/* The survivors' part of a piece: reduce-scatter by recursive halving, then
 * (when the calls agree) all-gather by recursive doubling. */
static int halving_survive(halving_call *h) {
  mpi_world *world = h->world;
  const mpi_plan *plan = &h->plan;
  size_t es = element_bytes(h);
  size_t first[64], count[64]; /* this rank's span before step k */
  unsigned steps = 0;
  first[0] = 0;
  count[0] = h->count;
  for (size_t group = 1; group < plan->p; group *= 2, steps++) {
    size_t lower = count[steps] / 2;
    bool upper = (plan->survivor & group) != 0;
    size_t keep_first = first[steps] + (upper ? lower : 0);
    size_t keep = upper ? count[steps] - lower : lower;
    size_t give_first = first[steps] + (upper ? 0 : lower);
    size_t give = count[steps] - keep;
    size_t partner = mpi_plan_rank(plan, plan->survivor ^ group);
    halving_exchange x = {.from = (int)partner,
                          .to = (int)partner,
                          .checked = h->first,
                          .in = world->scratch,
                          .in_capacity = HALVING_PIECE_BYTES,
                          .out = h->source + give_first * es,
                          .out_bytes = give * es};
    int received = 0;
    int status = halving_run(h, &x, &received);
    if (status == BP_OK && h->agreed && (size_t)received != keep * es)
      status = halving_short(h, partner, received, keep * es);
    if (status != BP_OK)
      return status;
    if (h->agreed)
      halving_combine(h, world->scratch, partner, keep_first, keep);
    first[steps + 1] = keep_first;
    count[steps + 1] = keep;
    h->source = piece_at(h, 0); /* the result holds this rank's part now */
  }
  if (!h->agreed)
    return BP_OK;
  if (steps == 0 && h->source != piece_at(h, 0)) /* one survivor */
    memcpy(piece_at(h, 0), h->source, h->count * es);
  for (unsigned k = steps; k-- > 0;) {
    size_t group = (size_t)1 << k;
    size_t partner = mpi_plan_rank(plan, plan->survivor ^ group);
    /* The partner holds the rest of the span of step k. */
    size_t theirs_first =
        first[k + 1] == first[k] ? first[k] + count[k + 1] : first[k];
    size_t theirs = count[k] - count[k + 1];
    halving_exchange x = {.from = (int)partner,
                          .to = (int)partner,
                          .in = piece_at(h, theirs_first),
                          .in_capacity = theirs * es,
                          .out = piece_at(h, first[k + 1]),
                          .out_bytes = count[k + 1] * es};
    int received = 0;
    int status = halving_run(h, &x, &received);
    if (status == BP_OK && (size_t)received != theirs * es)
      status = halving_short(h, partner, received, theirs * es);
    if (status != BP_OK)
      return status;
  }
  return BP_OK;
}

/* One piece: the pairs' hand-in, the survivors' part, the hand-back. The
 * handing rank's step of the call check goes with its hand-in, though its
 * message (every rank's call) comes with the hand-back: a helper that
 * called another collective never takes the hand-in. */
static int halving_piece(halving_call *h) {
  mpi_world *world = h->world;
  const mpi_plan *plan = &h->plan;
  size_t es = element_bytes(h), me = world->rank;
  size_t bytes = h->count * es;
  int received = 0, status = BP_OK;
  if (plan->handing) {
    halving_exchange in = {.from = MPI_PROC_NULL,
                           .to = (int)me + 1,
                           .checked = h->first,
                           .out = h->source,
                           .out_bytes = bytes};
    status = halving_run(h, &in, &received);
    halving_exchange back = {.from = (int)me + 1,
                             .to = MPI_PROC_NULL,
                             .in = piece_at(h, 0),
                             .in_capacity = bytes};
    if (status == BP_OK && received >= 0) /* not given up */
      status = halving_run(h, &back, &received);
    if (status == BP_OK && h->agreed && (size_t)received != bytes)
      status = halving_short(h, me + 1, received, bytes);
    return status;
  }
  if (plan->helper) {
    halving_exchange in = {.from = (int)me - 1,
                           .to = MPI_PROC_NULL,
                           .checked = h->first,
                           .in = world->scratch,
                           .in_capacity = HALVING_PIECE_BYTES};
    status = halving_run(h, &in, &received);
    if (status == BP_OK && h->agreed && (size_t)received != bytes)
      status = halving_short(h, me - 1, received, bytes);
    if (status == BP_OK && h->agreed) {
      halving_combine(h, world->scratch, me - 1, 0, h->count);
      h->source = piece_at(h, 0);
    }
  }
  if (status == BP_OK)
    status = halving_survive(h);
  if (status == BP_OK && plan->helper) {
    /* Ranks that disagree get the calls alone. */
    halving_exchange back = {.from = MPI_PROC_NULL,
                             .to = (int)me - 1,
                             .checked = h->first,
                             .out = piece_at(h, 0),
                             .out_bytes = h->agreed ? bytes : 0};
    status = halving_run(h, &back, &received);
  }
  return status;
}

int mpi_large_all_reduce(mpi_world *world, const vcpu_comm_desc_t *d,
                         uint64_t deadline_ns, const atomic_bool *aborted,
                         char *error, size_t capacity) {
  if (world->scratch == NULL)
    world->scratch = malloc(HALVING_PIECE_BYTES);
  if (!mpi_all_reduce_buffers(world) || world->scratch == NULL)
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  int status = mpi_call_check_start(world, d, deadline_ns, error, capacity);
  if (status != BP_OK)
    return status;
  size_t es = vcpu_comm_dtype_size(d->dtype);
  size_t per_piece = HALVING_PIECE_BYTES / es;
  halving_call h = {.world = world,
                    .call = d,
                    .deadline_ns = deadline_ns,
                    .aborted = aborted,
                    .plan = mpi_plan_of(world),
                    .tag = HALVING_TAG_BASE + (int)(d->seq % 16000u),
                    .first = true,
                    .agreed = true,
                    .error = error,
                    .capacity = capacity};
  for (size_t piece = 0; status == BP_OK && (piece == 0 || piece < d->count);
       piece += per_piece) {
    h.piece = piece;
    h.count = d->count - piece < per_piece ? d->count - piece : per_piece;
    h.source = (const char *)d->send + piece * es;
    status = halving_piece(&h);
    if (!h.agreed)
      break;
    h.first = false;
  }
  if (status != BP_OK)
    return mpi_name_the_missing(world, status, d->seq, error, capacity);
  /* Every step of the check ran with the first piece: this names a
   * mismatch. */
  status = mpi_call_check_finish(world, aborted, error, capacity);
  if (status != BP_OK)
    return status;
  if (d->op == AVG)
    vcpu_comm_reduce(d->recv, (const void *const[]){d->recv}, 1, d->count,
                     d->dtype, AVG, world->nranks);
  return BP_OK;
}
