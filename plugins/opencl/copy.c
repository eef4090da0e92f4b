/* Copies in each direction and memset, over both memory paths. */
#include "copy.h"

#include "memory.h"
#include "stream.h"

typedef enum direction { H2D, D2H, D2D } direction_t;

static const char *const direction_names[] = {"h2d", "d2h", "d2d"};

/* Enqueues one copy on `queue`; blocking when `sync`. */
static C_Status copy(ocl_device_t *dev, cl_command_queue queue, bool sync,
                     direction_t direction, void *dst, const void *src,
                     size_t size) {
  if (size == 0)
    return C_SUCCESS;
  if (!dst || !src)
    return ocl_fail(C_ERROR, "memory_copy_%s on %s: NULL pointer",
                    direction_names[direction], dev->name);
  ocl_region_t to = {0}, from = {0};
  C_Status status = C_SUCCESS;
  if (direction != H2D)
    status = ocl_memory_resolve(dev, src, size, &from);
  if (status == C_SUCCESS && direction != D2H)
    status = ocl_memory_resolve(dev, dst, size, &to);
  if (status != C_SUCCESS) {
    ocl_region_release(&from);
    return status;
  }
  cl_bool blocking = sync ? CL_TRUE : CL_FALSE;
  cl_int error;
  if (dev->svm) {
    error = clEnqueueSVMMemcpy(queue, blocking, dst, src, size, 0, NULL, NULL);
  } else if (direction == H2D) {
    error = clEnqueueWriteBuffer(queue, to.buffer, blocking, to.offset, size,
                                 src, 0, NULL, NULL);
  } else if (direction == D2H) {
    error = clEnqueueReadBuffer(queue, from.buffer, blocking, from.offset, size,
                                dst, 0, NULL, NULL);
  } else {
    error = clEnqueueCopyBuffer(queue, from.buffer, to.buffer, from.offset,
                                to.offset, size, 0, NULL, NULL);
    if (error == CL_SUCCESS && sync)
      error = clFinish(queue);
  }
  ocl_region_release(&from);
  ocl_region_release(&to);
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error),
                    "memory_copy_%s of %zu bytes on %s: "
                    "%s",
                    direction_names[direction], size, dev->name,
                    ocl_error_name(error));
  if (!sync)
    clFlush(queue);
  return C_SUCCESS;
}

static C_Status copy_sync(const C_Device device, direction_t direction,
                          void *dst, const void *src, size_t size) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev)
    return C_ERROR;
  return copy(dev, dev->sync_queue, true, direction, dst, src, size);
}

static C_Status copy_async(const C_Device device, C_Stream handle,
                           direction_t direction, void *dst, const void *src,
                           size_t size) {
  ocl_device_t *dev = ocl_device_get(device);
  struct C_Stream_st *stream = ocl_stream_of(dev, handle);
  if (!stream)
    return C_ERROR;
  return copy(dev, stream->queue, false, direction, dst, src, size);
}

C_Status ocl_memory_copy_h2d(const C_Device device, void *dst, const void *src,
                             size_t size) {
  return copy_sync(device, H2D, dst, src, size);
}

C_Status ocl_memory_copy_d2h(const C_Device device, void *dst, const void *src,
                             size_t size) {
  return copy_sync(device, D2H, dst, src, size);
}

C_Status ocl_memory_copy_d2d(const C_Device device, void *dst, const void *src,
                             size_t size) {
  return copy_sync(device, D2D, dst, src, size);
}

C_Status ocl_async_memory_copy_h2d(const C_Device device, C_Stream stream,
                                   void *dst, const void *src, size_t size) {
  return copy_async(device, stream, H2D, dst, src, size);
}

C_Status ocl_async_memory_copy_d2h(const C_Device device, C_Stream stream,
                                   void *dst, const void *src, size_t size) {
  return copy_async(device, stream, D2H, dst, src, size);
}

C_Status ocl_async_memory_copy_d2d(const C_Device device, C_Stream stream,
                                   void *dst, const void *src, size_t size) {
  return copy_async(device, stream, D2D, dst, src, size);
}

C_Status ocl_device_memory_set(const C_Device device, void *ptr,
                               unsigned char value, size_t size) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev)
    return C_ERROR;
  if (size == 0)
    return C_SUCCESS;
  ocl_region_t region;
  C_Status status = ocl_memory_resolve(dev, ptr, size, &region);
  if (status != C_SUCCESS)
    return status;
  cl_int error =
      region.svm ? clEnqueueSVMMemFill(dev->sync_queue, region.svm, &value, 1,
                                       size, 0, NULL, NULL)
                 : clEnqueueFillBuffer(dev->sync_queue, region.buffer, &value,
                                       1, region.offset, size, 0, NULL, NULL);
  ocl_region_release(&region);
  if (error == CL_SUCCESS)
    error = clFinish(dev->sync_queue);
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error), "memset of %zu bytes on %s: %s", size,
                    dev->name, ocl_error_name(error));
  return C_SUCCESS;
}
