/* Collectives, host-staged over the vcpu plugin's transports (threads of
 * this process, shared memory between processes of this host, Open MPI
 * between hosts), linked as the backplane_vcpu_comm library.
 *
 * Each call enqueues on its stream, in order: a copy of the device input
 * into pinned host staging (one CL_MEM_ALLOC_HOST_PTR buffer per call), the
 * collective on the staging buffers as a host callback of the stream (it
 * waits for its peers there, never on the caller's thread), a copy of the
 * staged result into the device output, and a callback that frees the
 * staging. Inside a group the copies in are enqueued at each call and the
 * copies out at the outermost group end, after the group's collectives.
 *
 * Communicators, unique ids, validation, sequence numbers, failure and
 * abort are the library's: messages name a "vcpu-comm" communicator, and
 * its thread-local last error explains a refused call. all_to_all is not
 * provided (Backplane composes it from sends and receives). Thread-safe. */
#ifndef BACKPLANE_OPENCL_COMM_H_
#define BACKPLANE_OPENCL_COMM_H_

#include "backplane/comm_ext.h"
#include "backplane/device_ext.h"

/* Assigns the xccl_* slots of `table`. */
void ocl_comm_fill_interface(C_DeviceInterface *table);

/* The comm extension (abort, async errors, last error, and the description
 * `backplane info` shows); next in the chain is the target kind. */
extern const BP_CommExtension ocl_comm_extension;

#endif /* BACKPLANE_OPENCL_COMM_H_ */
