/* Copies in every direction, synchronous and on a stream, and between
 * devices (cudaMemcpyPeer: direct where peer access is enabled, staged by
 * CUDA otherwise). Pointers are unified addresses, so each copy names its
 * direction only for the contract. Asynchronous copies from and to pageable
 * host memory do not wait for the stream (staged_copy.h). A synchronous copy
 * is complete on return and not ordered after work on the plugin's
 * (non-blocking) streams, as the framework face documents for copies without
 * a stream. Thread-safe. */
#ifndef BACKPLANE_CUDA_COPY_H_
#define BACKPLANE_CUDA_COPY_H_

#include "stream.h"

C_Status cu_memory_copy_h2d(const C_Device device, void *dst, const void *src,
                            size_t size);
C_Status cu_memory_copy_d2h(const C_Device device, void *dst, const void *src,
                            size_t size);
C_Status cu_memory_copy_d2d(const C_Device device, void *dst, const void *src,
                            size_t size);
C_Status cu_memory_copy_p2p(const C_Device dst_device,
                            const C_Device src_device, void *dst,
                            const void *src, size_t size);
C_Status cu_async_memory_copy_h2d(const C_Device device, C_Stream stream,
                                  void *dst, const void *src, size_t size);
C_Status cu_async_memory_copy_d2h(const C_Device device, C_Stream stream,
                                  void *dst, const void *src, size_t size);
C_Status cu_async_memory_copy_d2d(const C_Device device, C_Stream stream,
                                  void *dst, const void *src, size_t size);
C_Status cu_async_memory_copy_p2p(const C_Device dst_device,
                                  const C_Device src_device, C_Stream stream,
                                  void *dst, const void *src, size_t size);

#endif /* BACKPLANE_CUDA_COPY_H_ */
