/* Tensors: creation over caller memory or the caching allocator, and the
 * DIOPI tensor queries. */
#include "ops/ops_tensor.h"

#include <stdlib.h>
#include <string.h>

#include "backplane/allocator.h"
#include "backplane/device.h"
#include "base/status.h"

size_t ops_tensor_span_bytes(diopiDtype_t dtype, size_t ndim,
                             const int64_t *shape, const int64_t *strides) {
  size_t last = 0;
  for (size_t i = 0; i < ndim; i++) {
    if (shape[i] == 0)
      return 0;
    last += (size_t)(shape[i] - 1) * (size_t)(strides[i] < 0 ? 0 : strides[i]);
  }
  return (last + 1) * bp_ops_dtype_size(dtype);
}

bp_status_t ops_tensor_new(void *storage, size_t nbytes, diopiDtype_t dtype,
                           size_t ndim, const int64_t *shape,
                           const int64_t *strides, bp_device_t *device,
                           struct diopiTensor **out) {
  if (!bp_ops_dtype_size(dtype))
    return bp_error(BP_ERR_INVALID_ARGUMENT, "ops tensor: unknown dtype %d",
                    (int)dtype);
  if (ndim > BP_OPS_MAX_DIMS || (ndim && !shape))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "ops tensor: %zu dims (at most %d, shape must be given)",
                    ndim, BP_OPS_MAX_DIMS);
  struct diopiTensor *t = calloc(1, sizeof *t);
  if (!t)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "ops tensor: out of host memory");
  int64_t stride = 1;
  for (size_t i = ndim; i-- > 0;) {
    if (shape[i] < 0 || (strides && strides[i] < 0)) {
      free(t);
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "ops tensor: dim %zu has size %lld, stride %lld", i,
                      (long long)shape[i],
                      (long long)(strides ? strides[i] : stride));
    }
    t->shape[i] = shape[i];
    t->strides[i] = strides ? strides[i] : stride;
    stride *= shape[i] ? shape[i] : 1;
  }
  t->ndim = (int64_t)ndim;
  t->dtype = dtype;
  t->storage = storage;
  t->storage_nbytes = nbytes;
  t->device = device;
  *out = t;
  return BP_OK;
}

/* ops_tensor_new for public function `fn`, whose out_tensor must not be
 * NULL (the tensor is not stored there yet: the caller finishes it). */
static bp_status_t new_for_caller(const char *fn,
                                  const diopiTensorHandle_t *out_tensor,
                                  void *data, diopiDtype_t dtype, size_t ndim,
                                  const int64_t *shape, const int64_t *strides,
                                  bp_device_t *device,
                                  struct diopiTensor **out) {
  if (!out_tensor)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: out_tensor is NULL", fn);
  return ops_tensor_new(data, 0, dtype, ndim, shape, strides, device, out);
}

BP_API bp_status_t bp_ops_tensor_wrap(bp_device_t *device, void *data,
                                      diopiDtype_t dtype, size_t ndim,
                                      const int64_t *shape,
                                      const int64_t *strides,
                                      diopiTensorHandle_t *out_tensor) {
  struct diopiTensor *t;
  bp_status_t status = new_for_caller("bp_ops_tensor_wrap", out_tensor, data,
                                      dtype, ndim, shape, strides, device, &t);
  if (status != BP_OK)
    return status;
  t->storage_nbytes = ops_tensor_span_bytes(dtype, ndim, t->shape, t->strides);
  if (!data && t->storage_nbytes) {
    free(t);
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_tensor_wrap: data is NULL for a non-empty tensor");
  }
  *out_tensor = t;
  return BP_OK;
}

BP_API bp_status_t bp_ops_tensor_create(bp_device_t *device,
                                        bp_stream_t *stream, diopiDtype_t dtype,
                                        size_t ndim, const int64_t *shape,
                                        diopiTensorHandle_t *out_tensor) {
  struct diopiTensor *t;
  bp_status_t status = new_for_caller("bp_ops_tensor_create", out_tensor, NULL,
                                      dtype, ndim, shape, NULL, device, &t);
  if (status != BP_OK)
    return status;
  size_t numel = 1;
  for (size_t i = 0; i < ndim; i++) {
    if (t->shape[i] && numel > SIZE_MAX / 64 / (size_t)t->shape[i]) {
      free(t);
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "bp_ops_tensor_create: shape overflows a size_t");
    }
    numel *= (size_t)t->shape[i];
  }
  size_t nbytes = numel * bp_ops_dtype_size(dtype);
  /* BP_STREAM_ACTIVE: the thread's active stream now, which the tensor's
   * storage goes back to when it is destroyed. */
  if (device && stream == BP_STREAM_ACTIVE &&
      (status = bp_stream_get_active(device, &stream)) != BP_OK) {
    free(t);
    return status;
  }
  if (device) {
    status = bp_device_malloc_async(device, nbytes, stream, &t->storage);
    t->owner = OPS_TENSOR_DEVICE_CACHE;
    t->stream = stream;
  } else {
    t->storage = malloc(nbytes ? nbytes : 1);
    t->owner = OPS_TENSOR_HOST_MALLOC;
    if (!t->storage)
      status =
          bp_error(BP_ERR_OUT_OF_MEMORY,
                   "bp_ops_tensor_create: %zu bytes of host memory", nbytes);
  }
  if (status != BP_OK) {
    free(t);
    return status;
  }
  t->storage_nbytes = nbytes;
  *out_tensor = t;
  return BP_OK;
}

