/* The small all-reduce (mpi_all_reduce.h): recursive doubling over the
 * plan of mpi_exchange_plan.h. Each message is the sender's partial result
 * behind the call words of the ranks it stands for, so the check travels in
 * the data's own messages and every rank ends with every rank's call (the
 * helpers hand all of them back). Each step combines the lower ranks' part
 * first, and the ops commute, so every rank computes the same bits. Ranks
 * that disagree keep exchanging (without combining) so that all of them can
 * name the mismatch. The other collectives run the same exchange with the
 * words alone as their call check (mpi_call_check_start), a larger
 * all-reduce step by step beside its own messages (mpi_call_check_step),
 * so whatever two ranks call at one sequence number, they meet.
 * A step's message to a rank of this host goes through the world's mailbox
 * when it has one (mpi_mailbox.h), else over MPI.
 *
 * The call lives in world->small, so that one thread can start it and
 * another finish it (mpi_small_all_reduce_start, _resume). */
#include <stdlib.h>
#include <string.h>

#include "mpi_all_reduce.h"
#include "mpi_call_words.h"
#include "mpi_exchange_plan.h"
#include "mpi_mailbox.h"
#include "mpi_wait.h"
#include "reduce/reduce.h"

enum { SMALL_TAG_BASE = 1 };

/* Which exchange step `step` of this rank's plan is: the handing rank has
 * one (hand in, get back); a helper takes in first and hands back last;
 * between them, the doubling steps. */
typedef enum small_step_kind {
  STEP_HAND_IN_AND_BACK,
  STEP_TAKE_IN,
  STEP_DOUBLE,
  STEP_HAND_BACK,
} small_step_kind;

static small_step_kind step_kind(const mpi_plan *plan, unsigned step,
                                 unsigned steps) {
  if (plan->handing)
    return STEP_HAND_IN_AND_BACK;
  if (plan->helper && step == 0)
    return STEP_TAKE_IN;
  if (plan->helper && step + 1 == steps)
    return STEP_HAND_BACK;
  return STEP_DOUBLE;
}

static unsigned steps_of(const mpi_plan *plan) {
  unsigned doubling = 0;
  for (size_t group = 1; group < plan->p; group *= 2)
    doubling++;
  return plan->handing ? 1 : plan->helper ? doubling + 2 : doubling;
}

/* The doubling group size at `step` (1, 2, 4, ...). */
static size_t group_at(const mpi_plan *plan, unsigned step) {
  return (size_t)1 << (plan->helper ? step - 1 : step);
}

/* Each step's message is the call words followed by the partial result.
 * To a rank on this host it goes as one message of at most
 * SMALL_FIRST_BYTES, the rest (if any) as a second: below Open MPI's
 * shared-memory eager limit (4 KiB with its header), every message but a
 * 16 KiB one's second goes without a rendezvous round trip (2 ranks, one
 * host: 1 KiB in one message 0.41-0.52 us against 0.53-0.77 as words and
 * data apart; 4 KiB as 4032 + 112 bytes 0.92-1.15 us against 1.4-1.6 as
 * 48 + 4096). To another host (TCP, whose eager limit is 64 KiB) it goes
 * whole: each message costs a round of the link. A first message of
 * exactly the limit says that a second one follows. */
enum { SMALL_FIRST_BYTES = 4096 - 64 };

/* The most bytes of a step's first message between this rank and `peer`. */
static size_t small_first_limit(const mpi_world *world, size_t peer) {
  if (world->near[peer])
    return SMALL_FIRST_BYTES;
  return mpi_call_bytes(world->nranks) + MPI_SMALL_ALL_REDUCE_MAX_BYTES;
}

/* The data bytes a step's message carries: a small all-reduce's partial
 * result; none for the call check of another collective (a larger
 * all-reduce's included). */
static size_t data_bytes(const vcpu_comm_desc_t *d) {
  return mpi_small_all_reduce_fits(d)
             ? d->count * vcpu_comm_dtype_size(d->dtype)
             : 0;
}

