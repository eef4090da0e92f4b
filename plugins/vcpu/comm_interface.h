/* The vcpu plugin's xccl_* entry points (C_DeviceInterface collective slots)
 * and Backplane's communicator extension functions. */
#ifndef BACKPLANE_VCPU_COMM_INTERFACE_H_
#define BACKPLANE_VCPU_COMM_INTERFACE_H_

#include "backplane/device_ext.h"
#include "comm_ops.h"

/* Assigns every xccl_* slot of `interface` and installs `enqueue` as the
 * stream hand-off of collective tasks. */
void vcpu_comm_fill_interface(C_DeviceInterface *interface,
                              comm_enqueue_fn enqueue);

/* Sets the communicator's world abort flag (any thread, never blocks).
 * C_ERROR for NULL. */
C_Status vcpu_comm_abort(C_CCLComm comm);

/* C_SUCCESS with *out_status = BP_OK while healthy, else the first failure's
 * bp_status_t and its message (copied into `message`, `capacity` bytes;
 * message may be NULL). C_ERROR for a NULL comm or out_status. */
C_Status vcpu_comm_get_async_error(C_CCLComm comm, int *out_status,
                                   char *message, size_t capacity);

/* The calling thread's message for its last rejected xccl_* call. */
const char *vcpu_comm_last_error(void);

#endif /* BACKPLANE_VCPU_COMM_INTERFACE_H_ */
