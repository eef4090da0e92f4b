/* The vcpu plugin's xccl_* entry points (C_DeviceInterface collective slots)
 * and Backplane's communicator extension functions. */
#ifndef BACKPLANE_VCPU_COMM_INTERFACE_H_
#define BACKPLANE_VCPU_COMM_INTERFACE_H_

#include "backplane/comm_ext.h"
#include "backplane/device_ext.h"
#include "comm/ops.h"

/* The C_Status an xccl_* function returns for `status`: C_ERROR for bad
 * arguments or an unsupported call, C_FAILED for a failure. */
C_Status vcpu_comm_c_status(bp_status_t status);

/* Assigns every xccl_* slot of `interface`. A plugin whose device memory the
 * host cannot touch keeps the communicator slots (ids, init, destroy) and
 * replaces those that move data. */
void vcpu_comm_fill_interface(C_DeviceInterface *interface);

/* The plugin's BP_CommExtension (comm_ext.h), the last of its chain. */
extern const BP_CommExtension vcpu_comm_extension;

/* BP_CommExtension.comm_abort: sets the world's abort flag (any thread,
 * never blocks). C_ERROR for NULL. */
C_Status vcpu_comm_ext_abort(C_CCLComm comm);

/* BP_CommExtension.comm_get_async_error. C_ERROR for a NULL comm or
 * out_status. */
C_Status vcpu_comm_ext_get_async_error(C_CCLComm comm, int32_t *out_status,
                                       char *message, size_t capacity);

/* BP_CommExtension.last_error is vcpu_comm_last_error (comm/comm.h): the
 * calling thread's message for its last rejected xccl_* call. */

#endif /* BACKPLANE_VCPU_COMM_INTERFACE_H_ */
