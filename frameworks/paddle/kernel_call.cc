/* KernelCall: the plumbing every bridge kernel shares. */
#include "kernel_call.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "paddle/common/exception.h"

enum { CONTEXT_CACHE = 8 };

/* DIOPI contexts are per thread; each binds one (device, stream). Paddle
 * keeps a few streams per device, so a small per-thread cache suffices. */
typedef struct cached_context {
  bp_device_t *device;
  bp_stream_t *stream;
  diopiContextHandle_t ctx;
} cached_context_t;

static thread_local cached_context_t cache[CONTEXT_CACHE];
static thread_local size_t cache_next;

static diopiContextHandle_t context_for(bp_device_t *device,
                                        bp_stream_t *stream) {
  for (size_t i = 0; i < CONTEXT_CACHE; i++)
    if (cache[i].ctx && cache[i].stream == stream && cache[i].device == device)
      return cache[i].ctx;
  diopiContextHandle_t ctx = NULL;
  if (bp_ops_context_create(device, stream, &ctx) != BP_OK)
    return NULL;
  cached_context_t *slot = &cache[cache_next++ % CONTEXT_CACHE];
  bp_ops_context_destroy(slot->ctx);
  *slot = {device, stream, ctx};
  return ctx;
}

KernelCall::KernelCall(const phi::Context &dev_ctx, const char *kernel)
    : KernelCall(dev_ctx, kernel, PD_DataType::UNDEFINED) {}

KernelCall::KernelCall(const phi::Context &dev_ctx, const char *kernel,
                       PD_DataType kernel_dtype)
    : ctx_(dev_ctx.raw_data()), kernel_(kernel), kernel_dtype_(kernel_dtype),
      device_(NULL), diopi_(NULL), ntensors_(0) {
  PD_Status status = C_SUCCESS;
  bp_stream_t *stream =
      reinterpret_cast<bp_stream_t *>(PD_DeviceContextGetStream(ctx_, &status));
  if (status != C_SUCCESS || stream == NULL)
    fail("the device context has no stream");
  device_ = bp_stream_device(stream);
  diopi_ = context_for(device_, stream);
  if (diopi_ == NULL)
    fail("bp_ops_context_create: %s", bp_last_error());
}

KernelCall::~KernelCall() {
  for (size_t i = 0; i < ntensors_; i++)
    bp_ops_tensor_destroy(tensors_[i]);
  if (diopi_)
    bp_ops_context_clear(diopi_);
}

diopiTensorHandle_t KernelCall::keep(diopiTensorHandle_t t, bp_status_t status,
                                     const char *what) {
  if (status != BP_OK)
    fail("%s: %s", what, bp_last_error());
  if (ntensors_ == KERNEL_CALL_MAX_TENSORS) {
    bp_ops_tensor_destroy(t);
    fail("more than %d tensors in one kernel call", KERNEL_CALL_MAX_TENSORS);
  }
  tensors_[ntensors_++] = t;
  return t;
}

diopiTensorHandle_t KernelCall::wrap(PD_Tensor *t, int ndim,
                                     const int64_t *shape) {
  if (t == NULL)
    return NULL;
  PD_Status status = C_SUCCESS;
  int64_t dims[BP_OPS_MAX_DIMS];
  if (ndim < 0) {
    ndim = kernel_dims(t, dims);
    shape = dims;
  }
  void *data = PD_TensorGetDataPointer(t, &status);
  return wrap_data(data, kernel_diopi_dtype(kernel_dtype(t)), ndim, shape,
                   NULL);
}

