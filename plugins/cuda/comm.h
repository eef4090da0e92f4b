/* Collectives through NCCL behind the xccl_* functions: the unique id is
 * NCCL's (128 bytes), a communicator belongs to the calling thread's current
 * device (set_device) at xccl_comm_init_rank, and every collective runs on
 * the given stream (NULL: the device's legacy default stream). Group
 * start/end are NCCL's, so send/recv pairs (and all-to-all, built from them)
 * do not deadlock. The collectives extension adds abort and the
 * communicator's asynchronous error. NCCL is opened at run time
 * (nccl_library.h): without it every xccl_* call fails saying so. */
#ifndef BACKPLANE_CUDA_COMM_H_
#define BACKPLANE_CUDA_COMM_H_

#include "backplane/comm_ext.h"

extern const BP_CommExtension cu_comm_extension;

/* Fills the xccl_* slots of `table`. */
void cu_comm_fill_interface(C_DeviceInterface *table);

#endif /* BACKPLANE_CUDA_COMM_H_ */
