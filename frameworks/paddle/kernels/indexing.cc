/* where (+ grad), set_value (t[slice] = v, with a number or a tensor; +
 * grads) and assign_value (a tensor from values held in the op): diopiWhere,
 * and diopiFill/diopiExpand/diopiCopyInp through a strided view of the
 * slice. Values from the op's attributes go to the device with bp_copy on
 * Paddle's stream. */
#include <string.h>

#include <memory>
#include <type_traits>

#include "kernel_call.h"

namespace bridge {

template <typename T>
void WhereKernel(const phi::Context &dev_ctx, const phi::DenseTensor &condition,
                 const phi::DenseTensor &x, const phi::DenseTensor &y,
                 phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "where", kernel_dtype_of<T>());
  diopiTensorHandle_t c = call.wrap(pd(condition));
  diopiTensorHandle_t a = call.wrap(pd(x)), b = call.wrap(pd(y));
  call.check(
      DIOPI(call, diopiWhere)(call.diopi(), call.alloc(pd(out)), c, a, b),
      "diopiWhere");
}

/* x_grad = where(condition, out_grad, 0), y_grad = where(condition, 0,
 * out_grad) (Paddle's where kernel takes tensors of one shape). */
template <typename T>
void WhereGradKernel(const phi::Context &dev_ctx,
                     const phi::DenseTensor &condition,
                     const phi::DenseTensor &x, const phi::DenseTensor &y,
                     const phi::DenseTensor &out_grad, phi::DenseTensor *x_grad,
                     phi::DenseTensor *y_grad) {
  KernelCall call(dev_ctx, "where_grad", kernel_dtype_of<T>());
  int64_t one = 1;
  diopiTensorHandle_t zero =
      call.temp(kernel_diopi_dtype(kernel_dtype(pd(out_grad))), 1, &one);
  diopiScalar_t v = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), zero, &v), "diopiFill");
  diopiTensorHandle_t c = call.wrap(pd(condition)), g = call.wrap(pd(out_grad));
  if (x_grad)
    call.check(DIOPI(call, diopiWhere)(call.diopi(), call.alloc(pd(x_grad)), c,
                                       g, zero),
               "diopiWhere");
  if (y_grad)
    call.check(DIOPI(call, diopiWhere)(call.diopi(), call.alloc(pd(y_grad)), c,
                                       zero, g),
               "diopiWhere");
}

/* The slice attributes every set_value kernel takes, in Paddle's order. */
struct SliceAttrs {
  const phi::IntArray &starts, &ends, &steps;
  const std::vector<int64_t> &axes, &decrease_axes, &none_axes;
};

/* The part of contiguous tensor `t` that Paddle's set_value slice names, as
 * a strided view shaped as the value is broadcast to: each of `axes` cut
 * to [start, end) by step (Paddle's normalization of negative and
 * out-of-range bounds), then decrease_axes dropped and a unit dim inserted
 * at each of none_axes. */
static diopiTensorHandle_t slice_view(KernelCall &call, PD_Tensor *t,
                                      const SliceAttrs &slice, int *view_ndim,
                                      int64_t *view_shape) {
  const std::vector<int64_t> &axes = slice.axes,
                             &decrease_axes = slice.decrease_axes,
                             &none_axes = slice.none_axes;
  int64_t shape[BP_OPS_MAX_DIMS], strides[BP_OPS_MAX_DIMS];
  int64_t start[BP_OPS_MAX_DIMS], end[BP_OPS_MAX_DIMS], step[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(t, shape);
  size_t n = axes.size();
  if (kernel_int_array(slice.starts, start) != (int)n ||
      kernel_int_array(slice.ends, end) != (int)n ||
      kernel_int_array(slice.steps, step) != (int)n)
    call.fail("starts, ends, steps: expected %zu each (one per axis)", n);
  for (int d = ndim - 1; d >= 0; d--)
    strides[d] = d == ndim - 1 ? 1 : strides[d + 1] * shape[d + 1];
  int64_t offset = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + ndim : axes[i];
    if (a < 0 || a >= ndim)
      call.fail("axes: %lld out of range for rank %d", (long long)axes[i],
                ndim);
    int64_t dim = shape[a], s = start[i], e = end[i], st = step[i];
    if (st == 0)
      call.fail("steps: step %zu is 0", i);
    s = s < 0 ? s + dim : s;
    s = s < 0 ? 0 : s;
    e = st > 0 && e < 0 ? e + dim : e;
    e = e > dim ? dim : e;
    int64_t count;
    if (st > 0) {
      s = s > dim ? dim : s;
      e = e < 0 ? 0 : e;
      count = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = s > dim - 1 ? dim - 1 : s;
      e = e < -1 ? e + dim : e;
      e = e < -1 ? -1 : e;
      count = s > e ? (s - e - st - 1) / -st : 0;
    }
    offset += s * strides[a];
    shape[a] = count;
    strides[a] *= st;
  }
  int64_t vstrides[BP_OPS_MAX_DIMS];
  int vn = 0;
  size_t none = 0, decrease = 0;
  for (int d = 0; d <= ndim; d++) {
    while (none < none_axes.size() && (none_axes[none] <= d || d == ndim)) {
      if (vn == BP_OPS_MAX_DIMS)
        call.fail("none_axes: more than %d dims", (int)BP_OPS_MAX_DIMS);
      view_shape[vn] = 1;
      vstrides[vn++] = 1;
      none++;
    }
    if (d == ndim)
      break;
    if (decrease < decrease_axes.size() && decrease_axes[decrease] == d) {
      decrease++;
      continue;
    }
    view_shape[vn] = shape[d];
    vstrides[vn++] = strides[d];
  }
  PD_Status status = C_SUCCESS;
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(t));
  char *base = static_cast<char *>(PD_TensorGetDataPointer(t, &status));
  *view_ndim = vn;
  return call.wrap_data(base + offset * (int64_t)bp_ops_dtype_size(dtype),
                        dtype, vn, view_shape, vstrides);
}

