#include "comm/staged.h"

#include <stdlib.h>
#include <string.h>

#include "comm/failure.h"
#include "comm/meet.h"
#include "reduce/reduce.h"

/* Rounds at most this large are reduced whole by every rank. */
enum { ONE_SHOT_BYTES = 64 * 1024, STACK_SOURCES = 16 };

typedef struct staged {
  C_CCLComm comm;
  const vcpu_comm_desc_t *d;
  uint64_t deadline;
  unsigned step; /* the last meeting step used */
  size_t n, me, es;
  const void *stack_srcs[STACK_SOURCES];
  const void **srcs; /* n pointers into the slots */
} staged;

static unsigned char *slot(const staged *s, size_t rank) {
  return s->comm->world->data_slots + rank * s->comm->world->slot_bytes;
}

static bp_status_t meet(staged *s) {
  return vcpu_comm_meet(s->comm, s->d, ++s->step, s->deadline);
}

/* Reduces elements [begin, end) of every rank's slot into dst. */
static void reduce_slots(staged *s, size_t begin, size_t end, void *dst) {
  for (size_t r = 0; r < s->n; r++)
    s->srcs[r] = slot(s, r) + begin * s->es;
  vcpu_comm_reduce(dst, s->srcs, s->n, end - begin, s->d->dtype, s->d->op,
                   s->n);
}

/* all_reduce and reduce: `out` receives the result (NULL on non-root ranks
 * of reduce). */
static bp_status_t reduce_rounds(staged *s, void *out) {
  const vcpu_comm_desc_t *d = s->d;
  size_t per_round = s->comm->world->slot_bytes / s->es;
  bp_status_t status = BP_OK;
  for (size_t base = 0; base < d->count && status == BP_OK; base += per_round) {
    size_t len = d->count - base < per_round ? d->count - base : per_round;
    void *dst = out ? (char *)out + base * s->es : NULL;
    memcpy(slot(s, s->me), (const char *)d->send + base * s->es, len * s->es);
    status = meet(s);
    if (status != BP_OK)
      break;
    if (len * s->es <= ONE_SHOT_BYTES) {
      if (dst)
        reduce_slots(s, 0, len, dst);
      status = meet(s); /* slots stay until every rank has read them */
      continue;
    }
    size_t begin, end;
    vcpu_comm_chunk_of(len, s->es, s->n, s->me, &begin, &end);
    reduce_slots(s, begin, end, slot(s, s->me) + begin * s->es);
    status = meet(s);
    if (status != BP_OK || dst == NULL) {
      if (status == BP_OK)
        status = meet(s);
      continue;
    }
    for (size_t r = 0; r < s->n; r++) {
      vcpu_comm_chunk_of(len, s->es, s->n, r, &begin, &end);
      memcpy((char *)dst + begin * s->es, slot(s, r) + begin * s->es,
             (end - begin) * s->es);
    }
    status = meet(s);
  }
  return status;
}

static bp_status_t broadcast_rounds(staged *s) {
  const vcpu_comm_desc_t *d = s->d;
  size_t per_round = s->comm->world->slot_bytes / s->es;
  bp_status_t status = BP_OK;
  for (size_t base = 0; base < d->count && status == BP_OK; base += per_round) {
    size_t len = d->count - base < per_round ? d->count - base : per_round;
    if (s->me == d->peer)
      memcpy(slot(s, s->me), (const char *)d->send + base * s->es, len * s->es);
    status = meet(s);
    if (status == BP_OK && s->me != d->peer)
      memcpy((char *)d->recv + base * s->es, slot(s, d->peer), len * s->es);
    if (status == BP_OK)
      status = meet(s);
  }
  return status;
}

static bp_status_t all_gather_rounds(staged *s) {
  const vcpu_comm_desc_t *d = s->d;
  size_t per_round = s->comm->world->slot_bytes / s->es;
  bp_status_t status = BP_OK;
  for (size_t base = 0; base < d->count && status == BP_OK; base += per_round) {
    size_t len = d->count - base < per_round ? d->count - base : per_round;
    memcpy(slot(s, s->me), (const char *)d->send + base * s->es, len * s->es);
    status = meet(s);
    for (size_t r = 0; r < s->n && status == BP_OK; r++)
      vcpu_comm_copy((char *)d->recv + (r * d->count + base) * s->es,
                     r == s->me
                         ? (const void *)((const char *)d->send + base * s->es)
                         : slot(s, r),
                     len * s->es);
    if (status == BP_OK)
      status = meet(s);
  }
  return status;
}

/* Each round stages the same piece of all n blocks of the input; rank r then
 * reduces piece r of every slot into its output. */
static bp_status_t reduce_scatter_rounds(staged *s) {
  const vcpu_comm_desc_t *d = s->d;
  size_t per_round = s->comm->world->slot_bytes / s->es / s->n;
  bp_status_t status = BP_OK;
  for (size_t base = 0; base < d->count && status == BP_OK; base += per_round) {
    size_t len = d->count - base < per_round ? d->count - base : per_round;
    for (size_t block = 0; block < s->n; block++)
      memcpy(slot(s, s->me) + block * len * s->es,
             (const char *)d->send + (block * d->count + base) * s->es,
             len * s->es);
    status = meet(s);
    if (status != BP_OK)
      break;
    reduce_slots(s, s->me * len, (s->me + 1) * len,
                 (char *)d->recv + base * s->es);
    status = meet(s);
  }
  return status;
}

bp_status_t vcpu_comm_staged_collective(C_CCLComm comm,
                                        const vcpu_comm_desc_t *d,
                                        unsigned step, uint64_t deadline_ns) {
  staged s = {.comm = comm,
              .d = d,
              .deadline = deadline_ns,
              .step = step - 1,
              .n = comm->nranks,
              .me = comm->rank,
              .es = vcpu_comm_dtype_size(d->dtype)};
  s.srcs = s.n <= STACK_SOURCES ? s.stack_srcs : malloc(s.n * sizeof *s.srcs);
  if (s.srcs == NULL)
    return vcpu_comm_fail(comm, BP_ERR_OUT_OF_MEMORY,
                          "%s rank %zu: out of memory", comm->name, comm->rank);
  bp_status_t status;
  switch (d->kind) {
  case VCPU_COMM_ALL_REDUCE:
    status = reduce_rounds(&s, d->recv);
    break;
  case VCPU_COMM_REDUCE:
    status = reduce_rounds(&s, s.me == d->peer ? d->recv : NULL);
    break;
  case VCPU_COMM_BROADCAST:
    status = broadcast_rounds(&s);
    break;
  case VCPU_COMM_ALL_GATHER:
    status = all_gather_rounds(&s);
    break;
  case VCPU_COMM_REDUCE_SCATTER:
    status = reduce_scatter_rounds(&s);
    break;
  default:
    status = vcpu_comm_fail(comm, BP_ERR_INTERNAL,
                            "%s rank %zu: %s is not a collective", comm->name,
                            comm->rank, vcpu_comm_kind_name(d->kind));
  }
  /* With nothing to move there was no round: still meet once, so no rank
   * republishes its slot while a peer is checking this call. */
  if (status == BP_OK && s.step == step - 1)
    status = meet(&s);
  if (s.srcs != s.stack_srcs)
    free(s.srcs);
  return status;
}
