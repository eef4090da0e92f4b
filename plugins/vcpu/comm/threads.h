/* The single-copy collective algorithms, for ranks whose buffers this process
 * can address: virtual devices driven by stream worker threads of this
 * process, or processes whose device arenas are mapped here (comm/arena_map.h).
 * Each function runs on
 * the calling rank's stream worker and returns when this rank's part is done;
 * the work is split across the ranks: all_reduce is a reduce-scatter (rank r
 * reduces the r-th chunk of every input, reading peers' buffers in place)
 * followed by an all-gather of the reduced chunks. On failure the
 * communicator is poisoned (vcpu_comm_fail) and the status returned. */
#ifndef BACKPLANE_VCPU_COMM_THREADS_H_
#define BACKPLANE_VCPU_COMM_THREADS_H_

#include "comm/comm.h"

/* The rest of one collective (kind < VCPU_COMM_SEND) after
 * vcpu_comm_start_collective(), when every rank's buffers are addressable here:
 * peers[r] is rank r's call with its buffers as this process sees them
 * (the published descs when all ranks live in this process, translated into
 * mapped device arenas otherwise). Meetings use steps `step`, `step + 1`. */
bp_status_t vcpu_comm_threads_collective(C_CCLComm comm,
                                         const vcpu_comm_desc_t *desc,
                                         const vcpu_comm_desc_t *peers,
                                         unsigned step, uint64_t deadline_ns);

#endif /* BACKPLANE_VCPU_COMM_THREADS_H_ */
