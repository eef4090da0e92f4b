/* A failure relayed between the ranks of a shared-memory world (internal).
 *
 * A rank may fail for a reason its peers cannot see: a rank of a hybrid
 * world (comm/hybrid.h) that talks MPI to other hosts (the call check, or
 * the host leader's call between hosts) meets the lost host there, while
 * the other ranks of its host wait for it inside the host and would only
 * learn that it did not come. So a rank marks itself away while it talks
 * MPI (vcpu_comm_relay_away); when that fails it posts its failure in the
 * world's segment and aborts the world (vcpu_comm_relay_post); a peer whose
 * own wait inside the host failed takes the posted failure instead of its
 * own (vcpu_comm_relay_take), waiting a bounded time for it while a rank is
 * still away in the same call. One failure per world: the first post wins
 * (a failed world is poisoned). Thread-safe, and safe between processes. */
#ifndef BACKPLANE_VCPU_COMM_RELAY_H_
#define BACKPLANE_VCPU_COMM_RELAY_H_

#include <stddef.h>
#include <stdint.h>

#include "comm/comm.h"

/* Marks rank `rank` of `world` as away in call `seq` of an enclosing world
 * (seq > 0), or back (0). Each rank marks only itself. */
void vcpu_comm_relay_away(vcpu_comm_world_t *world, size_t rank, uint64_t seq);

/* Posts a failure (`status` != BP_OK, from rank `by` of the enclosing world,
 * `message` copied, truncated to the segment's room) unless one was posted
 * already, then aborts the world and wakes its waiters. */
void vcpu_comm_relay_post(vcpu_comm_world_t *world, size_t by,
                          bp_status_t status, const char *message);

/* For a rank whose wait in call `seq` (the enclosing world's) failed: the
 * posted status, with its message in `message` and its poster in *out_by;
 * while some rank is away in that same call and nothing is posted yet,
 * waits for a post until `deadline_ns` (vcpu_now_ns), the world's abort for
 * another reason, or a peer's death. BP_OK when nothing was posted. */
bp_status_t vcpu_comm_relay_take(vcpu_comm_world_t *world, uint64_t seq,
                                 uint64_t deadline_ns, size_t *out_by,
                                 char *message, size_t capacity);

#endif /* BACKPLANE_VCPU_COMM_RELAY_H_ */
