// Elementwise kernels: add/sub/mul/div (tensor and scalar forms,
// broadcasting, in place; div with a rounding mode too, so floor_divide) and
// the activations (relu, sigmoid, tanh, gelu, threshold) with their
// backward, each one DIOPI call on the device's current stream.
#include <ATen/ExpandUtils.h>
#include <ATen/ScalarOps.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/result_type.h>
#include <c10/core/ScalarType.h>
#include <torch/library.h>

#include "kernel_util.h"
#include "unary_kernels.h"

namespace torch_backplane {
namespace {

enum class Binary { kAdd, kSub, kMul, kDiv };

// div rounds its quotient with `mode` (RoundModeNone: a true quotient).
at::ScalarType result_dtype(Binary op, const at::Tensor &a, const at::Tensor &b,
                            diopiRoundMode_t mode = RoundModeNone) {
  at::ScalarType type = at::result_type(a, b);
  if (op == Binary::kDiv && mode == RoundModeNone &&
      c10::isIntegralType(type, /*includeBool=*/true))
    type = c10::typeMetaToScalarType(c10::get_default_dtype());
  return type;
}

// out = a <op> alpha * b (out may be a: the in-place forms).
void run_binary(Binary op, const at::Tensor &out, const at::Tensor &a,
                const at::Tensor &b, const c10::Scalar &alpha,
                diopiRoundMode_t mode = RoundModeNone) {
  if (out.numel() == 0)
    return;
  at::Tensor lhs = a.device().is_cpu() ? a.to(out.device()) : a;
  OpContext ctx(out);
  diopiScalar_t scale = diopi_scalar(alpha);
  bool in_place = out.is_same(a);
  DiopiTensor o(out), x(lhs);
  if (is_host_scalar(b)) {
    diopiScalar_t s = diopi_scalar(b.item());
    switch (op) {
    case Binary::kAdd:
      if (in_place)
        return BP_CALL(diopiAddInpScalar, ctx, o, &s, &scale);
      return BP_CALL(diopiAddScalar, ctx, o, x, &s, &scale);
    case Binary::kSub:
      if (in_place)
        return BP_CALL(diopiSubInpScalar, ctx, o, &s, &scale);
      return BP_CALL(diopiSubScalar, ctx, o, x, &s, &scale);
    case Binary::kMul:
      if (in_place)
        return BP_CALL(diopiMulInpScalar, ctx, o, &s);
      return BP_CALL(diopiMulScalar, ctx, o, x, &s);
    case Binary::kDiv:
      if (in_place)
        return BP_CALL(diopiDivInpScalar, ctx, o, &s, mode);
      return BP_CALL(diopiDivScalar, ctx, o, x, &s, mode);
    }
  }
  TORCH_CHECK(b.device() == out.device(),
              "backplane: expected all tensors "
              "to be on the same device, but found ",
              out.device(), " and ", b.device());
  DiopiTensor y(b);
  switch (op) {
  case Binary::kAdd:
    if (in_place)
      return BP_CALL(diopiAddInp, ctx, o, y, &scale);
    return BP_CALL(diopiAdd, ctx, o, x, y, &scale);
  case Binary::kSub:
    if (in_place)
      return BP_CALL(diopiSubInp, ctx, o, y, &scale);
    return BP_CALL(diopiSub, ctx, o, x, y, &scale);
  case Binary::kMul:
    if (in_place)
      return BP_CALL(diopiMulInp, ctx, o, y);
    return BP_CALL(diopiMul, ctx, o, x, y);
  case Binary::kDiv:
    if (in_place)
      return BP_CALL(diopiDivInp, ctx, o, y, mode);
    return BP_CALL(diopiDiv, ctx, o, x, y, mode);
  }
}

at::Tensor binary(Binary op, const at::Tensor &a, const at::Tensor &b,
                  const c10::Scalar &alpha,
                  diopiRoundMode_t mode = RoundModeNone) {
  const at::Tensor &on = a.device().is_cpu() ? b : a;
  at::Tensor out = at::empty(at::infer_size(a.sizes(), b.sizes()),
                             on.options().dtype(result_dtype(op, a, b, mode)));
  run_binary(op, out, a, b, alpha, mode);
  return out;
}

at::Tensor &binary_(Binary op, at::Tensor &self, const at::Tensor &b,
                    const c10::Scalar &alpha,
                    diopiRoundMode_t mode = RoundModeNone) {
  at::ScalarType type = result_dtype(op, self, b, mode);
  TORCH_CHECK(c10::canCast(type, self.scalar_type()), "result type ", type,
              " can't be cast to the desired output type ", self.scalar_type());
  run_binary(op, self, self, b, alpha, mode);
  return self;
}

at::Tensor &binary_out(Binary op, const at::Tensor &a, const at::Tensor &b,
                       const c10::Scalar &alpha, at::Tensor &out,
                       diopiRoundMode_t mode = RoundModeNone) {
  auto shape = at::infer_size(a.sizes(), b.sizes());
  if (!out.sizes().equals(shape))
    out.resize_(shape);
  run_binary(op, out, a, b, alpha, mode);
  return out;
}

at::Tensor add(const at::Tensor &a, const at::Tensor &b,
               const c10::Scalar &alpha) {
  return binary(Binary::kAdd, a, b, alpha);
}
at::Tensor &add_(at::Tensor &a, const at::Tensor &b, const c10::Scalar &alpha) {
  return binary_(Binary::kAdd, a, b, alpha);
}
at::Tensor sub(const at::Tensor &a, const at::Tensor &b,
               const c10::Scalar &alpha) {
  return binary(Binary::kSub, a, b, alpha);
}
at::Tensor &sub_(at::Tensor &a, const at::Tensor &b, const c10::Scalar &alpha) {
  return binary_(Binary::kSub, a, b, alpha);
}
at::Tensor mul(const at::Tensor &a, const at::Tensor &b) {
  return binary(Binary::kMul, a, b, 1);
}
at::Tensor &mul_(at::Tensor &a, const at::Tensor &b) {
  return binary_(Binary::kMul, a, b, 1);
}
at::Tensor div(const at::Tensor &a, const at::Tensor &b) {
  return binary(Binary::kDiv, a, b, 1);
}
at::Tensor &div_(at::Tensor &a, const at::Tensor &b) {
  return binary_(Binary::kDiv, a, b, 1);
}

at::Tensor &add_out(const at::Tensor &a, const at::Tensor &b,
                    const c10::Scalar &alpha, at::Tensor &out) {
  return binary_out(Binary::kAdd, a, b, alpha, out);
}
at::Tensor &sub_out(const at::Tensor &a, const at::Tensor &b,
                    const c10::Scalar &alpha, at::Tensor &out) {
  return binary_out(Binary::kSub, a, b, alpha, out);
}
at::Tensor &mul_out(const at::Tensor &a, const at::Tensor &b, at::Tensor &out) {
  return binary_out(Binary::kMul, a, b, 1, out);
}
at::Tensor &div_out(const at::Tensor &a, const at::Tensor &b, at::Tensor &out) {
  return binary_out(Binary::kDiv, a, b, 1, out);
}

// div's rounding_mode (None, "trunc", "floor") as the library's; an
// integral quotient by zero raises, as PyTorch's.
diopiRoundMode_t round_mode(const c10::optional<c10::string_view> &mode,
                            const at::Tensor &a, const at::Tensor &b) {
  if (!mode.has_value())
    return RoundModeNone;
  TORCH_CHECK(*mode == "trunc" || *mode == "floor",
              "div expected rounding_mode to be one of None, 'trunc', or "
              "'floor' but found '",
              *mode, "'");
  check_integral_divisor(at::result_type(a, b), b);
  return *mode == "trunc" ? RoundModeTrunc : RoundModeFloor;
}
at::Tensor div_mode(const at::Tensor &a, const at::Tensor &b,
                    c10::optional<c10::string_view> mode) {
  return binary(Binary::kDiv, a, b, 1, round_mode(mode, a, b));
}
at::Tensor &div_mode_(at::Tensor &a, const at::Tensor &b,
                      c10::optional<c10::string_view> mode) {
  return binary_(Binary::kDiv, a, b, 1, round_mode(mode, a, b));
}
at::Tensor &div_mode_out(const at::Tensor &a, const at::Tensor &b,
                         c10::optional<c10::string_view> mode,
                         at::Tensor &out) {
  return binary_out(Binary::kDiv, a, b, 1, out, round_mode(mode, a, b));
}

// floor_divide: div with rounding_mode "floor" (PyTorch 1.13's); a number
// other is a wrapped scalar, promoting as one.
const c10::optional<c10::string_view> kFloor = c10::string_view("floor");
at::Tensor floor_divide(const at::Tensor &a, const at::Tensor &b) {
  return div_mode(a, b, kFloor);
}
at::Tensor floor_divide_scalar(const at::Tensor &a, const c10::Scalar &b) {
  return div_mode(a, at::native::wrapped_scalar_tensor(b), kFloor);
}
at::Tensor &floor_divide_(at::Tensor &a, const at::Tensor &b) {
  return div_mode_(a, b, kFloor);
}
at::Tensor &floor_divide_scalar_(at::Tensor &a, const c10::Scalar &b) {
  return div_mode_(a, at::native::wrapped_scalar_tensor(b), kFloor);
}
at::Tensor &floor_divide_out(const at::Tensor &a, const at::Tensor &b,
                             at::Tensor &out) {
  return div_mode_out(a, b, kFloor, out);
}

// ---- Activations --------------------------------------------------------

at::Tensor relu(const at::Tensor &s) {
  return unary("diopiRelu", BP_DIOPI(diopiRelu), s, false);
}
at::Tensor &relu_(at::Tensor &s) {
  return unary_("diopiReluInp", BP_DIOPI(diopiReluInp), s);
}
at::Tensor sigmoid(const at::Tensor &s) {
  return unary("diopiSigmoid", BP_DIOPI(diopiSigmoid), s, true);
}
at::Tensor &sigmoid_(at::Tensor &s) {
  check_floating_in_place(s);
  return unary_("diopiSigmoidInp", BP_DIOPI(diopiSigmoidInp), s);
}
at::Tensor tanh(const at::Tensor &s) {
  return unary("diopiTanh", BP_DIOPI(diopiTanh), s, true);
}
at::Tensor &tanh_(at::Tensor &s) {
  check_floating_in_place(s);
  return unary_("diopiTanhInp", BP_DIOPI(diopiTanhInp), s);
}

at::Tensor gelu(const at::Tensor &self, c10::string_view approximate) {
  std::string mode(approximate);
  return unary("diopiGelu", BP_DIOPI(diopiGelu), self, false, mode.c_str());
}

at::Tensor threshold(const at::Tensor &s, const c10::Scalar &threshold,
                     const c10::Scalar &value) {
  return unary("diopiThreshold", BP_DIOPI(diopiThreshold), s, false, threshold,
               value);
}
at::Tensor &threshold_(at::Tensor &s, const c10::Scalar &threshold,
                       const c10::Scalar &value) {
  return unary_("diopiThresholdInp", BP_DIOPI(diopiThresholdInp), s, threshold,
                value);
}
at::Tensor &threshold_out(const at::Tensor &s, const c10::Scalar &threshold,
                          const c10::Scalar &value, at::Tensor &out) {
  return unary_out("diopiThreshold", BP_DIOPI(diopiThreshold), s, out,
                   threshold, value);
}

at::Tensor threshold_backward(const at::Tensor &grad_output,
                              const at::Tensor &self,
                              const c10::Scalar &threshold) {
  return unary_backward("diopiThresholdBackward",
                        BP_DIOPI(diopiThresholdBackward), grad_output, self,
                        threshold);
}

at::Tensor sigmoid_backward(const at::Tensor &grad_output,
                            const at::Tensor &output) {
  return unary_backward("diopiSigmoidBackward", BP_DIOPI(diopiSigmoidBackward),
                        grad_output, output);
}

at::Tensor tanh_backward(const at::Tensor &grad_output,
                         const at::Tensor &output) {
  return unary_backward("diopiTanhBackward", BP_DIOPI(diopiTanhBackward),
                        grad_output, output);
}

at::Tensor gelu_backward(const at::Tensor &grad_output, const at::Tensor &self,
                         c10::string_view approximate) {
  std::string mode(approximate);
  return unary_backward("diopiGeluBackward", BP_DIOPI(diopiGeluBackward),
                        grad_output, self, mode.c_str());
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("add.Tensor", add);
  m.impl("add.out", add_out);
  m.impl("sub.out", sub_out);
  m.impl("mul.out", mul_out);
  m.impl("div.out", div_out);
  m.impl("add_.Tensor", add_);
  m.impl("sub.Tensor", sub);
  m.impl("sub_.Tensor", sub_);
  m.impl("mul.Tensor", mul);
  m.impl("mul_.Tensor", mul_);
  m.impl("div.Tensor", div);
  m.impl("div_.Tensor", div_);
  m.impl("div.Tensor_mode", div_mode);
  m.impl("div_.Tensor_mode", div_mode_);
  m.impl("div.out_mode", div_mode_out);
  m.impl("floor_divide", floor_divide);
  m.impl("floor_divide.Scalar", floor_divide_scalar);
  m.impl("floor_divide_.Tensor", floor_divide_);
  m.impl("floor_divide_.Scalar", floor_divide_scalar_);
  m.impl("floor_divide.out", floor_divide_out);
  m.impl("relu", relu);
  m.impl("relu_", relu_);
  m.impl("sigmoid", sigmoid);
  m.impl("sigmoid_", sigmoid_);
  m.impl("tanh", tanh);
  m.impl("tanh_", tanh_);
  m.impl("gelu", gelu);
  m.impl("threshold", threshold);
  m.impl("threshold_", threshold_);
  m.impl("threshold.out", threshold_out);
  m.impl("threshold_backward", threshold_backward);
  m.impl("sigmoid_backward", sigmoid_backward);
  m.impl("tanh_backward", tanh_backward);
  m.impl("gelu_backward", gelu_backward);
}

} // namespace torch_backplane
