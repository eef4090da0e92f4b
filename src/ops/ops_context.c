/* Contexts: a device, a stream, and the scratch tensors an op library
 * required through them. */
#include <stdlib.h>
#include <string.h>

#include "backplane/allocator.h"
#include "backplane/device.h"
#include "backplane/vendor_access.h"
#include "base/status.h"
#include "ops/ops_tensor.h"

/* diopiGetCurrentDeviceIndex: the device of the last context this thread
 * created (DIOPI has no other notion of a current device). */
static _Thread_local diopiDeviceIndex_t current_device_index;

BP_API bp_status_t bp_ops_context_create(bp_device_t *device,
                                         bp_stream_t *stream,
                                         diopiContextHandle_t *out_context) {
  if (!device || !stream || !out_context)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_context_create: device, stream or out_context is "
                    "NULL");
  /* BP_STREAM_ACTIVE: the thread's active stream now, kept by the context. */
  if (stream == BP_STREAM_ACTIVE) {
    bp_status_t status = bp_stream_get_active(device, &stream);
    if (status != BP_OK)
      return status;
  }
  if (bp_stream_device(stream) != device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_context_create: the stream belongs to %s, not %s",
                    bp_device_name(bp_stream_device(stream)),
                    bp_device_name(device));
  struct diopiContext *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_ops_context_create: out of host memory");
  ctx->device = device;
  ctx->stream = stream;
  ctx->library_stream =
      strcmp(bp_device_type(device), BP_OPS_IMPL_DEVICE_TYPE) == 0
          ? (diopiStreamHandle_t)bp_stream_c_handle(stream)
          : (diopiStreamHandle_t)stream;
  current_device_index = (diopiDeviceIndex_t)bp_device_index(device);
  *out_context = ctx;
  return BP_OK;
}

BP_API void bp_ops_context_clear(diopiContextHandle_t ctx) {
  if (!ctx)
    return;
  while (ctx->scratch) {
    struct diopiTensor *t = ctx->scratch;
    ctx->scratch = t->next_scratch;
    bp_ops_tensor_destroy(t);
  }
  ctx->scratch_count = 0;
}

BP_API void bp_ops_context_destroy(diopiContextHandle_t ctx) {
  bp_ops_context_clear(ctx);
  free(ctx);
}

BP_API bp_device_t *bp_ops_context_device(diopiContextHandle_t ctx) {
  return ctx ? ctx->device : NULL;
}

BP_API bp_stream_t *bp_ops_context_stream(diopiContextHandle_t ctx) {
  return ctx ? ctx->stream : NULL;
}

BP_API size_t bp_ops_context_scratch_count(diopiContextHandle_t ctx) {
  return ctx ? ctx->scratch_count : 0;
}

BP_API bp_status_t bp_ops_context_take(diopiContextHandle_t ctx,
                                       diopiTensorHandle_t tensor,
                                       void **out_storage) {
  if (!ctx || !tensor || !out_storage)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_context_take: context, tensor or out_storage is "
                    "NULL");
  struct diopiTensor **link = &ctx->scratch;
  while (*link && *link != tensor)
    link = &(*link)->next_scratch;
  if (!*link)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_context_take: the tensor is not one the context "
                    "allocated (diopiRequireTensor/Buffer) and still holds");
  *link = tensor->next_scratch;
  ctx->scratch_count--;
  tensor->next_scratch = NULL;
  tensor->owner = OPS_TENSOR_BORROWED;
  *out_storage = tensor->storage;
  return BP_OK;
}

DIOPI_RT_API diopiError_t diopiGetStream(diopiContextHandle_t ctx,
                                         diopiStreamHandle_t *stream) {
  if (!ctx || !stream)
    return diopiErrorOccurred;
  *stream = ctx->library_stream;
  return diopiSuccess;
}

DIOPI_RT_API diopiError_t
diopiGetCurrentDeviceIndex(diopiDeviceIndex_t *index) {
  if (!index)
    return diopiErrorOccurred;
  *index = current_device_index;
  return diopiSuccess;
}

/* Allocates a scratch tensor of `nbytes` with the given layout, owned by the
 * context. Device memory comes from the caching allocator on the context's
 * stream and goes back to it, stream-ordered, when the context is cleared. */
static diopiError_t require(diopiContextHandle_t ctx, size_t nbytes,
                            diopiDtype_t dtype, size_t ndim,
                            const int64_t *shape, const int64_t *strides,
                            diopiDevice_t where, diopiTensorHandle_t *out) {
  bp_device_t *device = where == diopi_device ? ctx->device : NULL;
  void *storage = NULL;
  bp_status_t status;
  if (device) {
    status = bp_device_malloc_async(device, nbytes, ctx->stream, &storage);
  } else {
    storage = malloc(nbytes ? nbytes : 1);
    status = storage ? BP_OK
                     : bp_error(BP_ERR_OUT_OF_MEMORY,
                                "diopiRequireTensor: %zu bytes of host memory",
                                nbytes);
  }
  if (status != BP_OK)
    return diopiErrorOccurred;
  struct diopiTensor *t;
  status =
      ops_tensor_new(storage, nbytes, dtype, ndim, shape, strides, device, &t);
  if (status != BP_OK) {
    if (device)
      bp_device_free_async(device, storage, ctx->stream);
    else
      free(storage);
    return diopiErrorOccurred;
  }
  t->owner = device ? OPS_TENSOR_DEVICE_CACHE : OPS_TENSOR_HOST_MALLOC;
  t->stream = ctx->stream;
  t->next_scratch = ctx->scratch;
  ctx->scratch = t;
  ctx->scratch_count++;
  *out = t;
  return diopiSuccess;
}

DIOPI_RT_API diopiError_t diopiRequireTensor(diopiContextHandle_t ctx,
                                             diopiTensorHandle_t *tensor,
                                             const diopiSize_t *size,
                                             const diopiSize_t *stride,
                                             const diopiDtype_t dtype,
                                             const diopiDevice_t device) {
  if (!ctx || !tensor || !size || size->len < 0 ||
      size->len > BP_OPS_MAX_DIMS || (size->len && !size->data) ||
      (stride && stride->len != size->len) || !bp_ops_dtype_size(dtype))
    return diopiErrorOccurred;
  int64_t contiguous[BP_OPS_MAX_DIMS];
  const int64_t *strides = stride ? stride->data : NULL;
  if (!strides) {
    int64_t s = 1;
    for (int64_t i = size->len; i-- > 0;) {
      contiguous[i] = s;
      s *= size->data[i] > 0 ? size->data[i] : 1;
    }
    strides = contiguous;
  }
  for (int64_t i = 0; i < size->len; i++)
    if (size->data[i] < 0 || strides[i] < 0)
      return diopiErrorOccurred;
  size_t nbytes =
      ops_tensor_span_bytes(dtype, (size_t)size->len, size->data, strides);
  return require(ctx, nbytes, dtype, (size_t)size->len, size->data, strides,
                 device, tensor);
}

DIOPI_RT_API diopiError_t diopiRequireBuffer(diopiContextHandle_t ctx,
                                             diopiTensorHandle_t *tensor,
                                             int64_t num_bytes,
                                             diopiDevice_t device) {
  if (!ctx || !tensor || num_bytes < 0)
    return diopiErrorOccurred;
  return require(ctx, (size_t)num_bytes, diopi_dtype_int8, 1, &num_bytes, NULL,
                 device, tensor);
}
