// Elementwise kernels of the op library's ref_extra_unary.c family: lgamma,
// digamma (lgamma's backward), erfc, round, trunc, frac, hardsigmoid, mish,
// elu, softplus and log_sigmoid with the backwards autograd calls, and
// nan_to_num (round, trunc and frac
// have zero gradients; digamma's backward is polygamma(1, x), in
// special_ops.cpp). Each is one DIOPI call on the device's current stream;
// strides are the library's.
#include <ATen/Dispatch.h>
#include <torch/library.h>

#include <limits>

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

// log_sigmoid's buffer is empty, as PyTorch's CPU leaves it.
std::tuple<at::Tensor, at::Tensor> log_sigmoid_forward(const at::Tensor &s) {
  return {unary("diopiLogSigmoid", BP_DIOPI(diopiLogSigmoid), s, false),
          new_tensor(s, {0}, s.scalar_type())};
}
std::tuple<at::Tensor &, at::Tensor &>
log_sigmoid_forward_out(const at::Tensor &s, at::Tensor &out,
                        at::Tensor &buffer) {
  unary_out("diopiLogSigmoid", BP_DIOPI(diopiLogSigmoid), s, out);
  return {out, buffer};
}
at::Tensor log_sigmoid_backward(const at::Tensor &grad_output,
                                const at::Tensor &self,
                                const at::Tensor &buffer) {
  (void)buffer;
  return unary_backward("diopiLogSigmoidBackward",
                        BP_DIOPI(diopiLogSigmoidBackward), grad_output, self);
}

// nan_to_num's replacements, PyTorch's defaults for those not given: 0 for
// NaN, the largest and lowest finite values of `type` for the infinities.
struct NanToNum {
  c10::Scalar nan, posinf, neginf;
};
NanToNum replacements(at::ScalarType type, c10::optional<double> nan,
                      c10::optional<double> posinf,
                      c10::optional<double> neginf) {
  NanToNum r{nan.value_or(0.0), 0.0, 0.0};
  if (!c10::isFloatingType(type))
    return r; // an integral tensor is copied
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::kHalf, at::kBFloat16, type, "nan_to_num", [&] {
        r.posinf = posinf.value_or(
            static_cast<double>(std::numeric_limits<scalar_t>::max()));
        r.neginf = neginf.value_or(
            static_cast<double>(std::numeric_limits<scalar_t>::lowest()));
      });
  return r;
}
at::Tensor nan_to_num(const at::Tensor &s, c10::optional<double> nan,
                      c10::optional<double> posinf,
                      c10::optional<double> neginf) {
  NanToNum r = replacements(s.scalar_type(), nan, posinf, neginf);
  return unary("diopiNanToNum", BP_DIOPI(diopiNanToNum), s, false, r.nan,
               r.posinf, r.neginf);
}
at::Tensor &nan_to_num_(at::Tensor &s, c10::optional<double> nan,
                        c10::optional<double> posinf,
                        c10::optional<double> neginf) {
  NanToNum r = replacements(s.scalar_type(), nan, posinf, neginf);
  return unary_("diopiNanToNumInp", BP_DIOPI(diopiNanToNumInp), s, r.nan,
                r.posinf, r.neginf);
}
at::Tensor &nan_to_num_out(const at::Tensor &s, c10::optional<double> nan,
                           c10::optional<double> posinf,
                           c10::optional<double> neginf, at::Tensor &out) {
  NanToNum r = replacements(out.scalar_type(), nan, posinf, neginf);
  return unary_out("diopiNanToNum", BP_DIOPI(diopiNanToNum), s, out, r.nan,
                   r.posinf, r.neginf);
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
  m.impl("log_sigmoid_forward", log_sigmoid_forward);
  m.impl("log_sigmoid_forward.output", log_sigmoid_forward_out);
  m.impl("log_sigmoid_backward", log_sigmoid_backward);
  m.impl("nan_to_num", nan_to_num);
  m.impl("nan_to_num_", nan_to_num_);
  m.impl("nan_to_num.out", nan_to_num_out);
}

} // namespace torch_backplane
