/* The kernels extension over OpenCL programs (kernel_ext.h).
 *
 * Modules: OpenCL C source (BP_MODULE_KIND_OPENCL_C), SPIR-V
 * (BP_MODULE_KIND_SPIRV, only where CL_DEVICE_IL_VERSION names one) or a
 * program binary of a previous build (BP_MODULE_KIND_OPENCL_BINARY), built
 * for the device; a failed build's log comes back in the error. Functions
 * are the program's kernels (CL_PROGRAM_KERNEL_NAMES lists them).
 *
 * The argument contract: a kernel takes no argument, or exactly one, a
 * struct passed by value whose OpenCL C layout matches the host's param
 * block byte for byte (`kernel void k(struct my_param p)`); launch sets it
 * with clSetKernelArg(kernel, 0, args_size, args), which copies it. A block
 * of the wrong size is CL_INVALID_ARG_SIZE where the driver checks struct
 * sizes (POCL does not: the kernel then reads garbage). Device
 * pointers inside the block are 64-bit integers the kernel casts back to
 * `global T *`; they work on the SVM memory path only (the plugin declares
 * them with CL_KERNEL_EXEC_INFO_SVM_PTRS). On the buffer path a param block
 * holding a device address is refused as unsupported (ocl_unsupported: the
 * host sees BP_ERR_UNSUPPORTED): a cl_mem cannot ride inside a struct.
 *
 * Generated modules (OpenCL C whose first line is
 * BP_OPENCL_GENERATED_MARKER, from Backplane's opencl builder) follow
 * another contract, kernel_generated.c: a function is the descriptor's,
 * one launch runs its stage kernels in order with the param block's device
 * pointers as kernel arguments (both memory paths) and per-launch scratch;
 * `blocks` is ignored (each stage is sized by its elements).
 *
 * Launch: `blocks` work-groups of the kernel's preferred work-group size
 * multiple (capped by its maximum work-group size); get_group_id(0) is the
 * block index, get_num_groups(0) the count. OpenCL kernels return nothing,
 * so there are no error codes; a command that fails (negative execution
 * status) leaves a sticky BP_ERR_PLUGIN. OpenCL cannot cancel a kernel:
 * synchronize_stream waits for each launch until its deadline, and past it
 * reports a sticky BP_ERR_TIMEOUT naming the kernel and returns; the kernel
 * runs on and the queue behind it waits for it.
 *
 * Notifies are host-side (kernel_notify.c): record and wait-and-reset on
 * streams, with the timeout; OpenCL C has no device-side wait or record, so
 * kernels cannot use them and the ids only name them. Communication-kernel
 * resources are not supported (C_ERROR with the reason: no device-side
 * channels). Every function is thread-safe. */
#ifndef BACKPLANE_OPENCL_KERNEL_H_
#define BACKPLANE_OPENCL_KERNEL_H_

#include "backplane/kernel_ext.h"
#include "stream.h"

extern const BP_KernelExtension ocl_kernels;

/* Per-stream launch state (stream.c creates and destroys it with the
 * stream). NULL when out of host memory. */
struct ocl_stream_kernels *ocl_stream_kernels_create(void);
void ocl_stream_kernels_destroy(struct ocl_stream_kernels *kernels);

/* Waits for the stream's launches, each until its deadline; a launch past
 * it becomes the stream's sticky BP_ERR_TIMEOUT and the wait ends there
 * (true). false when every launch completed. */
bool ocl_stream_kernels_wait(struct C_Stream_st *stream);

/* true while the stream holds a sticky error: query_stream then answers
 * "done" so the host asks stream_error and reports it, even while a timed-out
 * kernel still runs. */
bool ocl_stream_kernels_failed(struct C_Stream_st *stream);

#endif /* BACKPLANE_OPENCL_KERNEL_H_ */