/* The rank the current step exchanges with: the step sends to it, receives
 * from it, or both. */
static size_t step_partner(const mpi_world *world, const mpi_plan *plan) {
  const mpi_small_call *c = &world->small;
  switch (step_kind(plan, c->step, c->steps)) {
  case STEP_HAND_IN_AND_BACK:
    return world->rank + 1;
  case STEP_TAKE_IN:
  case STEP_HAND_BACK:
    return world->rank - 1;
  default:
    return mpi_plan_rank(plan, plan->survivor ^ group_at(plan, c->step));
  }
}

/* Sends the words then the data over MPI, from small_out up to the first
 * message's end (all of it when the words alone fill the first message). */
static void small_send(mpi_world *world, size_t to, size_t words, int tag) {
  mpi_small_call *c = &world->small;
  size_t bytes = data_bytes(&c->call);
  size_t limit = small_first_limit(world, to);
  size_t total = words + bytes;
  size_t packed = total < limit || words > limit ? total : limit;
  memcpy(world->small_out + words, c->partial, packed - words);
  size_t first = total < limit ? total : limit;
  MPI_Request *r = c->requests;
  MPI_Isend(world->small_out, (int)first, MPI_BYTE, (int)to, tag, world->comm,
            &r[c->nrequests++]);
  c->nsends++;
  if (total >= limit) {
    const unsigned char *rest =
        packed == total ? world->small_out + first
                        : (const unsigned char *)c->partial + (first - words);
    MPI_Isend(rest, (int)(total - first), MPI_BYTE, (int)to, tag, world->comm,
              &r[c->nrequests++]);
    c->nsends++;
  }
}

/* Posts the messages of the call's current step. Through the mailbox: the
 * message is written into the partner's slot, and the receive is the wait
 * for the partner's. Over MPI: the sends first (they are what the partner
 * waits for), then the receive, as requests[0]. */
static void small_post(mpi_world *world, const mpi_plan *plan) {
  mpi_small_call *c = &world->small;
  size_t n = world->nranks, me = world->rank;
  size_t partner = step_partner(world, plan);
  size_t first = 0, end = 0;
  bool receives = true, sends = true;
  switch (step_kind(plan, c->step, c->steps)) {
  case STEP_HAND_IN_AND_BACK:
    first = me, end = me + 1;
    break;
  case STEP_TAKE_IN:
    sends = false;
    break;
  case STEP_HAND_BACK:
    receives = false;
    first = 0, end = n;
    break;
  case STEP_DOUBLE: {
    size_t group = group_at(plan, c->step);
    size_t mine = plan->survivor & ~(group - 1);
    first = mpi_plan_cover(plan, mine);
    end = mpi_plan_cover(plan, mine + group);
    break;
  }
  }
  c->received = 0;
  c->second = false;
  c->nsends = 0;
  if (mpi_mailbox_reaches(world, partner)) {
    c->nrequests = 0;
    if (sends) {
      mpi_mailbox_slot *slot =
          mpi_mailbox_slot_of(world, me, partner, c->call.seq);
      size_t words = mpi_call_words_pack(world, first, end, slot->message);
      size_t bytes = data_bytes(&c->call);
      if (bytes != 0)
        memcpy(slot->message + words, c->partial, bytes);
      mpi_mailbox_post(slot, words + bytes, c->call.seq);
    }
    return;
  }
  int tag = SMALL_TAG_BASE + (int)(c->call.seq % 16000u);
  c->nrequests = receives ? 1 : 0;
  if (sends)
    small_send(world, partner,
               mpi_call_words_pack(world, first, end, world->small_out), tag);
  if (receives)
    MPI_Irecv(world->small_in, (int)small_first_limit(world, partner), MPI_BYTE,
              (int)partner, tag, world->comm, &c->requests[0]);
}

