/* Sends and receives. A batch (the p2p calls of one group, or one lone call)
 * is progressed as a whole: every pass tries each unfinished call, so none of
 * them blocks another. Between ranks of one process the receiver copies
 * straight from the sender's buffer; between processes the bytes stream
 * through the pair's staging buffer in the world segment, chunk by chunk.
 * Runs on the rank's stream worker; on failure the communicator is poisoned
 * (vcpu_comm_fail) and the status returned. */
#ifndef BACKPLANE_VCPU_COMM_P2P_H_
#define BACKPLANE_VCPU_COMM_P2P_H_

#include "comm/comm.h"

/* ops: kind VCPU_COMM_SEND/VCPU_COMM_RECV, peer, and seq = the message number
 * of that ordered pair. Returns when all are done, or the deadline passed, or
 * the world was aborted, or a send and its receive disagreed on count/type. */
bp_status_t vcpu_comm_p2p_run(C_CCLComm comm, const vcpu_comm_desc_t *ops,
                              size_t n, uint64_t deadline_ns);

#endif /* BACKPLANE_VCPU_COMM_P2P_H_ */