/* out = x (nothing to do when Paddle runs the op in place). */
static void copy_unless_same(KernelCall &call, PD_Tensor *x, PD_Tensor *out) {
  PD_Status status = C_SUCCESS;
  diopiTensorHandle_t o = call.alloc(out);
  if (PD_TensorGetDataPointer(out, &status) ==
      PD_TensorGetDataPointer(x, &status))
    return;
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), call.wrap(x), o),
             "diopiCopyInp");
}

/* `value` as the host holds a T (bool as one byte). */
template <typename T> static T value_as(const phi::Scalar &value) {
  if constexpr (std::is_same<T, double>::value)
    return value.to<double>();
  else if constexpr (std::is_integral<T>::value)
    return static_cast<T>(value.to<int64_t>());
  else
    return T(value.to<float>());
}

/* Device memory `dst` = `values` as Ts, copied in Paddle's stream order
 * (bp_copy captures the host buffer before it returns). */
template <typename T>
static void upload(KernelCall &call, void *dst,
                   const std::vector<phi::Scalar> &values) {
  size_t n = values.size();
  std::unique_ptr<T[]> host(new T[n]);
  for (size_t i = 0; i < n; i++)
    host[i] = value_as<T>(values[i]);
  bp_status_t st = bp_copy(call.device(), dst, NULL, host.get(), n * sizeof(T),
                           bp_ops_context_stream(call.diopi()));
  if (st != BP_OK)
    call.fail("bp_copy of %zu values: %s", n, bp_last_error());
}

template <typename T>
void SetValueKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::IntArray &starts, const phi::IntArray &ends,
                    const phi::IntArray &steps,
                    const std::vector<int64_t> &axes,
                    const std::vector<int64_t> &decrease_axes,
                    const std::vector<int64_t> &none_axes,
                    const std::vector<int64_t> &shape,
                    const std::vector<phi::Scalar> &values,
                    phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "set_value", kernel_dtype_of<T>());
  SliceAttrs slice = {starts, ends, steps, axes, decrease_axes, none_axes};
  int64_t count = 1, vshape[BP_OPS_MAX_DIMS];
  for (int64_t d : shape)
    count *= d;
  if (values.empty() || (values.size() != 1 && (size_t)count != values.size()))
    call.fail("values: expected 1 or %lld values (shape), got %zu",
              (long long)count, values.size());
  if (shape.size() > (size_t)BP_OPS_MAX_DIMS)
    call.fail("shape: %zu dims, at most %d", shape.size(),
              (int)BP_OPS_MAX_DIMS);
  copy_unless_same(call, pd(x), pd(out));
  int vn;
  diopiTensorHandle_t view = slice_view(call, pd(out), slice, &vn, vshape);
  if (values.size() == 1) {
    diopiScalar_t v = kernel_scalar(values[0].to<double>());
    call.check(DIOPI(call, diopiFill)(call.diopi(), view, &v), "diopiFill");
    return;
  }
  diopiTensorHandle_t value = call.temp(kernel_diopi_dtype(kernel_dtype(pd(x))),
                                        (int)shape.size(), shape.data());
  void *data = NULL;
  diopiGetTensorData(value, &data);
  upload<T>(call, data, values);
  call.check(DIOPI(call, diopiExpand)(call.diopi(), view, value),
             "diopiExpand");
}