/* After the step's first message came full: posts the receive of its
 * second one. */
static void small_post_second(mpi_world *world, const mpi_plan *plan) {
  mpi_small_call *c = &world->small;
  size_t from = step_partner(world, plan);
  size_t limit = small_first_limit(world, from);
  int tag = SMALL_TAG_BASE + (int)(c->call.seq % 16000u);
  size_t room =
      mpi_call_bytes(world->nranks) + MPI_SMALL_ALL_REDUCE_MAX_BYTES - limit;
  MPI_Irecv(world->small_in + limit, (int)room, MPI_BYTE, (int)from, tag,
            world->comm, &c->requests[c->nrequests++]);
  c->second = true;
}

/* Takes in the received call words of world ranks [first, end) (the first
 * bytes of `message`) and, when every call so far agrees and the data after
 * them came whole, returns the received data (else NULL). */
static const void *take_calls(mpi_world *world, const unsigned char *message,
                              size_t first, size_t end, size_t partner,
                              char *error, size_t capacity, int *status) {
  mpi_small_call *c = &world->small;
  size_t block = mpi_call_bytes(end - first);
  size_t bytes = data_bytes(&c->call);
  if ((size_t)c->received < block) {
    world->disagreed = true;
    *status = mpi_fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                       "%s sequence %" PRIu64
                       ": rank %zu sent %d bytes, not a call of this size",
                       vcpu_comm_kind_name(c->call.kind), c->call.seq, partner,
                       c->received);
    return NULL;
  }
  memcpy(world->calls + first * CALL_WORDS, message, block);
  for (size_t r = first; r < end; r++) {
    vcpu_comm_desc_t theirs =
        mpi_call_from_words(world->calls + r * CALL_WORDS);
    c->agreed = c->agreed && vcpu_comm_same_call(&c->call, &theirs);
  }
  bool whole = (size_t)c->received - block == bytes && bytes != 0;
  return c->agreed && whole ? message + block : NULL;
}

/* Combines `in` from `partner` into the partial result, the lower ranks'
 * part first. */
static void combine(mpi_small_call *c, const void *in, size_t partner,
                    size_t me) {
  C_CCLReduceOp op = c->call.op == AVG ? SUM : c->call.op;
  const void *srcs[2] = {partner < me ? in : c->partial,
                         partner < me ? c->partial : in};
  vcpu_comm_reduce(c->call.recv, srcs, 2, c->call.count, c->call.dtype, op, 1);
  c->partial = c->call.recv;
}

/* Takes in the message the current step received (in small_in, or in a
 * mailbox slot). */
static int small_receive(mpi_world *world, const mpi_plan *plan,
                         const unsigned char *message, char *error,
                         size_t capacity) {
  mpi_small_call *c = &world->small;
  size_t me = world->rank, n = world->nranks;
  int status = BP_OK;
  const void *in = NULL;
  switch (step_kind(plan, c->step, c->steps)) {
  case STEP_HAND_IN_AND_BACK:
    in = take_calls(world, message, 0, n, me + 1, error, capacity, &status);
    if (in != NULL) {
      memcpy(c->call.recv, in, data_bytes(&c->call));
      c->partial = c->call.recv;
    }
    break;
  case STEP_TAKE_IN:
    in = take_calls(world, message, me - 1, me, me - 1, error, capacity,
                    &status);
    if (in != NULL)
      combine(c, in, me - 1, me);
    break;
  case STEP_HAND_BACK:
    break;
  case STEP_DOUBLE: {
    size_t group = group_at(plan, c->step);
    size_t theirs = (plan->survivor ^ group) & ~(group - 1);
    size_t partner = mpi_plan_rank(plan, plan->survivor ^ group);
    in = take_calls(world, message, mpi_plan_cover(plan, theirs),
                    mpi_plan_cover(plan, theirs + group), partner, error,
                    capacity, &status);
    if (in != NULL)
      combine(c, in, partner, me);
    break;
  }
  }
  return status;
}

