/* Small all_reduce in one meeting, for worlds with a segment (ranks as
 * threads or as processes): each rank copies its input into its area of the
 * world, small_inputs[rank][seq % 2], meets its peers once (step 1, which
 * also checks the call), and reduces every rank's copy into its own output.
 * No rank reads another's buffers, so in place needs nothing more, and the
 * collective ends at its first meeting: a rank rewrites the area of parity
 * seq % 2 only at seq + 2, after every peer reached step 1 of seq + 1, so
 * after each finished reading it. The area is apart from the staging slots
 * (comm/staged.h). */
#ifndef BACKPLANE_VCPU_COMM_SMALL_H_
#define BACKPLANE_VCPU_COMM_SMALL_H_

#include <stdbool.h>

#include "comm/comm.h"

/* Whether `desc` is an all_reduce small enough for vcpu_comm_small_all_reduce.
 */
bool vcpu_comm_small_all_reduce_fits(const vcpu_comm_desc_t *desc);

/* Runs the whole collective (including vcpu_comm_start_collective). BP_OK, or
 * the communicator's failure (timeout, abort, mismatched calls). */
bp_status_t vcpu_comm_small_all_reduce(C_CCLComm comm,
                                       const vcpu_comm_desc_t *desc,
                                       uint64_t deadline_ns);

#endif /* BACKPLANE_VCPU_COMM_SMALL_H_ */
