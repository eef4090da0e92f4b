/* A collective's data once its ranks met (contract in data.h). */
#include "comm/data.h"

#include <stdlib.h>

#include "comm/arena_map.h"
#include "comm/failure.h"
#include "comm/meet.h"
#include "comm/staged.h"
#include "comm/threads.h"
#include "reduce/reduce.h"

/* Worlds across processes share device buffers (single copy) only for calls
 * this large: it costs one more meeting to agree on it. */
enum { SINGLE_COPY_MIN_BYTES = 64 * 1024, MAX_STACK_PEERS = 16 };

/* Whether every rank could map every peer's arena for this call: each
 * publishes its answer, then they meet at `step`. */
static bp_status_t agree_on_single_copy(C_CCLComm comm,
                                        const vcpu_comm_desc_t *desc,
                                        vcpu_comm_desc_t *peers, unsigned step,
                                        uint64_t deadline, bool *out_agreed) {
  vcpu_comm_world_t *world = comm->world;
  if (vcpu_comm_arena_translate(comm, desc->seq, peers))
    atomic_store(&world->slots[comm->rank].mapped_seq, desc->seq);
  bp_status_t status = vcpu_comm_meet(comm, desc, step, deadline);
  bool agreed = true;
  for (size_t r = 0; r < comm->nranks; r++)
    agreed = agreed && atomic_load(&world->slots[r].mapped_seq) == desc->seq;
  *out_agreed = agreed;
  return status;
}

bp_status_t vcpu_comm_collective_data(C_CCLComm comm,
                                      const vcpu_comm_desc_t *desc,
                                      uint64_t deadline) {
  vcpu_comm_world_t *world = comm->world;
  bp_status_t status = BP_OK;
  vcpu_comm_desc_t stack_peers[MAX_STACK_PEERS];
  vcpu_comm_desc_t *peers = comm->nranks <= MAX_STACK_PEERS
                                ? stack_peers
                                : malloc(comm->nranks * sizeof *peers);
  if (peers == NULL)
    return vcpu_comm_fail(comm, BP_ERR_OUT_OF_MEMORY,
                          "%s rank %zu: out of memory", comm->name, comm->rank);
  size_t bytes = desc->count * vcpu_comm_dtype_size(desc->dtype);
  if (vcpu_comm_world_is_local(world)) {
    for (size_t r = 0; r < comm->nranks; r++)
      peers[r] = *vcpu_comm_published_call(world, r, desc->seq);
    status = vcpu_comm_threads_collective(comm, desc, peers, 2, deadline);
  } else if (bytes >= SINGLE_COPY_MIN_BYTES &&
             vcpu_comm_arena_everyone_published(world)) {
    bool agreed = false;
    status = agree_on_single_copy(comm, desc, peers, 2, deadline, &agreed);
    if (status == BP_OK && agreed) {
      atomic_fetch_add(&comm->single_copy_calls, 1);
      status = vcpu_comm_threads_collective(comm, desc, peers, 3, deadline);
    } else if (status == BP_OK) {
      status = vcpu_comm_staged_collective(comm, desc, 3, deadline);
    }
  } else {
    status = vcpu_comm_staged_collective(comm, desc, 2, deadline);
  }
  if (peers != stack_peers)
    free(peers);
  return status;
}