/* Waits for the current step's MPI messages to end, the received one whole
 * in small_in. The first message says whether a second one follows. When
 * this rank sends two, their second goes over the eager limit, and is sent
 * only once the partner posted its receive: so the partner's second receive
 * must be posted before they are waited for, and the first message is
 * waited for alone. One send (eager) needs nothing of the partner: all are
 * waited for at once. MPI_Testall leaves every request as it was until all
 * are done. */
static int small_wait_mpi(mpi_world *world, const mpi_plan *plan,
                          uint64_t until_ns, const atomic_bool *aborted,
                          char *error, size_t capacity) {
  mpi_small_call *c = &world->small;
  bool receives = step_kind(plan, c->step, c->steps) != STEP_HAND_BACK;
  for (;;) {
    bool first = receives && !c->second && c->requests[0] != MPI_REQUEST_NULL;
    MPI_Status statuses[4];
    int waited = first && c->nsends > 1 ? 1 : c->nrequests;
    int status = mpi_wait_until(world, c->requests, waited, statuses,
                                c->deadline_ns, until_ns, aborted,
                                mpi_call_name(&c->call), error, capacity);
    if (status != BP_OK || !(first || c->second))
      return status;
    int got = 0;
    MPI_Get_count(&statuses[first ? 0 : c->nrequests - 1], MPI_BYTE, &got);
    c->received += got;
    bool full =
        (size_t)got == small_first_limit(world, step_partner(world, plan));
    if (first && full)
      small_post_second(world, plan);
    if (!(first && (full || waited == 1)))
      return BP_OK;
  }
}

/* Waits for the current step's message in this rank's mailbox slot (none
 * for a step that only sends: its message was handed on when posted); the
 * message's place in *message. */
static int small_wait_mailbox(mpi_world *world, const mpi_plan *plan,
                              uint64_t until_ns, const atomic_bool *aborted,
                              const unsigned char **message, char *error,
                              size_t capacity) {
  mpi_small_call *c = &world->small;
  if (step_kind(plan, c->step, c->steps) == STEP_HAND_BACK)
    return BP_OK;
  mpi_mailbox_slot *slot = mpi_mailbox_slot_of(world, step_partner(world, plan),
                                               world->rank, c->call.seq);
  int status = mpi_wait_for_word(world, &slot->seq, c->call.seq, c->deadline_ns,
                                 until_ns, aborted, mpi_call_name(&c->call),
                                 error, capacity);
  if (status == BP_OK) {
    c->received = (int)slot->bytes;
    *message = slot->message;
  }
  return status;
}

/* Ends the call's current step (posting it first if need be) and moves to
 * the next, or returns BP_ERR_NOT_READY, still in it, once `until_ns`
 * passes. */
static int small_step(mpi_world *world, const mpi_plan *plan, uint64_t until_ns,
                      const atomic_bool *aborted, char *error,
                      size_t capacity) {
  mpi_small_call *c = &world->small;
  if (!c->posted)
    small_post(world, plan);
  c->posted = true;
  const unsigned char *message = world->small_in;
  int status;
  if (mpi_mailbox_reaches(world, step_partner(world, plan)))
    status = small_wait_mailbox(world, plan, until_ns, aborted, &message, error,
                                capacity);
  else
    status = small_wait_mpi(world, plan, until_ns, aborted, error, capacity);
  if (status == BP_ERR_NOT_READY)
    return status;
  if (status == BP_OK)
    status = small_receive(world, plan, message, error, capacity);
  c->step++;
  c->posted = false;
  return status;
}

/* Goes on with the world's small all-reduce until it ends, or until
 * `until_ns` passes first (BP_ERR_NOT_READY: call again to go on). */