BP_API void bp_ops_tensor_destroy(diopiTensorHandle_t t) {
  if (!t)
    return;
  if (t->owner == OPS_TENSOR_HOST_MALLOC)
    free(t->storage);
  else if (t->owner == OPS_TENSOR_DEVICE_CACHE)
    bp_device_free_async(t->device, t->storage, t->stream);
  free(t);
}

BP_API bp_device_t *bp_ops_tensor_bp_device(diopiConstTensorHandle_t t) {
  return t ? t->device : NULL;
}

/* ---- DIOPI tensor queries ------------------------------------------------ */

static char *element0(diopiConstTensorHandle_t t) {
  return (char *)t->storage +
         t->storage_offset * (int64_t)bp_ops_dtype_size(t->dtype);
}

static int64_t numel_of(diopiConstTensorHandle_t t) {
  int64_t n = 1;
  for (int64_t i = 0; i < t->ndim; i++)
    n *= t->shape[i];
  return n;
}

/* Defines the query NAME(th, out): a NULL th or out is diopiErrorOccurred;
 * else *out = VALUE, an expression of th. */
#define TENSOR_QUERY(NAME, HANDLE, OUT_TYPE, VALUE)                            \
  DIOPI_RT_API diopiError_t NAME(HANDLE th, OUT_TYPE *out) {                   \
    if (!th || !out)                                                           \
      return diopiErrorOccurred;                                               \
    *out = (VALUE);                                                            \
    return diopiSuccess;                                                       \
  }

typedef diopiConstTensorHandle_t const_handle_t;
typedef const void *const_data_t;

TENSOR_QUERY(diopiGetTensorData, diopiTensorHandle_t, void *, element0(th))
TENSOR_QUERY(diopiGetTensorDataConst, const_handle_t, const_data_t,
             element0(th))
TENSOR_QUERY(diopiGetTensorShape, const_handle_t, diopiSize_t,
             ((diopiSize_t){th->shape, th->ndim}))
TENSOR_QUERY(diopiGetTensorStride, const_handle_t, diopiSize_t,
             ((diopiSize_t){th->strides, th->ndim}))
TENSOR_QUERY(diopiGetTensorDtype, const_handle_t, diopiDtype_t, th->dtype)
TENSOR_QUERY(diopiGetTensorDevice, const_handle_t, diopiDevice_t,
             th->device ? diopi_device : diopi_host)
TENSOR_QUERY(diopiGetTensorNumel, const_handle_t, int64_t, numel_of(th))
TENSOR_QUERY(diopiGetTensorElemSize, const_handle_t, int64_t,
             (int64_t)bp_ops_dtype_size(th->dtype))
TENSOR_QUERY(diopiGetTensorStoragePtr, const_handle_t, void *, th->storage)
TENSOR_QUERY(diopiGetTensorStorageOffset, const_handle_t, int64_t,
             th->storage_offset)
TENSOR_QUERY(diopiGetTensorStorageNbytes, const_handle_t, size_t,
             th->storage_nbytes)
TENSOR_QUERY(diopiGetTensorDeviceIndex, const_handle_t, diopiDeviceIndex_t,
             th->device ? (diopiDeviceIndex_t)bp_device_index(th->device) : -1)
TENSOR_QUERY(diopiIsTensorSparse, const_handle_t, bool, false)

/* Sparse tensors' parts: Backplane has no sparse tensors. */
#define NO_SPARSE_PART(NAME)                                                   \
  DIOPI_RT_API diopiError_t NAME(diopiConstTensorHandle_t th,                  \
                                 diopiTensorHandle_t *out) {                   \
    (void)th;                                                                  \
    (void)out;                                                                 \
    return diopiErrorOccurred;                                                 \
  }

NO_SPARSE_PART(diopiGetTensorCrowIndices)
NO_SPARSE_PART(diopiGetTensorColIndices)
NO_SPARSE_PART(diopiGetTensorValues)

DIOPI_RT_API const char *diopiGetVersion(void) {
  return "1.0.0";
}
