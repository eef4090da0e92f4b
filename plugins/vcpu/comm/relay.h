/* A failure relayed between the ranks of a shared-memory world (internal).
 *
 * A rank may fail for a reason its peers cannot see: the host leader of a
 * hybrid world (comm/hybrid.h) is alone in the call between hosts, while
 * the other ranks of its host wait for it inside the host. Without a relay
 * they would only learn that their leader did not come. So the rank marks
 * itself away for the duration (vcpu_comm_relay_away), and when the call
 * fails it posts its status and message in the world's segment and aborts
 * the world (vcpu_comm_relay_post); a peer whose own wait failed takes the
 * relayed failure instead of its own (vcpu_comm_relay_take), waiting a
 * bounded time for it while the away rank has yet to post. One failure per
 * world: the first post wins (a failed world is poisoned). Thread-safe, and
 * safe between processes. */
#ifndef BACKPLANE_VCPU_COMM_RELAY_H_
#define BACKPLANE_VCPU_COMM_RELAY_H_

#include <stddef.h>
#include <stdint.h>

#include "comm/comm.h"

/* Marks a rank of `world` as away in call `seq` of an enclosing world (seq
 * > 0), or back (0). Only the one rank that can be away calls it. */
void vcpu_comm_relay_away(vcpu_comm_world_t *world, uint64_t seq);

/* Posts a failure (`status` != BP_OK, `message` copied, truncated to the
 * segment's room) unless one was posted already, then aborts the world and
 * wakes its waiters. */
void vcpu_comm_relay_post(vcpu_comm_world_t *world, bp_status_t status,
                          const char *message);

/* For a rank whose wait in call `seq` (the enclosing world's) failed: the
 * relayed status with its message in `message`, once one is posted; while
 * a rank is away in that same call and posted nothing yet, waits for its
 * post until `deadline_ns` (vcpu_now_ns), the world's abort for another
 * reason, or the away rank's death. BP_OK when nothing was relayed. */
bp_status_t vcpu_comm_relay_take(vcpu_comm_world_t *world, uint64_t seq,
                                 uint64_t deadline_ns, char *message,
                                 size_t capacity);

#endif /* BACKPLANE_VCPU_COMM_RELAY_H_ */
