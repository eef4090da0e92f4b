/* Hybrid worlds over MPI: when a world runs over MPI (comm/mpi.h), spans
 * several hosts and some host holds several of its ranks, the ranks of each
 * host form a shared-memory world of their own (comm/segment.h, named from
 * the world's secret and the host's index) and each host's lowest rank, its
 * leader, talks MPI to the other leaders.
 *
 * all_reduce, reduce and broadcast are hierarchical: reduce inside the host
 * over shared memory, then MPI among the leaders, then broadcast (or, for a
 * reduce whose root is not a leader, one send) inside the host. When every
 * host holds as many ranks, a large all_reduce runs on rails instead
 * (hybrid.c): reduce_scatter inside the host, each slice's all_reduce among
 * the ranks at one place on every host, all_gather inside the host. all_gather,
 * reduce_scatter, send, recv and all_to_all stay on MPI among every rank.
 * The ranks' calls are checked without a message of their own: each stage
 * carries the whole call (vcpu_comm_desc_t.stage_of), the host's ranks
 * compare theirs at the host stage's first meeting (before the leaders'
 * stage, also for a broadcast's hosts that receive), the leaders beside
 * their MPI data, and a leader whose host disagreed still joins the leaders
 * marked so, so every rank sees a mismatch of these three collectives (one
 * of them against all_gather, reduce_scatter or send/recv, which never
 * meet, ends at the deadline). Every stage keeps the call's deadline; a
 * host's ranks share the abort flag of their shared-memory world, so an
 * abort stops the caller's host at once and the other hosts at the
 * deadline. A rank whose own MPI stage (the leaders' call between hosts, or
 * its rail's) fails relays its failure to the other ranks of its host
 * (comm/relay.h), stopping those still away over MPI, which report it in
 * place of the wait inside the host it left them in: every rank names the
 * ranks or hosts that were lost, with their world ranks.
 *
 * Settings, read at communicator creation and the same on every rank:
 * BACKPLANE_COMM_HYBRID=0 turns the hybrid off (MPI for everything);
 * BACKPLANE_COMM_RANKS_PER_HOST=K groups ranks as if rank r ran on host r / K
 * (to try the hybrid on one machine); unset, ranks are grouped by their MPI
 * processor name. */
#ifndef BACKPLANE_VCPU_COMM_HYBRID_H_
#define BACKPLANE_VCPU_COMM_HYBRID_H_

#include "comm/comm.h"

/* Called by every rank right after the module made `world` (world->mpi and
 * world->mpi_handle set, id and rank those of the call). When the hybrid
 * applies, world->mpi then dispatches through the hybrid, which owns the
 * module's handle, and world->aborted / world->signal are the host world's;
 * otherwise the world is left as it was. BP_OK, or a failure with
 * vcpu_comm_last_error() set, the world unchanged (the caller destroys it). */
bp_status_t vcpu_comm_hybrid_setup(vcpu_comm_world_t *world,
                                   const vcpu_comm_unique_id_t *id, size_t rank,
                                   uint64_t deadline_ns);

/* Whether `world` dispatches through the hybrid (for tests and
 * diagnostics). */
bool vcpu_comm_hybrid_in_use(const vcpu_comm_world_t *world);

/* This rank's communicator of its host's shared-memory world in a hybrid
 * `world`; NULL when the world is not hybrid or the rank is alone on its
 * host (for tests and diagnostics). */
C_CCLComm vcpu_comm_hybrid_host_comm(const vcpu_comm_world_t *world);

/* Whether the hybrid `world` runs the all_reduce `desc` on rails (every
 * rank over MPI at once, hybrid.c) rather than through the host leaders
 * (for tests and diagnostics). */
bool vcpu_comm_hybrid_on_rails(const vcpu_comm_world_t *world,
                               const vcpu_comm_desc_t *desc);

/* The id of host `host`'s shared-memory world within the world `id` names
 * (its token and secret are mixes of the world's and the host index). */
void vcpu_comm_hybrid_host_id(const vcpu_comm_unique_id_t *id, size_t host,
                              vcpu_comm_unique_id_t *out_id);

#endif /* BACKPLANE_VCPU_COMM_HYBRID_H_ */
