/* eye (diopiEye), diag, trace and their gradients. A diagonal (offset k:
 * above the main one when k > 0, below when k < 0) of two dims of a
 * contiguous tensor is a strided view of it: diag writes a vector there
 * (after filling with padding_value) or reads it (diopiCopyInp); trace
 * sums it (diopiSum over the view's last dim), its gradient writes
 * out_grad along it into zeros. */
#include <algorithm>

#include "kernel_call.h"

namespace bridge {

template <typename T>
void EyeKernel(const phi::Context &dev_ctx, const phi::Scalar &num_rows,
               const phi::Scalar &num_columns, phi::DataType dtype,
               phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "eye", kernel_dtype_of<T>());
  int64_t shape[2] = {num_rows.to<int64_t>(), num_columns.to<int64_t>()};
  if (shape[1] == -1)
    shape[1] = shape[0];
  if (shape[0] < 0 || shape[1] < 0)
    call.fail("num_rows %lld, num_columns %lld: expected sizes of 0 or more",
              (long long)shape[0], (long long)shape[1]);
  call.check(DIOPI(call, diopiEye)(call.diopi(), call.alloc(pd(out), 2, shape),
                                   shape[0], shape[1]),
             "diopiEye");
}

/* Diagonal `offset` of dims d1, d2 of `t` (contiguous, its own shape, or
 * `shape` of rank `ndim`) as a view [t's other dims..., diagonal]; NULL
 * when the diagonal is empty. Fails on equal or bad dims. */
template <typename T>
static diopiTensorHandle_t diagonal(KernelCall &call, PD_Tensor *t, int ndim,
                                    const int64_t *shape, int offset, int d1,
                                    int d2) {
  if (d1 < -ndim || d1 >= ndim || d2 < -ndim || d2 >= ndim)
    call.fail("axis1 %d, axis2 %d: expected dims of a %d-dim tensor", d1, d2,
              ndim);
  d1 = d1 < 0 ? d1 + ndim : d1;
  d2 = d2 < 0 ? d2 + ndim : d2;
  if (d1 == d2)
    call.fail("axis1 and axis2 are both dim %d", d1);
  int64_t strides[BP_OPS_MAX_DIMS], vshape[BP_OPS_MAX_DIMS],
      vstrides[BP_OPS_MAX_DIMS], stride = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    strides[d] = stride;
    stride *= shape[d];
  }
  int64_t len = offset >= 0 ? std::min(shape[d1], shape[d2] - offset)
                            : std::min(shape[d1] + offset, shape[d2]);
  if (len <= 0)
    return NULL;
  int n = 0;
  for (int d = 0; d < ndim; d++) {
    if (d == d1 || d == d2)
      continue;
    vshape[n] = shape[d];
    vstrides[n++] = strides[d];
  }
  vshape[n] = len;
  vstrides[n++] = strides[d1] + strides[d2];
  int64_t first = offset >= 0 ? offset * strides[d2] : -offset * strides[d1];
  PD_Status status = C_SUCCESS;
  T *data = (T *)PD_TensorGetDataPointer(t, &status);
  return call.wrap_data(data + first, kernel_diopi_dtype(kernel_dtype_of<T>()),
                        n, vshape, vstrides);
}

/* Diagonal `offset` of `matrix` (2-D) as a view; NULL when empty. */
template <typename T>
static diopiTensorHandle_t matrix_diagonal(KernelCall &call, PD_Tensor *matrix,
                                           int offset) {
  int64_t shape[BP_OPS_MAX_DIMS];
  if (kernel_dims(matrix, shape) != 2)
    call.fail("expected a matrix");
  return diagonal<T>(call, matrix, 2, shape, offset, 0, 1);
}

/* x a vector (0-D: one element): out the square matrix holding it on
 * diagonal `offset`, padding_value elsewhere; x a matrix: out that
 * diagonal. */
