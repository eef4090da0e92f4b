/* The collective algorithms for ranks that share this process's address space
 * (virtual devices driven by stream worker threads). Each function runs on
 * the calling rank's stream worker and returns when this rank's part is done;
 * the work is split across the ranks: all_reduce is a reduce-scatter (rank r
 * reduces the r-th chunk of every input, reading peers' buffers in place)
 * followed by an all-gather of the reduced chunks. On failure the
 * communicator is poisoned (comm_fail) and the status returned. */
#ifndef BACKPLANE_VCPU_COMM_THREADS_H_
#define BACKPLANE_VCPU_COMM_THREADS_H_

#include "comm.h"

/* The rest of one collective (kind < COMM_SEND) after
 * comm_start_collective(), when every rank lives in this process. */
bp_status_t comm_threads_collective(C_CCLComm comm, const comm_desc *desc,
                                    uint64_t deadline_ns);

#endif /* BACKPLANE_VCPU_COMM_THREADS_H_ */
