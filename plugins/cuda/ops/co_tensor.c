/* Tensor views and their checks. */
#include "co_tensor.h"

#include <stdio.h>
#include <string.h>

#include "co_error.h"

const char *co_shape_text(const int64_t *shape, int ndim, char *buf,
                          size_t size) {
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < ndim && used < size; d++)
    used += (size_t)snprintf(buf + used, size - used, "%s%lld", d ? ", " : "",
                             (long long)shape[d]);
  if (used < size)
    snprintf(buf + used, size - used, "]");
  return buf;
}

double co_scalar(const diopiScalar_t *s) {
  bool floating =
      s->stype == diopi_dtype_float64 || s->stype == diopi_dtype_float32 ||
      s->stype == diopi_dtype_float16 || s->stype == diopi_dtype_bfloat16;
  return floating ? s->fval : (double)s->ival;
}

diopiError_t co_view(const char *op, const char *arg,
                     diopiConstTensorHandle_t t, diopiDtype_t dtype,
                     co_view_t *out) {
  memset(out, 0, sizeof *out);
  out->name = arg;
  if (!t)
    return co_fail(op, "%s: expected a tensor, got NULL", arg);
  diopiSize_t shape, strides;
  const void *data = NULL;
  if (diopiGetTensorShape(t, &shape) != diopiSuccess ||
      diopiGetTensorStride(t, &strides) != diopiSuccess ||
      diopiGetTensorDtype(t, &out->dtype) != diopiSuccess ||
      diopiGetTensorDataConst(t, &data) != diopiSuccess ||
      diopiGetTensorNumel(t, &out->numel) != diopiSuccess)
    return co_fail(op, "%s: not a Backplane tensor", arg);
  if (shape.len > CO_MAX_VIEW_DIMS)
    return co_fail(op, "%s: %lld dims, at most %d supported", arg,
                   (long long)shape.len, CO_MAX_VIEW_DIMS);
  if (out->dtype != dtype) {
    /* Another dtype for a float32 operand is a call this library leaves
     * out; for an index operand (int64), a wrong call. */
    return (dtype == diopi_dtype_float32 ? co_unsupported : co_fail)(
        op,
        "%s: expected dtype %s, got %s (the cuda op library computes "
        "float32, with int64 indices)",
        arg, bp_ops_dtype_name(dtype), bp_ops_dtype_name(out->dtype));
  }
  out->data = (void *)data;
  out->ndim = (int)shape.len;
  for (int d = 0; d < out->ndim; d++) {
    out->shape[d] = shape.data[d];
    out->strides[d] = strides.data[d];
  }
  out->device = bp_ops_tensor_bp_device(t);
  return diopiSuccess;
}

diopiError_t co_view_optional(const char *op, const char *arg,
                              diopiConstTensorHandle_t t, diopiDtype_t dtype,
                              co_view_t *out, bool *present) {
  *present = t != NULL;
  if (t)
    return co_view(op, arg, t, dtype, out);
  memset(out, 0, sizeof *out);
  out->name = arg;
  return diopiSuccess;
}

diopiError_t co_expect_shape(const char *op, const co_view_t *v,
                             const int64_t *shape, int ndim) {
  bool same = v->ndim == ndim;
  for (int d = 0; same && d < ndim; d++)
    same = v->shape[d] == shape[d];
  if (same)
    return diopiSuccess;
  char want[160], got[160];
  return co_fail(op, "%s: expected shape %s, got %s", v->name,
                 co_shape_text(shape, ndim, want, sizeof want),
                 co_shape_text(v->shape, v->ndim, got, sizeof got));
}

bool co_dense(const co_view_t *v) {
  int64_t expected = 1;
  for (int d = v->ndim - 1; d >= 0; d--) {
    if (v->shape[d] != 1 && v->strides[d] != expected)
      return false;
    expected *= v->shape[d];
  }
  return true;
}

diopiError_t co_expect_dense(const char *op, const co_view_t *v) {
  if (co_dense(v))
    return diopiSuccess;
  char shape[160], strides[160];
  return co_unsupported(
      op,
      "%s: a strided view (shape %s, strides %s); this op needs dense "
      "memory",
      v->name, co_shape_text(v->shape, v->ndim, shape, sizeof shape),
      co_shape_text(v->strides, v->ndim, strides, sizeof strides));
}
