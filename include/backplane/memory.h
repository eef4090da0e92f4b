/* Memory: device data space, pinned host and unified memory, memset, and one
 * copy call for every direction. All calls are thread-safe. */
#ifndef BACKPLANE_MEMORY_H_
#define BACKPLANE_MEMORY_H_

#include "backplane/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device memory of at least `size` bytes. A size of 0 gives a unique,
 * non-dereferenceable pointer that may be freed. BP_ERR_OUT_OF_MEMORY with a
 * message giving the sizes when the device is full. */
BP_API bp_status_t bp_device_malloc(bp_device_t *device, size_t size,
                                    void **out_ptr);
/* Frees memory from bp_device_malloc on the same device. NULL is a no-op; a
 * pointer never handed out (or freed twice) is BP_ERR_INVALID_ARGUMENT. */
BP_API bp_status_t bp_device_free(bp_device_t *device, void *ptr);

/* Page-locked host memory for fast copies (BP_ERR_UNSUPPORTED if the plugin
 * has none). */
BP_API bp_status_t bp_host_malloc(bp_device_t *device, size_t size,
                                  void **out_ptr);
BP_API bp_status_t bp_host_free(bp_device_t *device, void *ptr);
/* Memory addressable from host and device. */
BP_API bp_status_t bp_unified_malloc(bp_device_t *device, size_t size,
                                     void **out_ptr);
BP_API bp_status_t bp_unified_free(bp_device_t *device, void *ptr);

/* Fills `size` bytes of device memory with `value`. With a stream, ordered on
 * it; with NULL, done when the call returns. */
BP_API bp_status_t bp_memset(bp_device_t *device, void *ptr,
                             unsigned char value, size_t size,
                             bp_stream_t *stream);

/* Copies `size` bytes. A NULL device means host memory, so this one call does
 * host->device, device->host, device->device and device->device across
 * devices (host->host is a plain memcpy). With a stream (which must belong to
 * the source or the destination device) the copy is ordered on it and the
 * call returns at once; host memory must then stay valid until the stream
 * reaches the copy. With NULL the copy is complete on return. */
BP_API bp_status_t bp_copy(bp_device_t *dst_device, void *dst,
                           bp_device_t *src_device, const void *src,
                           size_t size, bp_stream_t *stream);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_MEMORY_H_ */
