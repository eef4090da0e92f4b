/* Making and destroying communicators (internal). The choice of a world's
 * transport is comm/transport.h, above the transports; this sits below them,
 * since the hybrid transport makes a shared-memory communicator per host. */
#ifndef BACKPLANE_VCPU_COMM_CREATE_H_
#define BACKPLANE_VCPU_COMM_CREATE_H_

#include <stddef.h>
#include <stdint.h>

#include "comm/comm.h"

/* Makes (or joins) the world of rank `rank` and returns it in *out_world;
 * BP_OK or a status with vcpu_comm_last_error() set. */
typedef bp_status_t (*vcpu_comm_world_maker_t)(const vcpu_comm_unique_id_t *id,
                                               size_t nranks, size_t rank,
                                               uint64_t deadline_ns,
                                               vcpu_comm_world_t **out_world);

/* Rank `rank`'s communicator on the world `make_world` gives (its deadline
 * is BACKPLANE_COMM_TIMEOUT_MS from now). The arguments are valid. */
bp_status_t vcpu_comm_create_in(size_t nranks, const vcpu_comm_unique_id_t *id,
                                size_t rank, vcpu_comm_world_maker_t make_world,
                                C_CCLComm *out_comm);

/* vcpu_comm_create over this host's shared memory whatever
 * BACKPLANE_COMM_TRANSPORT says, from a parsed id; rank < nranks <= 4096.
 * For the per-host worlds of the hybrid transport (comm/hybrid.h). */
bp_status_t vcpu_comm_create_on_host(size_t nranks,
                                     const vcpu_comm_unique_id_t *id,
                                     size_t rank, C_CCLComm *out_comm);

/* Waits until every call handed to a stream has run (each ends within the
 * communicator's deadline, like NCCL's destroy finalizing first), then
 * detaches from the world and removes its segment's name if it still has
 * one; the last communicator of the process unmaps it. Must not be called
 * from a stream worker that still has calls of this communicator queued. */
void vcpu_comm_destroy(C_CCLComm comm);

#endif /* BACKPLANE_VCPU_COMM_CREATE_H_ */