diopiTensorHandle_t KernelCall::wrap_at_axis(PD_Tensor *t, PD_Tensor *other,
                                             int axis) {
  PD_Status status = C_SUCCESS;
  int64_t own[BP_OPS_MAX_DIMS], shape[BP_OPS_MAX_DIMS];
  int own_ndim = kernel_dims(t, own);
  int ndim = (int)PD_TensorGetNumDims(other, &status);
  if (own_ndim >= ndim)
    return wrap(t, own_ndim, own);
  if (ndim > BP_OPS_MAX_DIMS)
    fail("an operand has %d dims (at most %d)", ndim, BP_OPS_MAX_DIMS);
  int at = axis < 0 ? ndim - own_ndim : axis;
  if (at + own_ndim > ndim)
    fail("axis %d places a %d-dim operand outside a %d-dim one", axis, own_ndim,
         ndim);
  for (int d = 0; d < ndim; d++)
    shape[d] = d >= at && d < at + own_ndim ? own[d - at] : 1;
  return wrap(t, ndim, shape);
}

diopiTensorHandle_t KernelCall::wrap_data(void *data, diopiDtype_t dtype,
                                          int ndim, const int64_t *shape,
                                          const int64_t *strides) {
  diopiTensorHandle_t h = NULL;
  bp_status_t st = bp_ops_tensor_wrap(device_, data, dtype, (size_t)ndim, shape,
                                      strides, &h);
  return keep(h, st, "bp_ops_tensor_wrap");
}

diopiTensorHandle_t KernelCall::alloc(PD_Tensor *t, int ndim,
                                      const int64_t *shape, PD_DataType dtype) {
  if (t == NULL)
    return NULL;
  PD_Status status = C_SUCCESS;
  if (ndim >= 0)
    PD_TensorSetDims(t, ndim, shape, &status);
  if (dtype == PD_DataType::UNDEFINED)
    dtype = kernel_dtype_ != PD_DataType::UNDEFINED ? kernel_dtype_
                                                    : kernel_dtype(t);
  PD_DeviceContextAllocateTensor(ctx_, t, 0, dtype, &status);
  if (status != C_SUCCESS)
    fail("allocating an output of %lld elements: %s",
         (long long)kernel_numel(t), bp_last_error());
  return wrap(t);
}

diopiTensorHandle_t KernelCall::temp(diopiDtype_t dtype, int ndim,
                                     const int64_t *shape) {
  diopiTensorHandle_t h = NULL;
  bp_status_t st = bp_ops_tensor_create(device_, bp_ops_context_stream(diopi_),
                                        dtype, (size_t)ndim, shape, &h);
  return keep(h, st, "bp_ops_tensor_create");
}

void *KernelCall::op(const char *name, void *fn) {
  if (fn == NULL)
    fail("the op library has no %s (diopiNoImplement)", name);
  return fn;
}

void KernelCall::check(diopiError_t err, const char *op_name) {
  if (err == diopiSuccess)
    return;
  const char *text = bridge_ops_last_error();
  fail("%s: %s: %s", op_name, bp_ops_error_name(err),
       text && *text ? text : bp_last_error());
}

void KernelCall::fail(const char *format, ...) {
  char message[2048];
  int n = snprintf(message, sizeof message,
                   "backplane kernel %s on %s:%d (%s): ", kernel_,
                   BRIDGE_DEVICE_TYPE, bridge_current_id(),
                   device_ ? bp_device_name(device_) : "no device");
  va_list args;
  va_start(args, format);
  if (n > 0 && (size_t)n < sizeof message)
    vsnprintf(message + n, sizeof message - (size_t)n, format, args);
  va_end(args);
  PD_THROW(message);
}

int kernel_dims(PD_Tensor *t, int64_t *shape) {
  PD_Status status = C_SUCCESS;
  int64_t ndim = PD_TensorGetNumDims(t, &status);
  if (ndim > BP_OPS_MAX_DIMS)
    PD_THROW("backplane kernel: a tensor has more than 8 dims");
  for (int64_t d = 0; d < ndim; d++)
    shape[d] = PD_TensorGetDim(t, (size_t)d, &status);
  return (int)ndim;
}

int64_t kernel_numel(PD_Tensor *t) {
  PD_Status status = C_SUCCESS;
  return PD_TensorGetElementCount(t, &status);
}

