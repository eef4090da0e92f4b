// What the kernel files share beyond op_call.h: result tensors, `out=`
// arguments, host operands of device ops, dims and reductions' shapes.
#pragma once

#include <ATen/ops/empty.h>
#include <c10/core/WrapDimMinimal.h>

#include <vector>

#include "op_call.h"

namespace torch_backplane {

// An uninitialized tensor of `shape` on `like`'s device (dtype `type`).
inline at::Tensor new_tensor(const at::Tensor &like, c10::IntArrayRef shape,
                             at::ScalarType type) {
  return at::empty(shape, like.options().dtype(type));
}

// An uninitialized tensor of `t`'s shape, dtype and device.
inline at::Tensor new_like(const at::Tensor &t) {
  return new_tensor(t, t.sizes(), t.scalar_type());
}

// An `out=` argument made `shape` (PyTorch resizes outs of the wrong size).
inline at::Tensor &shaped_out(at::Tensor &out, c10::IntArrayRef shape) {
  if (!out.sizes().equals(shape))
    out.resize_(shape);
  return out;
}

// `t` on `device`: a CPU tensor (a wrapped Python number, a 0-dim index)
// is copied there, any other is returned as is.
inline at::Tensor on_device(const at::Tensor &t, const at::Device &device) {
  if (t.defined() && t.device().is_cpu())
    return t.to(device);
  return t;
}

// A 0-dim CPU tensor: PyTorch lets it take part in an op on any device as
// a number.
inline bool is_host_scalar(const at::Tensor &t) {
  return t.defined() && t.device().is_cpu() && t.dim() == 0;
}

// The dtype a floating op gives: an integral input becomes the default dtype.
inline at::ScalarType floating_type(at::ScalarType type) {
  if (c10::isIntegralType(type, /*includeBool=*/true))
    return c10::typeMetaToScalarType(c10::get_default_dtype());
  return type;
}

// Raises PyTorch's "ZeroDivisionError" (a RuntimeError) when an op computed
// in the integral dtype `type` divides by a zero of `divisor` (the op
// library gives 0 there); a device divisor is read back, so the call waits
// for the stream.
void check_integral_divisor(at::ScalarType type, const at::Tensor &divisor);

// `dim` made non-negative for a tensor of `ndim` dims.
inline int64_t wrap_dim(int64_t dim, int64_t ndim) {
  return c10::maybe_wrap_dim(dim, ndim);
}

// The dims a reduction covers, non-negative, sorted as given; none or an
// empty list means every dim.
std::vector<int64_t> reduced_dims(const at::Tensor &self,
                                  at::OptionalIntArrayRef dim);
// self's shape without the reduced dims (or with 1 for each, keepdim).
std::vector<int64_t> reduced_shape(const at::Tensor &self,
                                   const std::vector<int64_t> &dims,
                                   bool keepdim);

// A window attribute of `dims` values: [a] -> [a, ..., a], empty ->
// `otherwise` in each.
inline std::vector<int64_t> window_attr(c10::IntArrayRef v, size_t dims,
                                        int64_t otherwise) {
  if (v.size() == dims)
    return v.vec();
  return std::vector<int64_t>(dims, v.empty() ? otherwise : v[0]);
}

// PyTorch's pooled length of `in` for kernel k, stride s, padding p,
// dilation d.
inline int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p,
                           int64_t d, bool ceil_mode) {
  int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = span / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p)
    out--; // the last window must start inside the input or left padding
  return out;
}

// The PyTorch dtype of a DIOPI one (diopi_dtype's inverse); throws for one
// PyTorch lacks.
at::ScalarType scalar_type(diopiDtype_t dtype);

} // namespace torch_backplane
