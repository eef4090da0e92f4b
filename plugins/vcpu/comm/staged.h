/* The collective algorithms for worlds whose ranks live in several processes
 * of one host: data is staged through each rank's slot in the world segment
 * (comm/segment.h), a slot-sized round at a time. Per round every rank copies
 * its input in; small rounds are then reduced whole by every rank (one-shot,
 * two meetings), large ones reduce-scattered (rank r reduces the r-th chunk
 * of every slot) and gathered back out (three meetings). Runs on the rank's
 * stream worker; on failure the communicator is poisoned (vcpu_comm_fail). */
#ifndef BACKPLANE_VCPU_COMM_STAGED_H_
#define BACKPLANE_VCPU_COMM_STAGED_H_

#include "comm/comm.h"

/* The rest of one collective (kind < VCPU_COMM_SEND) after
 * vcpu_comm_start_collective(), when some rank lives in another process and the
 * buffers cannot be shared (comm/arena_map.h). Meetings use steps from `step`
 * on. */
bp_status_t vcpu_comm_staged_collective(C_CCLComm comm,
                                        const vcpu_comm_desc_t *desc,
                                        unsigned step, uint64_t deadline_ns);

#endif /* BACKPLANE_VCPU_COMM_STAGED_H_ */
