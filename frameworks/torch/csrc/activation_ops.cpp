// Elementwise kernels of the op library's ref_extra_unary.c family: lgamma,
// digamma (lgamma's backward), erfc, round, trunc, frac, hardsigmoid, mish,
// elu and softplus with the backwards autograd calls (round, trunc and frac
// have zero gradients; digamma's backward is polygamma(1, x), in
// special_ops.cpp). Each is one DIOPI call on the device's current stream;
// strides are the library's.
#include <torch/library.h>

#include "kernel_util.h"
#include "unary_kernels.h"

namespace torch_backplane {
namespace {

using BackwardFn = diopiError_t (*)(diopiContextHandle_t, diopiTensorHandle_t,
                                    diopiConstTensorHandle_t,
                                    diopiConstTensorHandle_t);

BP_UNARY(lgamma, Lgamma, true)
BP_UNARY(digamma, Digamma, true)
BP_UNARY(erfc, Erfc, true)
BP_UNARY(round, Round, false)
BP_UNARY(trunc, Trunc, false)
BP_UNARY(frac, Frac, false)
BP_UNARY(hardsigmoid, Hardsigmoid, false)
BP_UNARY(mish, Mish, false)

at::Tensor backward(const char *name, BackwardFn fn,
                    const at::Tensor &grad_output, const at::Tensor &self) {
  at::Tensor gi =
      new_tensor(grad_output, self.sizes(), grad_output.scalar_type());
  if (gi.numel() == 0)
    return gi;
  OpContext ctx(gi);
  DiopiTensor g(gi), go(grad_output), x(self);
  check_op(name, fn(ctx, g, go, x));
  return gi;
}
at::Tensor hardsigmoid_backward(const at::Tensor &grad_output,
                                const at::Tensor &self) {
  return backward("diopiHardsigmoidBackward",
                  BP_DIOPI(diopiHardsigmoidBackward), grad_output, self);
}
at::Tensor mish_backward(const at::Tensor &grad_output,
                         const at::Tensor &self) {
  return backward("diopiMishBackward", BP_DIOPI(diopiMishBackward), grad_output,
                  self);
}

at::Tensor &elu_into(at::Tensor &out, const at::Tensor &s,
                     const c10::Scalar &alpha, const c10::Scalar &scale,
                     const c10::Scalar &input_scale) {
  if (out.numel() == 0)
    return out;
  OpContext ctx(out);
  DiopiTensor o(out), x(s);
  diopiScalar_t a = diopi_scalar(alpha), k = diopi_scalar(scale),
                i = diopi_scalar(input_scale);
  BP_CALL(diopiElu, ctx, o, x, &a, &k, &i);
  return out;
}
at::Tensor elu(const at::Tensor &s, const c10::Scalar &alpha,
               const c10::Scalar &scale, const c10::Scalar &input_scale) {
  at::Tensor out = new_tensor(s, s.sizes(), s.scalar_type());
  return elu_into(out, s, alpha, scale, input_scale);
}
at::Tensor &elu_(at::Tensor &s, const c10::Scalar &alpha,
                 const c10::Scalar &scale, const c10::Scalar &input_scale) {
  return elu_into(s, s, alpha, scale, input_scale);
}
at::Tensor &elu_out(const at::Tensor &s, const c10::Scalar &alpha,
                    const c10::Scalar &scale, const c10::Scalar &input_scale,
                    at::Tensor &out) {
  return elu_into(shaped_out(out, s.sizes()), s, alpha, scale, input_scale);
}
at::Tensor elu_backward(const at::Tensor &grad_output, const c10::Scalar &alpha,
                        const c10::Scalar &scale,
                        const c10::Scalar &input_scale, bool is_result,
                        const at::Tensor &self_or_result) {
  at::Tensor gi = new_tensor(grad_output, self_or_result.sizes(),
                             grad_output.scalar_type());
  if (gi.numel() == 0)
    return gi;
  OpContext ctx(gi);
  DiopiTensor g(gi), go(grad_output), x(self_or_result);
  diopiScalar_t a = diopi_scalar(alpha), k = diopi_scalar(scale),
                i = diopi_scalar(input_scale);
  BP_CALL(diopiEluBackward, ctx, g, go, x, &a, &k, &i, is_result);
  return gi;
}

at::Tensor &softplus_into(at::Tensor &out, const at::Tensor &s,
                          const c10::Scalar &beta,
                          const c10::Scalar &threshold) {
  if (out.numel() == 0)
    return out;
  OpContext ctx(out);
  DiopiTensor o(out), x(s);
  diopiScalar_t b = diopi_scalar(beta), t = diopi_scalar(threshold);
  BP_CALL(diopiSoftplus, ctx, o, x, &b, &t);
  return out;
}
at::Tensor softplus(const at::Tensor &s, const c10::Scalar &beta,
                    const c10::Scalar &threshold) {
  at::Tensor out = new_tensor(s, s.sizes(), s.scalar_type());
  return softplus_into(out, s, beta, threshold);
}
at::Tensor &softplus_out(const at::Tensor &s, const c10::Scalar &beta,
                         const c10::Scalar &threshold, at::Tensor &out) {
  return softplus_into(shaped_out(out, s.sizes()), s, beta, threshold);
}
at::Tensor softplus_backward(const at::Tensor &grad_output,
                             const at::Tensor &self, const c10::Scalar &beta,
                             const c10::Scalar &threshold) {
  at::Tensor gi =
      new_tensor(grad_output, self.sizes(), grad_output.scalar_type());
  if (gi.numel() == 0)
    return gi;
  OpContext ctx(gi);
  DiopiTensor g(gi), go(grad_output), x(self);
  diopiScalar_t b = diopi_scalar(beta), t = diopi_scalar(threshold);
  BP_CALL(diopiSoftplusBackward, ctx, g, go, x, &b, &t);
  return gi;
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  BP_UNARY_REGISTER(m, lgamma);
  BP_UNARY_REGISTER(m, digamma);
  BP_UNARY_REGISTER(m, erfc);
  BP_UNARY_REGISTER(m, round);
  BP_UNARY_REGISTER(m, trunc);
  BP_UNARY_REGISTER(m, frac);
  BP_UNARY_REGISTER(m, hardsigmoid);
  BP_UNARY_REGISTER(m, mish);
  m.impl("hardsigmoid_backward", hardsigmoid_backward);
  m.impl("mish_backward", mish_backward);
  m.impl("elu", elu);
  m.impl("elu_", elu_);
  m.impl("elu.out", elu_out);
  m.impl("elu_backward", elu_backward);
  m.impl("softplus", softplus);
  m.impl("softplus.out", softplus_out);
  m.impl("softplus_backward", softplus_backward);
}

} // namespace torch_backplane
