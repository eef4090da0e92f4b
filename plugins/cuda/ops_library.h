/* What the op-library extension (BP_OpsLibraryExtension) says: the DIOPI op
 * library that serves CUDA devices (plugins/cuda/ops), relative to the
 * plugin's own file, and the cudaStream_t behind a plugin stream, which
 * that library enqueues its kernels and cuBLAS calls on. */
#ifndef BACKPLANE_CUDA_OPS_LIBRARY_H_
#define BACKPLANE_CUDA_OPS_LIBRARY_H_

#include "backplane/device_ext.h"

#define CU_OPS_LIBRARY_PATH "../ops/libbackplane_cuda_ops.so"

/* *out_native = the stream's cudaStream_t; C_ERROR for a stream that is not
 * a live stream of `device`. Thread-safe. */
C_Status cu_native_stream(const C_Device device, C_Stream stream,
                          void **out_native);

#endif /* BACKPLANE_CUDA_OPS_LIBRARY_H_ */