template <typename T>
void DiagKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                int offset, float padding_value, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "diag", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS], n = kernel_numel(pd(x));
  int ndim = kernel_dims(pd(x), shape);
  if (ndim > 2)
    call.fail("x of %d dims: expected a vector or a matrix", ndim);
  diopiTensorHandle_t o = call.alloc(pd(out));
  if (ndim == 2) {
    diopiTensorHandle_t d = matrix_diagonal<T>(call, pd(x), offset);
    if (d)
      call.check(DIOPI(call, diopiCopyInp)(call.diopi(), d, o), "diopiCopyInp");
    return;
  }
  diopiScalar_t pad = kernel_scalar((double)padding_value);
  call.check(DIOPI(call, diopiFill)(call.diopi(), o, &pad), "diopiFill");
  if (n == 0)
    return;
  call.check(
      DIOPI(call, diopiCopyInp)(call.diopi(), call.wrap(pd(x), 1, &n),
                                matrix_diagonal<T>(call, pd(out), offset)),
      "diopiCopyInp");
}

/* A vector's gradient is out_grad's diagonal; a matrix's is out_grad on
 * the diagonal, zeros elsewhere. */
template <typename T>
void DiagGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &out_grad, int offset,
                    phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "diag_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS], n = kernel_numel(pd(x));
  int ndim = kernel_dims(pd(x), shape);
  diopiTensorHandle_t dx = call.alloc(pd(x_grad));
  if (ndim < 2) {
    if (n == 0)
      return;
    call.check(DIOPI(call, diopiCopyInp)(
                   call.diopi(), matrix_diagonal<T>(call, pd(out_grad), offset),
                   call.wrap(pd(x_grad), 1, &n)),
               "diopiCopyInp");
    return;
  }
  diopiScalar_t zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), dx, &zero), "diopiFill");
  diopiTensorHandle_t d = matrix_diagonal<T>(call, pd(x_grad), offset);
  if (d)
    call.check(
        DIOPI(call, diopiCopyInp)(call.diopi(), call.wrap(pd(out_grad)), d),
        "diopiCopyInp");
}

/* out = the sum of diagonal `offset` of dims axis1, axis2 (0 when empty). */
template <typename T>
void TraceKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                 int offset, int axis1, int axis2, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "trace", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(x), shape);
  diopiTensorHandle_t o = call.alloc(pd(out));
  diopiTensorHandle_t d =
      diagonal<T>(call, pd(x), ndim, shape, offset, axis1, axis2);
  if (d == NULL) {
    diopiScalar_t zero = kernel_scalar(0.0);
    call.check(DIOPI(call, diopiFill)(call.diopi(), o, &zero), "diopiFill");
    return;
  }
  int64_t last = ndim - 2;
  diopiSize_t dims = {&last, 1};
  call.check(DIOPI(call, diopiSum)(call.diopi(), o, d, dims), "diopiSum");
}

/* in_grad = out_grad along the diagonal (broadcast over its length),
 * zeros elsewhere. */
template <typename T>
void TraceGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const phi::DenseTensor &out_grad, int offset, int axis1,
                     int axis2, phi::DenseTensor *in_grad) {
  KernelCall call(dev_ctx, "trace_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(x), shape);
  diopiTensorHandle_t dx = call.alloc(pd(in_grad));
  diopiScalar_t zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), dx, &zero), "diopiFill");
  diopiTensorHandle_t d =
      diagonal<T>(call, pd(in_grad), ndim, shape, offset, axis1, axis2);
  if (d == NULL)
    return;
  diopiSize_t view_shape;
  diopiGetTensorShape(d, &view_shape);
  int64_t along[BP_OPS_MAX_DIMS], one_per_row[BP_OPS_MAX_DIMS];
  for (int k = 0; k < view_shape.len; k++) {
    along[k] = view_shape.data[k];
    one_per_row[k] = k + 1 < view_shape.len ? along[k] : 1;
  }
  diopiTensorHandle_t spread = call.temp(
      kernel_diopi_dtype(kernel_dtype_of<T>()), view_shape.len, along);
  call.check(DIOPI(call, diopiExpand)(
                 call.diopi(), spread,
                 call.wrap(pd(out_grad), view_shape.len, one_per_row)),
             "diopiExpand");
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), spread, d),
             "diopiCopyInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(eye, backplane, ALL_LAYOUT, bridge::EyeKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(diag, backplane, ALL_LAYOUT, bridge::DiagKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(diag_grad, backplane, ALL_LAYOUT, bridge::DiagGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(trace, backplane, ALL_LAYOUT, bridge::TraceKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(trace_grad, backplane, ALL_LAYOUT, bridge::TraceGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
