/* Memory: device memory (cudaMalloc), pinned host memory (cudaHostAlloc,
 * portable: every device copies from it directly) and managed memory
 * (cudaMallocManaged), with cudaMemGetInfo's figures as the memory stats.
 * Sizes and alignment: CUDA's (256 bytes). Thread-safe. */
#ifndef BACKPLANE_CUDA_MEMORY_H_
#define BACKPLANE_CUDA_MEMORY_H_

#include "backplane/device_ext.h"

C_Status cu_device_memory_allocate(const C_Device device, void **ptr,
                                   size_t size);
C_Status cu_device_memory_deallocate(const C_Device device, void *ptr,
                                     size_t size);
C_Status cu_device_memory_set(const C_Device device, void *ptr,
                              unsigned char value, size_t size);
C_Status cu_host_memory_allocate(const C_Device device, void **ptr,
                                 size_t size);
C_Status cu_host_memory_deallocate(const C_Device device, void *ptr,
                                   size_t size);
C_Status cu_unified_memory_allocate(const C_Device device, void **ptr,
                                    size_t size);
C_Status cu_unified_memory_deallocate(const C_Device device, void *ptr,
                                      size_t size);
C_Status cu_device_memory_stats(const C_Device device, size_t *total,
                                size_t *free_memory);
C_Status cu_device_min_chunk_size(const C_Device device, size_t *size);
C_Status cu_device_max_alloc_size(const C_Device device, size_t *size);

#endif /* BACKPLANE_CUDA_MEMORY_H_ */
