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

/* xccl_comm_init_rank whose communicator sends the calls of the
 * data-moving slots vcpu_comm_fill_interface assigns (all_reduce,
 * broadcast, reduce, all_gather, reduce_scatter, send, recv) to `call`
 * (comm/comm.h's vcpu_comm_call_fn) instead of the library's own run (NULL:
 * the library's): a plugin that stages device memory wraps the run without
 * restating the slots, from its own xccl_comm_init_rank. The choice lives
 * in the communicator, so nothing process-wide is written: plugins and
 * runtimes on any threads never race on it. */
C_Status vcpu_comm_init_rank_calling(size_t nranks, C_CCLRootId *unique_id,
                                     size_t rank, vcpu_comm_call_fn call,
                                     C_CCLComm *comm);

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
