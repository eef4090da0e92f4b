/* Copies and memset. The synchronous copies run on the device's own queue
 * and return when done; they are not ordered with streams (a caller that
 * needs that drains the stream first, as Paddle does). The async ones are
 * commands of the stream, flushed at once; the host side of an async copy
 * must stay valid until the stream reaches it.
 *
 * A device-side range must lie inside one allocation of that device
 * (memory.h), else C_ERROR; so must both ranges of a d2d copy, which must
 * not overlap. Size 0 is a successful no-op. Peer copies are left to the
 * host (a bounce through host memory): each device is a context of its
 * own. device_memory_set is clEnqueueFillBuffer / clEnqueueSVMMemFill,
 * synchronous.
 */
#ifndef BACKPLANE_OPENCL_COPY_H_
#define BACKPLANE_OPENCL_COPY_H_

#include <stddef.h>

#include "backplane/device_ext.h"

C_Status ocl_memory_copy_h2d(const C_Device device, void *dst, const void *src,
                             size_t size);
C_Status ocl_memory_copy_d2h(const C_Device device, void *dst, const void *src,
                             size_t size);
C_Status ocl_memory_copy_d2d(const C_Device device, void *dst, const void *src,
                             size_t size);
C_Status ocl_async_memory_copy_h2d(const C_Device device, C_Stream stream,
                                   void *dst, const void *src, size_t size);
C_Status ocl_async_memory_copy_d2h(const C_Device device, C_Stream stream,
                                   void *dst, const void *src, size_t size);
C_Status ocl_async_memory_copy_d2d(const C_Device device, C_Stream stream,
                                   void *dst, const void *src, size_t size);
C_Status ocl_device_memory_set(const C_Device device, void *ptr,
                               unsigned char value, size_t size);

#endif /* BACKPLANE_OPENCL_COPY_H_ */
