/* The kernels extension over CUDA modules (kernel_ext.h).
 *
 * Modules: CUDA C source (compiled by NVRTC for the device's architecture,
 * sm_XY from its compute capability; a failed build's log comes back in
 * the error), PTX (JIT-compiled by the driver), cubin or fatbin, loaded with
 * cuModuleLoadData into the device's primary context. The format is read
 * from the bytes (an ELF of machine EM_CUDA is a cubin, the fatbin magic a
 * fatbin, text with a `.version` and a `.target` directive PTX, any other
 * text CUDA C), whatever kind the host passes; a host shared object is
 * refused as unsupported. The driver API comes from libcuda.so.1 opened at
 * run time (driver.h). Function names come from the module
 * (cuModuleEnumerateFunctions, CUDA 12.4 drivers and later); kernels must be
 * `extern "C"` to be found by their plain names.
 *
 * Generated modules (CUDA C from Backplane's cuda builder, first line
 * BP_CUDA_GENERATED_MARKER; generated_module.h): NVRTC compiles them for the
 * architecture they were built for (or refuses one the device cannot run),
 * and their functions are the IR's: one launch runs the stage kernels in
 * order on the stream, each on at most `blocks` blocks, with scratch for the
 * intermediate stages from the stream-ordered pool (kernel_generated.c).
 *
 * The argument contract: a kernel takes no argument, or exactly one, a
 * struct passed by value whose CUDA C layout matches the host's param block
 * byte for byte (`extern "C" __global__ void k(my_param p)`); cuLaunchKernel
 * copies the block at launch. Device pointers inside it are plain pointers.
 * A kernel that reports a code takes one more parameter, `unsigned *status`
 * (kernel_status.h): a non-zero code written there becomes the stream's
 * sticky BP_ERR_PLUGIN naming the kernel and the code. Parameters are
 * counted with cuFuncGetParamInfo (CUDA 12.4 drivers and later).
 *
 * Launch: `blocks` is the grid (gridDim.x; blockIdx.x is the block index),
 * each block CU_BLOCK_THREADS threads (capped by the kernel's maximum), on
 * the stream. A fault the stream reports later becomes its sticky
 * BP_ERR_PLUGIN naming the last kernel; a launch with
 * config->timeout_ns sets a deadline synchronize_stream waits until, past
 * which the stream holds a sticky BP_ERR_TIMEOUT (the kernel runs on: CUDA
 * cannot cancel it). Notifies and communication-kernel resources are not
 * supported (BP_ERR_UNSUPPORTED). Every function is thread-safe. */
#ifndef BACKPLANE_CUDA_KERNEL_H_
#define BACKPLANE_CUDA_KERNEL_H_

#include "backplane/kernel_ext.h"
#include "stream.h"

/* The CUDA module formats a host may name (BP_MODULE_KIND_VENDOR up); the
 * plugin reads the format from the bytes whatever the kind says. */
enum {
  CU_MODULE_KIND_CUDA_C = BP_MODULE_KIND_VENDOR + 0x100,
  CU_MODULE_KIND_PTX,
  CU_MODULE_KIND_CUBIN,
  CU_MODULE_KIND_FATBIN,
};

enum { CU_BLOCK_THREADS = 256 };

extern const BP_KernelExtension cu_kernels;

#endif /* BACKPLANE_CUDA_KERNEL_H_ */
