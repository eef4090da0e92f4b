/* The single-copy collective algorithms, for ranks whose buffers this process
 * can address: virtual devices driven by stream worker threads of this
 * process, or processes whose device arenas are mapped here (comm/arena_map.h).
 * Each function runs on
 * the calling rank's stream worker and returns when this rank's part is done;
 * the work is split across the ranks: all_reduce is a reduce-scatter (rank r
 * reduces the r-th chunk of every input, reading peers' buffers in place)
 * followed by an all-gather of the reduced chunks. On failure the
 * communicator is poisoned (comm_fail) and the status returned. */
#ifndef BACKPLANE_VCPU_COMM_THREADS_H_
#define BACKPLANE_VCPU_COMM_THREADS_H_

#include "comm/comm.h"

/* The rest of one collective (kind < COMM_SEND) after
 * comm_start_collective(), when every rank's buffers are addressable here:
 * peers[r] is rank r's call with its buffers as this process sees them
 * (the published descs when all ranks live in this process, translated into
 * mapped device arenas otherwise). Meetings use steps `step`, `step + 1`. */
bp_status_t comm_threads_collective(C_CCLComm comm, const comm_desc *desc,
                                    const comm_desc *peers, unsigned step,
                                    uint64_t deadline_ns);

#endif /* BACKPLANE_VCPU_COMM_THREADS_H_ */
