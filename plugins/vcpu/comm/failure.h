/* A communicator's failures (internal): the first one poisons it, and
 * abort ends every rank's waits. */
#ifndef BACKPLANE_VCPU_COMM_FAILURE_H_
#define BACKPLANE_VCPU_COMM_FAILURE_H_

#include <stdbool.h>
#include <stddef.h>

#include "comm/comm.h"

/* Sets the world's abort flag: every rank's pending and later waits end with
 * BP_ERR_ABORTED promptly. Callable from any thread, never blocks. */
void vcpu_comm_abort(C_CCLComm comm);

/* BP_OK, or the first failure of this communicator with its message copied
 * into `message` (may be NULL) of `capacity` bytes. Thread-safe. */
bp_status_t vcpu_comm_error(C_CCLComm comm, char *message, size_t capacity);

/* Records the first failure (later ones are dropped), removes the world's
 * segment name (the rank gives up on the world) and returns `status`. */
bp_status_t vcpu_comm_fail(C_CCLComm comm, bp_status_t status,
                           const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* If the world was aborted because a peer process died (comm/liveness.h),
 * records BP_ERR_PEER_LOST, "<comm> rank <r>: <what>: peer lost: rank <k>
 * (pid <p>) ...", into *out_status and returns true. */
bool vcpu_comm_fail_if_peer_lost(C_CCLComm comm, const char *what,
                                 bp_status_t *out_status);

#endif /* BACKPLANE_VCPU_COMM_FAILURE_H_ */
