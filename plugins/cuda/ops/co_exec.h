/* Where an op runs: the CUDA device of its context, made current on the
 * calling thread (its primary context), the native stream behind the
 * context's stream (bp_ops_native_stream), the library's kernels for that
 * device and its cuBLAS handle. An op checks its arguments first, then
 * begins; everything after is enqueued on the stream and nothing waits.
 *
 * Per device, once per process: the kernels (kernels/co_kernels.cu) are
 * compiled by NVRTC for the device's architecture (sm_XY; once per
 * architecture) and loaded into its primary context; cuBLAS is opened at
 * the first GEMM (libcublas.so.13 or .12, with dlopen). Thread-safe. */
#ifndef BACKPLANE_CUDA_OPS_EXEC_H_
#define BACKPLANE_CUDA_OPS_EXEC_H_

#include <stddef.h>

#include <diopi/diopirt.h>

#include "co_tensor.h"

#include "co_kernels.h"

enum { CO_BLOCK = 256 }; /* threads per block, as co_kernels.cu assumes */

struct co_device;

typedef struct co_exec {
  const char *op;
  diopiContextHandle_t ctx;
  struct co_device *dev;
  void *stream; /* cudaStream_t */
} co_exec_t;

/* Begins `op` on ctx's device: it must be a cuda device, every view in
 * views[0, count) (NULL entries skipped) must be memory of that device, and
 * the device's kernels must load. Fails naming the op (and the argument). */
diopiError_t co_begin(diopiContextHandle_t ctx, const char *op,
                      const co_view_t *const *views, int count, co_exec_t *out);

/* Launches `kernel` with its argument block over `elements` elements
 * (grid-stride: the grid is capped), or over exactly `blocks` blocks. */
diopiError_t co_launch(const co_exec_t *x, co_kernel_t kernel,
                       long long elements, const void *args);
diopiError_t co_launch_blocks(const co_exec_t *x, co_kernel_t kernel,
                              unsigned blocks, const void *args);

/* `bytes` of device scratch, released in stream order when the context is
 * cleared (diopiRequireBuffer). */
diopiError_t co_scratch(const co_exec_t *x, size_t bytes, void **out);

/* The device's cuBLAS handle, bound to the exec's stream, with its lock
 * held until co_cublas_end (cuBLAS handles are not thread-safe). */
diopiError_t co_cublas_begin(const co_exec_t *x, void **out_handle);
void co_cublas_end(const co_exec_t *x);

#endif /* BACKPLANE_CUDA_OPS_EXEC_H_ */