PD_DataType kernel_dtype(PD_Tensor *t) {
  PD_Status status = C_SUCCESS;
  return PD_TensorGetPDDataType(t, &status);
}

diopiDtype_t kernel_diopi_dtype(PD_DataType dtype) {
  switch (dtype) {
  case PD_DataType::BOOL:
    return diopi_dtype_bool;
  case PD_DataType::UINT8:
    return diopi_dtype_uint8;
  case PD_DataType::INT8:
    return diopi_dtype_int8;
  case PD_DataType::INT16:
    return diopi_dtype_int16;
  case PD_DataType::INT32:
    return diopi_dtype_int32;
  case PD_DataType::INT64:
    return diopi_dtype_int64;
  case PD_DataType::FLOAT16:
    return diopi_dtype_float16;
  case PD_DataType::BFLOAT16:
    return diopi_dtype_bfloat16;
  case PD_DataType::FLOAT32:
    return diopi_dtype_float32;
  case PD_DataType::FLOAT64:
    return diopi_dtype_float64;
  default:
    return diopi_dtype_unsupported;
  }
}

diopiScalar_t kernel_scalar(double value) {
  diopiScalar_t s;
  memset(&s, 0, sizeof s);
  s.stype = diopi_dtype_float64;
  s.fval = value;
  return s;
}

diopiScalar_t kernel_scalar(const phi::Scalar &value) {
  return kernel_scalar(value.to<double>());
}

int kernel_int_array(const phi::IntArray &array, int64_t *out) {
  std::vector<int64_t> data = array.GetData();
  int n = 0;
  for (; n < (int)data.size() && n < BP_OPS_MAX_DIMS; n++)
    out[n] = data[n];
  return n;
}

int kernel_kept_shape(KernelCall &call, PD_Tensor *x, const int64_t *dims,
                      int ndims, bool reduce_all, int64_t *kept) {
  int ndim = kernel_dims(x, kept);
  bool reduced[BP_OPS_MAX_DIMS] = {false};
  for (int k = 0; k < ndims && !reduce_all; k++) {
    int64_t d = dims[k] < 0 ? dims[k] + ndim : dims[k];
    if (d < 0 || d >= ndim)
      call.fail("dim %lld out of range for rank %d", (long long)dims[k], ndim);
    reduced[d] = true;
  }
  for (int d = 0; d < ndim; d++)
    if (reduce_all || ndims == 0 || reduced[d])
      kept[d] = 1;
  return ndim;
}

double kernel_read_scalar(KernelCall &call, diopiConstTensorHandle_t t,
                          const char *name) {
  diopiDtype_t dtype = diopi_dtype_unsupported;
  const void *data = NULL;
  diopiGetTensorDtype(t, &dtype);
  diopiGetTensorDataConst(t, &data);
  size_t size = 0;
  switch (dtype) {
  case diopi_dtype_float64:
  case diopi_dtype_int64:
    size = 8;
    break;
  case diopi_dtype_float32:
  case diopi_dtype_int32:
    size = 4;
    break;
  case diopi_dtype_float16:
  case diopi_dtype_bfloat16:
    size = 2;
    break;
  default:
    call.fail("%s: expected a floating or int32/int64 dtype, got %d", name,
              (int)dtype);
  }
  unsigned char bytes[8];
  if (bp_copy(NULL, bytes, call.device(), data, size,
              bp_ops_context_stream(call.diopi())) != BP_OK)
    call.fail("reading %s: %s", name, bp_last_error());
  switch (dtype) {
  case diopi_dtype_float64: {
    double v;
    memcpy(&v, bytes, sizeof v);
    return v;
  }
  case diopi_dtype_int64: {
    int64_t v;
    memcpy(&v, bytes, sizeof v);
    return (double)v;
  }
  case diopi_dtype_float32: {
    float v;
    memcpy(&v, bytes, sizeof v);
    return v;
  }
  case diopi_dtype_int32: {
    int32_t v;
    memcpy(&v, bytes, sizeof v);
    return v;
  }
  case diopi_dtype_float16: {
    phi::dtype::float16 v;
    memcpy(&v, bytes, sizeof v);
    return (double)static_cast<float>(v);
  }
  default: { /* bfloat16 */
    phi::dtype::bfloat16 v;
    memcpy(&v, bytes, sizeof v);
    return (double)static_cast<float>(v);
  }
  }
}