static int small_progress(mpi_world *world, uint64_t until_ns,
                          const atomic_bool *aborted, char *error,
                          size_t capacity) {
  mpi_small_call *c = &world->small;
  mpi_plan plan = mpi_plan_of(world);
  int status = BP_OK;
  while (status == BP_OK && c->step < c->steps) {
    status = small_step(world, &plan, until_ns, aborted, error, capacity);
    if (status == BP_ERR_NOT_READY)
      return status;
  }
  c->pending = false;
  if (status != BP_OK)
    return mpi_name_the_missing(world, status, c->call.seq, error, capacity);
  if (!c->agreed)
    return mpi_compare_calls(world, &c->call, error, capacity);
  if (!mpi_small_all_reduce_fits(&c->call))
    return BP_OK;
  if (c->partial != c->call.recv) /* one rank: no step wrote the result */
    memcpy(c->call.recv, c->partial, data_bytes(&c->call));
  if (c->call.op == AVG)
    vcpu_comm_reduce(c->call.recv, (const void *const[]){c->call.recv}, 1,
                     c->call.count, c->call.dtype, AVG, world->nranks);
  return BP_OK;
}

bool mpi_all_reduce_buffers(mpi_world *world) {
  size_t bytes = mpi_call_bytes(world->nranks) + MPI_SMALL_ALL_REDUCE_MAX_BYTES;
  if (world->small_out == NULL)
    world->small_out = malloc(bytes);
  if (world->small_in == NULL)
    world->small_in = malloc(bytes);
  return world->small_out != NULL && world->small_in != NULL;
}

/* Makes `d` the world's call exchange, at its first step. */
static void begin(mpi_world *world, const vcpu_comm_desc_t *d,
                  uint64_t deadline_ns) {
  world->at_seq = d->seq;
  mpi_plan plan = mpi_plan_of(world);
  world->small = (mpi_small_call){.call = *d,
                                  .deadline_ns = deadline_ns,
                                  .partial = d->send,
                                  .steps = steps_of(&plan),
                                  .agreed = true,
                                  .pending = true};
  mpi_call_to_words(d, world->calls + world->rank * CALL_WORDS);
}

int mpi_small_all_reduce_start(mpi_world *world, const vcpu_comm_desc_t *d,
                               uint64_t deadline_ns, uint64_t until_ns,
                               const atomic_bool *aborted, char *error,
                               size_t capacity) {
  if (!mpi_all_reduce_buffers(world))
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  begin(world, d, deadline_ns);
  return small_progress(world, until_ns, aborted, error, capacity);
}
int mpi_small_all_reduce_resume(mpi_world *world, uint64_t until_ns,
                                const atomic_bool *aborted, char *error,
                                size_t capacity) {
  if (!world->small.pending)
    return mpi_fail(BP_ERR_INTERNAL, error, capacity,
                    "no call of this world to go on with");
  return small_progress(world, until_ns, aborted, error, capacity);
}

int mpi_call_check_start(mpi_world *world, const vcpu_comm_desc_t *d,
                         uint64_t deadline_ns, char *error, size_t capacity) {
  if (!mpi_all_reduce_buffers(world))
    return mpi_fail(BP_ERR_OUT_OF_MEMORY, error, capacity, "out of memory");
  begin(world, d, deadline_ns);
  if (world->small.steps == 0) {
    world->small.pending = false;
    return BP_OK;
  }
  mpi_plan plan = mpi_plan_of(world);
  small_post(world, &plan);
  world->small.posted = true;
  return BP_OK;
}

int mpi_call_check_step(mpi_world *world, uint64_t until_ns,
                        const atomic_bool *aborted, char *error,
                        size_t capacity) {
  mpi_small_call *c = &world->small;
  if (c->step >= c->steps)
    return BP_OK;
  mpi_plan plan = mpi_plan_of(world);
  return small_step(world, &plan, until_ns, aborted, error, capacity);
}

int mpi_call_check_finish(mpi_world *world, const atomic_bool *aborted,
                          char *error, size_t capacity) {
  return small_progress(world, UINT64_MAX, aborted, error, capacity);
}
