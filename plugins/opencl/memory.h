/* Device memory, behind pointers a framework may offset like any device
 * pointer. Two paths, chosen per device at initialize (config.h):
 *
 *  - SVM: clSVMAlloc (coarse-grained); the pointer is the SVM pointer and
 *    OpenCL takes it, offset or not, in copies, fills and kernel arguments.
 *  - buffer: clCreateBuffer, placed at a made-up address inside a range the
 *    device reserved (allocations.h); a pointer is traced back to (cl_mem,
 *    offset) for every command. This is what devices without SVM (NVIDIA's
 *    OpenCL) use; BACKPLANE_OPENCL_MEMORY=buffer forces it anywhere.
 *
 * Either way the plugin accounts what it handed out against the device's
 * capacity (CL_DEVICE_GLOBAL_MEM_SIZE or BACKPLANE_OPENCL_MEMORY_LIMIT):
 * beyond it, or beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE in one piece, an
 * allocation is C_FAILED (out of memory), as is an OpenCL allocation
 * failure. Size 0 allocates nothing (*ptr = NULL); freeing (NULL, 0) is a
 * no-op; freeing a pointer that is not the start of a live allocation, or
 * with another size, is C_ERROR. Freeing SVM first drains the device (SVM
 * has no reference counting: a queued command may still use it).
 *
 * Host memory is pinned: a CL_MEM_ALLOC_HOST_PTR buffer mapped for reading
 * and writing for its whole life. Unified memory is fine-grained SVM where
 * the device has it (C_ERROR elsewhere). All functions are thread-safe.
 */
#ifndef BACKPLANE_OPENCL_MEMORY_H_
#define BACKPLANE_OPENCL_MEMORY_H_

#include <stdbool.h>
#include <stddef.h>

#include "device.h"

/* Where a device-side range lives, for one command. */
typedef struct ocl_region {
  void *svm;     /* the SVM pointer (SVM path), else NULL */
  cl_mem buffer; /* the buffer (buffer path, retained), else NULL */
  size_t offset; /* in `buffer` */
} ocl_region_t;

/* Resolves [ptr, ptr + size) on `dev`: C_ERROR (with a message naming the
 * pointer) unless the range lies inside one live allocation. A buffer is
 * retained; release it with ocl_region_release once it is enqueued. */
C_Status ocl_memory_resolve(ocl_device_t *dev, const void *ptr, size_t size,
                            ocl_region_t *out);
void ocl_region_release(ocl_region_t *region);

/* Called by device.c: reserve the address range of the buffer path; free
 * what is still allocated (reported on stderr) at finalize. */
bool ocl_memory_set_up(ocl_device_t *dev);
void ocl_memory_tear_down(ocl_device_t *dev);

C_Status ocl_device_memory_allocate(const C_Device device, void **ptr,
                                    size_t size);
C_Status ocl_device_memory_deallocate(const C_Device device, void *ptr,
                                      size_t size);
C_Status ocl_host_memory_allocate(const C_Device device, void **ptr,
                                  size_t size);
C_Status ocl_host_memory_deallocate(const C_Device device, void *ptr,
                                    size_t size);
C_Status ocl_unified_memory_allocate(const C_Device device, void **ptr,
                                     size_t size);
C_Status ocl_unified_memory_deallocate(const C_Device device, void *ptr,
                                       size_t size);

/* total = capacity, free = capacity minus what is allocated. */
C_Status ocl_device_memory_stats(const C_Device device, size_t *total,
                                 size_t *free_memory);
/* min_chunk: CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 512 bytes;
 * max_chunk: CL_DEVICE_MAX_MEM_ALLOC_SIZE, at most capacity / 4 and at least
 * 2 MiB; max_alloc: capacity. The growth sizes are the host's defaults. */
C_Status ocl_device_min_chunk_size(const C_Device device, size_t *size);
C_Status ocl_device_max_chunk_size(const C_Device device, size_t *size);
C_Status ocl_device_max_alloc_size(const C_Device device, size_t *size);

#endif /* BACKPLANE_OPENCL_MEMORY_H_ */
