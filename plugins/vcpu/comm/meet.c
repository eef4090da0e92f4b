#include "comm/meet.h"

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "comm/failure.h"
#include "comm/liveness.h"
#include "comm/spread.h"
#include "reduce/reduce.h"

typedef struct arrival {
  vcpu_comm_world_t *world;
  uint64_t target;
  int32_t cpu; /* this rank's */
} arrival;

static bool everyone_arrived(void *context) {
  arrival *a = context;
  for (size_t r = 0; r < a->world->nranks; r++)
    if (atomic_load_explicit(&a->world->slots[r].arrive, memory_order_acquire) <
        a->target)
      return false;
  return true;
}

/* Yield while a late rank was last seen on this CPU, so that it can run
 * (comm/spread.h moves one of us later); spin while they run elsewhere. */
static bool late_rank_shares_cpu(void *context) {
  arrival *a = context;
  for (size_t r = 0; r < a->world->nranks; r++) {
    const vcpu_comm_rank_slot_t *slot = &a->world->slots[r];
    if (atomic_load_explicit(&slot->arrive, memory_order_relaxed) < a->target &&
        atomic_load_explicit(&slot->cpu, memory_order_relaxed) == a->cpu)
      return true;
  }
  return false;
}

void vcpu_comm_describe_rank(const vcpu_comm_world_t *world, size_t rank,
                             char *out, size_t capacity) {
  const vcpu_comm_rank_slot_t *slot = &world->slots[rank];
  uint64_t at = atomic_load(&slot->arrive);
  if (!atomic_load(&slot->joined))
    snprintf(out, capacity, "rank %zu never joined", rank);
  else if (at == 0)
    snprintf(out, capacity, "rank %zu has not called any collective", rank);
  else
    snprintf(out, capacity, "rank %zu is at sequence %" PRIu64 " step %u", rank,
             at >> VCPU_COMM_STEP_BITS,
             (unsigned)(at & ((1ull << VCPU_COMM_STEP_BITS) - 1)));
}

bp_status_t vcpu_comm_meet(C_CCLComm comm, const vcpu_comm_desc_t *desc,
                           unsigned step, uint64_t deadline_ns) {
  vcpu_comm_world_t *world = comm->world;
  arrival a = {world, (desc->seq << VCPU_COMM_STEP_BITS) + step,
               sched_getcpu()};
  vcpu_comm_rank_slot_t *mine = &world->slots[comm->rank];
  atomic_store_explicit(&mine->cpu, a.cpu, memory_order_relaxed);
  atomic_store_explicit(&mine->arrive, a.target, memory_order_release);
  vcpu_comm_signal_progress(world->signal);
  vcpu_comm_wait_result_t result = vcpu_comm_wait_world(
      world, deadline_ns, everyone_arrived, late_rank_shares_cpu, &a);
  if (result == VCPU_COMM_WAIT_READY) {
    vcpu_comm_spread_after_meeting(comm, a.cpu);
    return BP_OK;
  }
  size_t late = 0;
  while (late < world->nranks &&
         atomic_load(&world->slots[late].arrive) >= a.target)
    late++;
  char who[96] = "no rank missing";
  if (late < world->nranks)
    vcpu_comm_describe_rank(world, late, who, sizeof who);
  char what[64];
  snprintf(what, sizeof what, "%s sequence %" PRIu64,
           vcpu_comm_kind_name(desc->kind), desc->seq);
  bp_status_t lost = BP_OK;
  if (result == VCPU_COMM_WAIT_ABORTED &&
      vcpu_comm_fail_if_peer_lost(comm, what, &lost))
    return lost;
  if (result == VCPU_COMM_WAIT_ABORTED)
    return vcpu_comm_fail(comm, BP_ERR_ABORTED,
                          "%s rank %zu: %s sequence %" PRIu64
                          " aborted while waiting for rank %zu (%s)",
                          comm->name, comm->rank,
                          vcpu_comm_kind_name(desc->kind), desc->seq, late,
                          who);
  return vcpu_comm_fail(comm, BP_ERR_TIMEOUT,
                        "%s rank %zu: %s sequence %" PRIu64
                        " timed out after %" PRIu64
                        " ms waiting for rank %zu (%s)",
                        comm->name, comm->rank, vcpu_comm_kind_name(desc->kind),
                        desc->seq, comm->timeout_ns / 1000000u, late, who);
}

static bp_status_t check_same_call(C_CCLComm comm,
                                   const vcpu_comm_desc_t *mine) {
  for (size_t r = 0; r < comm->nranks; r++) {
    const vcpu_comm_desc_t *theirs =
        vcpu_comm_published_call(comm->world, r, mine->seq);
    if (vcpu_comm_same_call(mine, theirs))
      continue;
    char a[128], b[128];
    vcpu_comm_describe_call(mine, a, sizeof a);
    vcpu_comm_describe_call(theirs, b, sizeof b);
    return vcpu_comm_fail(
        comm, BP_ERR_INVALID_ARGUMENT,
        "%s rank %zu: mismatched collectives at sequence %" PRIu64
        ": rank %zu called %s but rank %zu called %s",
        comm->name, comm->rank, mine->seq, comm->rank, a, r, b);
  }
  return BP_OK;
}

bp_status_t vcpu_comm_start_collective(C_CCLComm comm,
                                       const vcpu_comm_desc_t *desc,
                                       uint64_t deadline_ns) {
  comm->world->slots[comm->rank].desc[desc->seq % 2] = *desc;
  bp_status_t status = vcpu_comm_meet(comm, desc, 1, deadline_ns);
  return status == BP_OK ? check_same_call(comm, desc) : status;
}

const vcpu_comm_desc_t *vcpu_comm_published_call(const vcpu_comm_world_t *world,
                                                 size_t rank, uint64_t seq) {
  return &world->slots[rank].desc[seq % 2];
}

/* Rank r's chunk of `count` elements: whole cache lines, the last rank takes
 * the rest. */
void vcpu_comm_chunk_of(size_t count, size_t elem_size, size_t nranks, size_t r,
                        size_t *out_begin, size_t *out_end) {
  size_t per_line = elem_size >= 64 ? 1 : 64 / elem_size;
  size_t chunk = (count + nranks - 1) / nranks;
  chunk = (chunk + per_line - 1) / per_line * per_line;
  size_t begin = r * chunk < count ? r * chunk : count;
  size_t end = begin + chunk < count ? begin + chunk : count;
  *out_begin = begin;
  *out_end = end;
}

void vcpu_comm_copy(void *dst, const void *src, size_t bytes) {
  if (dst != src && bytes != 0)
    memcpy(dst, src, bytes);
}
