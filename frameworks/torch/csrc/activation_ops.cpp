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

BP_UNARY(lgamma, Lgamma, true)
BP_UNARY(digamma, Digamma, true)
BP_UNARY(erfc, Erfc, true)
BP_UNARY(round, Round, false)
BP_UNARY(trunc, Trunc, false)
BP_UNARY(frac, Frac, false)
BP_UNARY(hardsigmoid, Hardsigmoid, false)
BP_UNARY(mish, Mish, false)

at::Tensor hardsigmoid_backward(const at::Tensor &grad_output,
                                const at::Tensor &self) {
  return unary_backward("diopiHardsigmoidBackward",
                        BP_DIOPI(diopiHardsigmoidBackward), grad_output, self);
}
at::Tensor mish_backward(const at::Tensor &grad_output,
                         const at::Tensor &self) {
  return unary_backward("diopiMishBackward", BP_DIOPI(diopiMishBackward),
                        grad_output, self);
}

at::Tensor elu(const at::Tensor &s, const c10::Scalar &alpha,
               const c10::Scalar &scale, const c10::Scalar &input_scale) {
  return unary("diopiElu", BP_DIOPI(diopiElu), s, false, alpha, scale,
               input_scale);
}
at::Tensor &elu_(at::Tensor &s, const c10::Scalar &alpha,
                 const c10::Scalar &scale, const c10::Scalar &input_scale) {
  run_unary("diopiElu", BP_DIOPI(diopiElu), s, s, alpha, scale, input_scale);
  return s;
}
at::Tensor &elu_out(const at::Tensor &s, const c10::Scalar &alpha,
                    const c10::Scalar &scale, const c10::Scalar &input_scale,
                    at::Tensor &out) {
  return unary_out("diopiElu", BP_DIOPI(diopiElu), s, out, alpha, scale,
                   input_scale);
}
at::Tensor elu_backward(const at::Tensor &grad_output, const c10::Scalar &alpha,
                        const c10::Scalar &scale,
                        const c10::Scalar &input_scale, bool is_result,
                        const at::Tensor &self_or_result) {
  return unary_backward("diopiEluBackward", BP_DIOPI(diopiEluBackward),
                        grad_output, self_or_result, alpha, scale, input_scale,
                        is_result);
}

at::Tensor softplus(const at::Tensor &s, const c10::Scalar &beta,
                    const c10::Scalar &threshold) {
  return unary("diopiSoftplus", BP_DIOPI(diopiSoftplus), s, false, beta,
               threshold);
}
at::Tensor &softplus_out(const at::Tensor &s, const c10::Scalar &beta,
                         const c10::Scalar &threshold, at::Tensor &out) {
  return unary_out("diopiSoftplus", BP_DIOPI(diopiSoftplus), s, out, beta,
                   threshold);
}
at::Tensor softplus_backward(const at::Tensor &grad_output,
                             const at::Tensor &self, const c10::Scalar &beta,
                             const c10::Scalar &threshold) {
  return unary_backward("diopiSoftplusBackward",
                        BP_DIOPI(diopiSoftplusBackward), grad_output, self,
                        beta, threshold);
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
