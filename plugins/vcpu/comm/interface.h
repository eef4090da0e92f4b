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

/* How a plugin runs one call the xccl_* slots describe (a collective, or a
 * send or receive: d.kind >= VCPU_COMM_SEND). */
typedef C_Status (*vcpu_comm_call_fn)(vcpu_comm_desc_t d, C_CCLComm comm,
                                      C_Stream stream);

/* Sends the calls of the data-moving slots vcpu_comm_fill_interface assigns
 * (all_reduce, broadcast, reduce, all_gather, reduce_scatter, send, recv)
 * to `call` instead of the library's own run (NULL restores it): a plugin
 * that stages device memory wraps the run without restating the slots.
 * Per loaded plugin (each links the library); set it before use. */
void vcpu_comm_fill_calls(vcpu_comm_call_fn call);

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
