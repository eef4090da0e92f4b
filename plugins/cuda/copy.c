/* Copies through cudaMemcpy*. */
#include "copy.h"

#include "staged_copy.h"

/* The synchronous copies return once the bytes have landed: cudaMemcpy does
 * not wait for device-to-device copies, nor cudaMemcpyPeer at all, so each
 * one also drains the legacy default stream it ran on. */
static C_Status finish(cudaError_t error, const char *what) {
  if (error == cudaSuccess)
    error = cudaStreamSynchronize(0);
  return error == cudaSuccess ? C_SUCCESS : cu_fail_cuda(error, what);
}

/* The checks every copy shares; NULL (with a message) when one fails. */
static cu_device_t *copy_device(const C_Device device, void *dst,
                                const void *src, size_t size,
                                const char *function) {
  if (size && (!dst || !src)) {
    cu_fail(C_ERROR, "cuda %s: %s is NULL for a copy of %zu bytes", function,
            !dst ? "dst" : "src", size);
    return NULL;
  }
  return cu_device_enter(device);
}

static C_Status copy(const C_Device device, void *dst, const void *src,
                     size_t size, enum cudaMemcpyKind kind,
                     const char *function) {
  if (!copy_device(device, dst, src, size, function))
    return C_ERROR;
  if (size == 0)
    return C_SUCCESS;
  return finish(cudaMemcpy(dst, src, size, kind), "cudaMemcpy");
}

static C_Status copy_async(const C_Device device, C_Stream handle, void *dst,
                           const void *src, size_t size,
                           enum cudaMemcpyKind kind, const char *function) {
  cu_device_t *dev = copy_device(device, dst, src, size, function);
  struct C_Stream_st *stream = cu_stream_of(dev, handle);
  if (!stream)
    return C_ERROR;
  if (size == 0)
    return C_SUCCESS;
  if (cu_staged_copy_wanted(stream->stream, dst, src, size, kind))
    return cu_staged_copy(stream->stream, dst, src, size, kind);
  cudaError_t error = cudaMemcpyAsync(dst, src, size, kind, stream->stream);
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaMemcpyAsync");
}

C_Status cu_memory_copy_h2d(const C_Device device, void *dst, const void *src,
                            size_t size) {
  return copy(device, dst, src, size, cudaMemcpyHostToDevice,
              "memory_copy_h2d");
}

C_Status cu_memory_copy_d2h(const C_Device device, void *dst, const void *src,
                            size_t size) {
  return copy(device, dst, src, size, cudaMemcpyDeviceToHost,
              "memory_copy_d2h");
}

C_Status cu_memory_copy_d2d(const C_Device device, void *dst, const void *src,
                            size_t size) {
  return copy(device, dst, src, size, cudaMemcpyDeviceToDevice,
              "memory_copy_d2d");
}

C_Status cu_async_memory_copy_h2d(const C_Device device, C_Stream stream,
                                  void *dst, const void *src, size_t size) {
  return copy_async(device, stream, dst, src, size, cudaMemcpyHostToDevice,
                    "async_memory_copy_h2d");
}

C_Status cu_async_memory_copy_d2h(const C_Device device, C_Stream stream,
                                  void *dst, const void *src, size_t size) {
  return copy_async(device, stream, dst, src, size, cudaMemcpyDeviceToHost,
                    "async_memory_copy_d2h");
}

C_Status cu_async_memory_copy_d2d(const C_Device device, C_Stream stream,
                                  void *dst, const void *src, size_t size) {
  return copy_async(device, stream, dst, src, size, cudaMemcpyDeviceToDevice,
                    "async_memory_copy_d2d");
}

C_Status cu_memory_copy_p2p(const C_Device dst_device,
                            const C_Device src_device, void *dst,
                            const void *src, size_t size) {
  cu_device_t *to = copy_device(dst_device, dst, src, size, "memory_copy_p2p");
  cu_device_t *from = to ? cu_device_get(src_device) : NULL;
  if (!from)
    return C_ERROR;
  if (size == 0)
    return C_SUCCESS;
  return finish(cudaMemcpyPeer(dst, to->id, src, from->id, size),
                "cudaMemcpyPeer");
}

/* The stream may belong to either device. */
C_Status cu_async_memory_copy_p2p(const C_Device dst_device,
                                  const C_Device src_device, C_Stream handle,
                                  void *dst, const void *src, size_t size) {
  cu_device_t *to =
      copy_device(dst_device, dst, src, size, "async_memory_copy_p2p");
  cu_device_t *from = to ? cu_device_get(src_device) : NULL;
  struct C_Stream_st *stream = NULL;
  if (from)
    stream = handle && handle->dev == from ? cu_stream_of(from, handle)
                                           : cu_stream_of(to, handle);
  if (!stream)
    return C_ERROR;
  if (size == 0)
    return C_SUCCESS;
  cudaError_t error =
      cudaMemcpyPeerAsync(dst, to->id, src, from->id, size, stream->stream);
  return error == cudaSuccess ? C_SUCCESS
                              : cu_fail_cuda(error, "cudaMemcpyPeerAsync");
}