template <typename T>
void SetTensorValueKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const phi::DenseTensor &value, const phi::IntArray &starts,
    const phi::IntArray &ends, const phi::IntArray &steps,
    const std::vector<int64_t> &axes, const std::vector<int64_t> &decrease_axes,
    const std::vector<int64_t> &none_axes, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "set_value_with_tensor", kernel_dtype_of<T>());
  SliceAttrs slice = {starts, ends, steps, axes, decrease_axes, none_axes};
  copy_unless_same(call, pd(x), pd(out));
  int vn;
  int64_t vshape[BP_OPS_MAX_DIMS];
  diopiTensorHandle_t view = slice_view(call, pd(out), slice, &vn, vshape);
  call.check(DIOPI(call, diopiExpand)(call.diopi(), view, call.wrap(pd(value))),
             "diopiExpand");
}

/* x_grad = out_grad with the slice zeroed; value_grad = the slice of
 * out_grad summed down to the value's shape. */
static void set_value_grad(KernelCall &call, PD_Tensor *out_grad,
                           const SliceAttrs &slice, PD_Tensor *x_grad,
                           PD_Tensor *value_grad) {
  int vn;
  int64_t vshape[BP_OPS_MAX_DIMS];
  if (x_grad) {
    copy_unless_same(call, out_grad, x_grad);
    diopiScalar_t zero = kernel_scalar(0.0);
    diopiTensorHandle_t view = slice_view(call, x_grad, slice, &vn, vshape);
    call.check(DIOPI(call, diopiFill)(call.diopi(), view, &zero), "diopiFill");
  }
  if (value_grad) {
    diopiTensorHandle_t view = slice_view(call, out_grad, slice, &vn, vshape);
    kernel_sum_to(call, value_grad, view, vn, vshape, 1.0);
  }
}

template <typename T>
void SetValueGradKernel(const phi::Context &dev_ctx,
                        const phi::DenseTensor &out_grad,
                        const phi::IntArray &starts, const phi::IntArray &ends,
                        const phi::IntArray &steps,
                        const std::vector<int64_t> &axes,
                        const std::vector<int64_t> &decrease_axes,
                        const std::vector<int64_t> &none_axes,
                        phi::DenseTensor *x_grad,
                        phi::DenseTensor *value_grad) {
  KernelCall call(dev_ctx, "set_value_grad", kernel_dtype_of<T>());
  SliceAttrs slice = {starts, ends, steps, axes, decrease_axes, none_axes};
  set_value_grad(call, pd(out_grad), slice, pd(x_grad), pd(value_grad));
}

template <typename T>
void SetValueWithScalarGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &out_grad,
    const phi::IntArray &starts, const phi::IntArray &ends,
    const phi::IntArray &steps, const std::vector<int64_t> &axes,
    const std::vector<int64_t> &decrease_axes,
    const std::vector<int64_t> &none_axes, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "set_value_with_scalar_grad", kernel_dtype_of<T>());
  SliceAttrs slice = {starts, ends, steps, axes, decrease_axes, none_axes};
  set_value_grad(call, pd(out_grad), slice, pd(x_grad), NULL);
}

template <typename T>
void AssignValueKernel(const phi::Context &dev_ctx,
                       const std::vector<int> &shape, phi::DataType dtype,
                       const std::vector<phi::Scalar> &values,
                       phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "assign_value", kernel_dtype_of<T>());
  int64_t dims[BP_OPS_MAX_DIMS], count = 1;
  if (shape.size() > (size_t)BP_OPS_MAX_DIMS)
    call.fail("shape: %zu dims, at most %d", shape.size(),
              (int)BP_OPS_MAX_DIMS);
  for (size_t d = 0; d < shape.size(); d++)
    count *= dims[d] = shape[d];
  if ((size_t)count != values.size())
    call.fail("values: expected %lld (the shape's element count), got %zu",
              (long long)count, values.size());
  call.alloc(pd(out), (int)shape.size(), dims, dtype);
  PD_Status status = C_SUCCESS;
  if (count > 0)
    upload<T>(call, PD_TensorGetDataPointer(pd(out), &status), values);
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(where, backplane, ALL_LAYOUT, bridge::WhereKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t, bool) {}
PD_BUILD_PHI_KERNEL(where_grad, backplane, ALL_LAYOUT, bridge::WhereGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(set_value, backplane, ALL_LAYOUT, bridge::SetValueKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(set_value_with_tensor, backplane, ALL_LAYOUT,
                    bridge::SetTensorValueKernel, BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(set_value_grad, backplane, ALL_LAYOUT,
                    bridge::SetValueGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(set_value_with_scalar_grad, backplane, ALL_LAYOUT,
                    bridge::SetValueWithScalarGradKernel, BRIDGE_FLOAT_DTYPES) {
}
PD_BUILD_PHI_KERNEL(assign_value, backplane, ALL_LAYOUT,
                    bridge::AssignValueKernel, BRIDGE_ANY_DTYPE) {}
