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
 * devices (host->host is a plain memmove). With NULL for the stream the copy
 * is complete on return (and not ordered after work queued on streams).
 * With a stream (which must belong to the source or the destination device,
 * or BP_STREAM_ACTIVE: the calling thread's active stream of the destination
 * device, of the source for a copy to host) the copy is ordered on it, and
 * host memory is the caller's again when the call returns:
 * - host->device from ordinary (pageable) memory: the data is captured
 *   before the return, through the device's pool of staging buffers
 *   (chunks of BP_COPY_STAGING_CHUNK bytes; a copy that fits one chunk runs
 *   on the calling thread when the stream is idle);
 * - device->host into pageable memory: returns when the data is there;
 * - memory from bp_host_malloc (of any device of the same plugin): enqueued,
 *   the call returns at once, and the buffer must stay valid and unmodified
 *   until the stream passes the copy (synchronize, an event, a callback).
 *   This is the way to overlap copies with other work.
 * Device->device copies are enqueued and return at once. */
BP_API bp_status_t bp_copy(bp_device_t *dst_device, void *dst,
                           bp_device_t *src_device, const void *src,
                           size_t size, bp_stream_t *stream);

/* The unit in which bp_copy stages pageable host->device copies on a
 * stream: a copy of more bytes is captured chunk by chunk, each chunk's
 * buffer returning to the pool when the stream has passed it. */
#define BP_COPY_STAGING_CHUNK ((size_t)1 << 20)

/* bp_copy without the host-buffer guarantee: with a stream, every host
 * buffer (pinned or not) is read or written when the stream reaches the
 * copy, and the caller promises to keep it valid and unmodified until then.
 * Same arguments, errors and NULL-stream behaviour as bp_copy. */
BP_API bp_status_t bp_copy_async_unsafe(bp_device_t *dst_device, void *dst,
                                        bp_device_t *src_device,
                                        const void *src, size_t size,
                                        bp_stream_t *stream);

/* Copies tensor `from` into tensor `to`, as TVM's CopyDataFromTo: each
 * side's device from its DLDevice (kDLCPU: host memory; kDLExtDev: the
 * runtime's device of that ordinal), data + byte_offset as the start.
 * Shapes and dtypes must match (the error names both). Strides (in
 * elements; NULL: compact row-major) may differ: each contiguous run is one
 * copy; a strided host side next to a compact device side is packed or
 * unpacked on the host around one copy; on one device every run is a copy
 * within the device, with no host round trip. `stream` as in bp_copy
 * (NULL, a stream of either device, or BP_STREAM_ACTIVE), with bp_copy's
 * host-buffer rules; a packed device->host copy is complete on return.
 * A tensor with no elements is a no-op. BP_ERR_INVALID_ARGUMENT for NULL
 * tensors or data, negative strides, a zero stride in `to` over more than
 * one element, mismatched shapes or dtypes, another device type;
 * BP_ERR_NOT_FOUND for a kDLExtDev ordinal the runtime does not have. */
BP_API bp_status_t bp_copy_tensor(bp_runtime_t *runtime, const DLTensor *from,
                                  DLTensor *to, bp_stream_t *stream);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_MEMORY_H_ */
