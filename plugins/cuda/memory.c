/* Device, pinned host and managed memory. */
#include "memory.h"

#include "cu.h"
#include "device.h"

enum { CU_ALIGNMENT = 256 }; /* cudaMalloc's guaranteed alignment */

/* The checks every allocation shares: a live device, an out-pointer and a
 * non-zero size. */
static cu_device_t *allocation_device(const C_Device device, void **ptr,
                                      size_t size, const char *function) {
  if (!ptr || size == 0) {
    cu_fail(C_ERROR, "cuda %s: %s", function,
            !ptr ? "ptr is NULL" : "size is 0 (expected at least 1 byte)");
    return NULL;
  }
  return cu_device_enter(device);
}

C_Status cu_device_memory_allocate(const C_Device device, void **ptr,
                                   size_t size) {
  if (!allocation_device(device, ptr, size, "device_memory_allocate"))
    return C_ERROR;
  cudaError_t error = cudaMalloc(ptr, size);
  return error == cudaSuccess ? C_SUCCESS : cu_fail_cuda(error, "cudaMalloc");
}

C_Status cu_device_memory_deallocate(const C_Device device, void *ptr,
                                     size_t size) {
  (void)size;
  if (!cu_device_enter(device))
    return C_ERROR;
  cudaError_t error = cudaFree(ptr);
  return error == cudaSuccess ? C_SUCCESS : cu_fail_cuda(error, "cudaFree");
}

C_Status cu_device_memory_set(const C_Device device, void *ptr,
                              unsigned char value, size_t size) {
  if (!cu_device_enter(device))
    return C_ERROR;
  if (!ptr && size)
    return cu_fail(C_ERROR, "cuda device_memory_set: ptr is NULL");
  /* cudaMemset does not wait for device memory: drain its stream. */
  cudaError_t error = cudaMemset(ptr, value, size);
  if (error == cudaSuccess)
    error = cudaStreamSynchronize(0);
  return error == cudaSuccess ? C_SUCCESS : cu_fail_cuda(error, "cudaMemset");
}

C_Status cu_host_memory_allocate(const C_Device device, void **ptr,
                                 size_t size) {
  if (!allocation_device(device, ptr, size, "host_memory_allocate"))
    return C_ERROR;
  cudaError_t error = cudaHostAlloc(ptr, size, cudaHostAllocPortable);
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaHostAlloc");
}

C_Status cu_host_memory_deallocate(const C_Device device, void *ptr,
                                   size_t size) {
  (void)size;
  if (!cu_device_enter(device))
    return C_ERROR;
  cudaError_t error = cudaFreeHost(ptr);
  return error == cudaSuccess ? C_SUCCESS : cu_fail_cuda(error, "cudaFreeHost");
}

C_Status cu_unified_memory_allocate(const C_Device device, void **ptr,
                                    size_t size) {
  if (!allocation_device(device, ptr, size, "unified_memory_allocate"))
    return C_ERROR;
  cudaError_t error = cudaMallocManaged(ptr, size, cudaMemAttachGlobal);
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaMallocManaged");
}

C_Status cu_unified_memory_deallocate(const C_Device device, void *ptr,
                                      size_t size) {
  return cu_device_memory_deallocate(device, ptr, size);
}

C_Status cu_device_memory_stats(const C_Device device, size_t *total,
                                size_t *free_memory) {
  if (!total || !free_memory)
    return cu_fail(C_ERROR, "cuda device_memory_stats: %s is NULL",
                   !total ? "total_memory" : "free_memory");
  if (!cu_device_enter(device))
    return C_ERROR;
  cudaError_t error = cudaMemGetInfo(free_memory, total);
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaMemGetInfo");
}

C_Status cu_device_min_chunk_size(const C_Device device, size_t *size) {
  if (!size)
    return cu_fail(C_ERROR, "cuda device_min_chunk_size: size is NULL");
  if (!cu_device_get(device))
    return C_ERROR;
  *size = CU_ALIGNMENT;
  return C_SUCCESS;
}

C_Status cu_device_max_alloc_size(const C_Device device, size_t *size) {
  if (!size)
    return cu_fail(C_ERROR, "cuda device_max_alloc_size: size is NULL");
  cu_device_t *dev = cu_device_get(device);
  if (!dev)
    return C_ERROR;
  *size = dev->properties.totalGlobalMem;
  return C_SUCCESS;
}
