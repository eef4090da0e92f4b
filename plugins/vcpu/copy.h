/* Copies in every direction. The synchronous ones run on the calling thread
 * (plus the device's copy helper for large copies, copier.h) and are not
 * ordered with streams: a caller that needs that drains the stream first, as
 * Paddle does. The async ones are commands on the stream.
 *
 * Argument checks (C_ERROR): a bad device or stream, a NULL pointer with a
 * non-zero size, or a device-side range [ptr, ptr + size) outside that
 * device's memory. A size of 0 is a successful no-op. For the p2p copies the
 * destination pointer must be in dst_device's memory, the source in
 * src_device's, and the stream must belong to one of the two devices.
 */
#ifndef BACKPLANE_VCPU_COPY_H_
#define BACKPLANE_VCPU_COPY_H_

#include <stddef.h>

#include "backplane/device_ext.h"

C_Status vcpu_memory_copy_h2d(const C_Device device, void *dst, const void *src,
                              size_t size);
C_Status vcpu_memory_copy_d2h(const C_Device device, void *dst, const void *src,
                              size_t size);
C_Status vcpu_memory_copy_d2d(const C_Device device, void *dst, const void *src,
                              size_t size);
C_Status vcpu_memory_copy_p2p(const C_Device dst_device,
                              const C_Device src_device, void *dst,
                              const void *src, size_t size);
C_Status vcpu_async_memory_copy_h2d(const C_Device device, C_Stream stream,
                                    void *dst, const void *src, size_t size);
C_Status vcpu_async_memory_copy_d2h(const C_Device device, C_Stream stream,
                                    void *dst, const void *src, size_t size);
C_Status vcpu_async_memory_copy_d2d(const C_Device device, C_Stream stream,
                                    void *dst, const void *src, size_t size);
C_Status vcpu_async_memory_copy_p2p(const C_Device dst_device,
                                    const C_Device src_device, C_Stream stream,
                                    void *dst, const void *src, size_t size);

#endif /* BACKPLANE_VCPU_COPY_H_ */