void kernel_copy_sized(KernelCall &call, diopiConstTensorHandle_t result,
                       PD_Tensor *out, PD_DataType dtype) {
  diopiSize_t size;
  diopiGetTensorShape(result, &size);
  diopiTensorHandle_t o = call.alloc(out, (int)size.len, size.data, dtype);
  for (int64_t d = 0; d < size.len; d++)
    if (size.data[d] == 0)
      return;
  call.check(DIOPI(call, diopiCastDtype)(call.diopi(), o, result),
             "diopiCastDtype");
}

diopiTensorHandle_t kernel_zeros_like(KernelCall &call, PD_Tensor *t) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(t, shape);
  diopiTensorHandle_t z =
      call.temp(kernel_diopi_dtype(kernel_dtype(t)), ndim, shape);
  diopiScalar_t zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), z, &zero), "diopiFill");
  return z;
}

diopiGeneratorHandle_t kernel_generator(KernelCall &call, int seed) {
  uint64_t s = (uint64_t)seed;
  if (s == 0) {
    PD_Status status = C_SUCCESS;
    s = PD_DeviceContextGetRandom(call.context(), &status);
    if (status != C_SUCCESS)
      call.fail("the device context has no random generator");
  }
  diopiGeneratorHandle_t g = NULL;
  if (bp_ops_generator_create(s, &g) != BP_OK)
    call.fail("bp_ops_generator_create: %s", bp_last_error());
  return g;
}

void kernel_sum_to(KernelCall &call, PD_Tensor *dst,
                   diopiConstTensorHandle_t src, int src_ndim,
                   const int64_t *src_shape, double scale, int axis) {
  if (dst == NULL)
    return;
  int64_t dst_shape[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS],
      reduced[BP_OPS_MAX_DIMS];
  int dst_ndim = kernel_dims(dst, dst_shape);
  if (dst_ndim > src_ndim)
    call.fail("gradient of rank %d from a broadcast of rank %d", dst_ndim,
              src_ndim);
  int at = axis < 0 || dst_ndim == src_ndim ? src_ndim - dst_ndim : axis;
  if (at + dst_ndim > src_ndim)
    call.fail("axis %d places a gradient of rank %d outside rank %d", axis,
              dst_ndim, src_ndim);
  int nreduced = 0;
  for (int d = 0; d < src_ndim; d++) {
    int dd = d - at;
    dd = dd < dst_ndim ? dd : -1;
    int64_t size = dd >= 0 ? dst_shape[dd] : 1;
    if (size != src_shape[d] && size != 1)
      call.fail("gradient shape does not broadcast to dim %d of %lld", d,
                (long long)src_shape[d]);
    kept[d] = size;
    if (size != src_shape[d])
      reduced[nreduced++] = d;
  }
  diopiTensorHandle_t out = call.alloc(dst);
  /* dst seen with src's rank: the same elements (a [] dst of a [1] src,
   * too). */
  diopiTensorHandle_t kept_view = call.wrap(dst, src_ndim, kept);
  if (nreduced == 0) {
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), src, kept_view),
               "diopiCopyInp");
  } else {
    diopiSize_t dims = {reduced, nreduced};
    call.check(DIOPI(call, diopiSum)(call.diopi(), kept_view, src, dims),
               "diopiSum");
  }
  if (scale != 1.0) {
    diopiScalar_t s = kernel_scalar(scale);
    call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), out, &s),
               "diopiMulInpScalar");
  }
}
