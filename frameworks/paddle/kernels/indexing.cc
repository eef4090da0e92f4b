/* where (+ grad), set_value (t[slice] = v, with a number or a tensor, any
 * steps; + grads) and assign_value (a tensor from values held in the op):
 * diopiWhere, and diopiFill/diopiExpand/diopiCopyInp through a strided view
 * of the slice (strided_views.h; a negative step's values through diopiFlip).
 * Values from the op's attributes go to the device with bp_copy on Paddle's
 * stream. */
#include <string.h>

#include <memory>
#include <type_traits>

#include "kernel_call.h"
#include "strided_views.h"

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

/* The part of `t` the set_value slice names, shaped as the value is
 * broadcast to. */
static SliceView set_value_view(KernelCall &call, PD_Tensor *t,
                                const SliceAttrs &slice) {
  return slice_view(call, t, slice.axes, slice.starts.GetData(),
                    slice.ends.GetData(), slice.steps.GetData(),
                    slice.decrease_axes, slice.none_axes);
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
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  if (values.empty() || (values.size() != 1 && (size_t)count != values.size()))
    call.fail("values: expected 1 or %lld values (shape), got %zu",
              (long long)count, values.size());
  if (shape.size() > (size_t)BP_OPS_MAX_DIMS)
    call.fail("shape: %zu dims, at most %d", shape.size(),
              (int)BP_OPS_MAX_DIMS);
  copy_unless_same(call, pd(x), pd(out));
  SliceView view = set_value_view(call, pd(out), slice);
  if (values.size() == 1) {
    diopiScalar_t v = kernel_scalar(values[0].to<double>());
    call.check(DIOPI(call, diopiFill)(call.diopi(), view.view, &v),
               "diopiFill");
    return;
  }
  diopiTensorHandle_t value = call.temp(kernel_diopi_dtype(kernel_dtype(pd(x))),
                                        (int)shape.size(), shape.data());
  void *data = NULL;
  diopiGetTensorData(value, &data);
  upload<T>(call, data, values);
  slice_assign(call, view, value);
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
  slice_assign(call, set_value_view(call, pd(out), slice),
               call.wrap(pd(value)));
}

/* x_grad = out_grad with the slice zeroed; value_grad = the slice of
 * out_grad summed down to the value's shape. */
static void set_value_grad(KernelCall &call, PD_Tensor *out_grad,
                           const SliceAttrs &slice, PD_Tensor *x_grad,
                           PD_Tensor *value_grad) {
  if (x_grad) {
    copy_unless_same(call, out_grad, x_grad);
    diopiScalar_t zero = kernel_scalar(0.0);
    call.check(DIOPI(call, diopiFill)(call.diopi(),
                                      set_value_view(call, x_grad, slice).view,
                                      &zero),
               "diopiFill");
  }
  if (value_grad) {
    SliceView view = set_value_view(call, out_grad, slice);
    kernel_sum_to(call, value_grad, slice_values(call, view), view.ndim,
                  view.shape, 1.0);
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
