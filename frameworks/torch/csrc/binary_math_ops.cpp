// Two-operand math beyond the arithmetic: atan2, hypot and fmod (tensor or
// scalar other), in the functional, in-place and `out=` forms; each one
// DIOPI call on the device's current stream, broadcasting and strides the
// op library's. Their backwards are PyTorch's compositions (atan2's and
// hypot's of mul, add, div, reciprocal; fmod's of div with
// rounding_mode="trunc", elementwise_ops.cpp).
#include <ATen/ops/result_type.h>
#include <torch/library.h>

#include "binary_kernels.h"
#include "kernel_util.h"

namespace torch_backplane {
namespace {

const BinaryOp atan2_op = {"diopiAtan2", BP_DIOPI_LATER(diopiAtan2), nullptr,
                           nullptr};
const BinaryOp hypot_op = {"diopiHypot", BP_DIOPI_LATER(diopiHypot), nullptr,
                           nullptr};
const BinaryOp fmod_op = {"diopiFmod", BP_DIOPI_LATER(diopiFmod),
                          "diopiFmodScalar", BP_DIOPI_LATER(diopiFmodScalar)};

// atan2 of integers is floating, as PyTorch's (hypot refuses them: the op
// library's floating check).
at::Tensor atan2(const at::Tensor &a, const at::Tensor &b) {
  return binary(atan2_op, a, b, floating_type(at::result_type(a, b)));
}
at::Tensor &atan2_(at::Tensor &a, const at::Tensor &b) {
  return binary_(atan2_op, a, b);
}
at::Tensor &atan2_out(const at::Tensor &a, const at::Tensor &b,
                      at::Tensor &out) {
  return binary_out(atan2_op, a, b, out);
}

at::Tensor hypot(const at::Tensor &a, const at::Tensor &b) {
  return binary(hypot_op, a, b, at::result_type(a, b));
}
at::Tensor &hypot_(at::Tensor &a, const at::Tensor &b) {
  return binary_(hypot_op, a, b);
}
at::Tensor &hypot_out(const at::Tensor &a, const at::Tensor &b,
                      at::Tensor &out) {
  return binary_out(hypot_op, a, b, out);
}

// fmod.Scalar and its in-place and `out=` forms are PyTorch's compositions
// of these with the number as a 0-dim host tensor: the library's scalar
// form.
at::Tensor fmod(const at::Tensor &a, const at::Tensor &b) {
  at::ScalarType type = at::result_type(a, b);
  check_integral_divisor(type, b);
  return binary(fmod_op, a, b, type);
}
at::Tensor &fmod_(at::Tensor &a, const at::Tensor &b) {
  check_integral_divisor(at::result_type(a, b), b);
  return binary_(fmod_op, a, b);
}
at::Tensor &fmod_out(const at::Tensor &a, const at::Tensor &b,
                     at::Tensor &out) {
  check_integral_divisor(at::result_type(a, b), b);
  return binary_out(fmod_op, a, b, out);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("atan2", atan2);
  m.impl("atan2_", atan2_);
  m.impl("atan2.out", atan2_out);
  m.impl("hypot", hypot);
  m.impl("hypot_", hypot_);
  m.impl("hypot.out", hypot_out);
  m.impl("fmod.Tensor", fmod);
  m.impl("fmod_.Tensor", fmod_);
  m.impl("fmod.Tensor_out", fmod_out);
}

} // namespace torch_backplane
