// Activations that weigh their input by a second tensor: PReLU (a learned
// slope per channel for x <= 0) and GLU (one half of the input gated by the
// sigmoid of the other), forward and backward, as compositions of DIOPI
// ops on the device's current stream.
#include <torch/library.h>

#include <tuple>
#include <vector>

#include "kernel_util.h"

namespace torch_backplane {
namespace {

at::Tensor like(const at::Tensor &t) {
  return new_tensor(t, t.sizes(), t.scalar_type());
}

// PReLU's weight seen so that it broadcasts over self: one slope, or one
// per channel (dim 1; dim 0 of a 1-d input), as PyTorch's prelu takes it.
at::Tensor prelu_slopes(const at::Tensor &self, const at::Tensor &weight) {
  int64_t n = weight.numel();
  if (n == 1)
    return weight.view(c10::IntArrayRef{}); // not view({}): a dtype
  int64_t channel = self.dim() >= 2 ? 1 : 0;
  TORCH_CHECK(weight.dim() == 1 && self.dim() > 0 && self.size(channel) == n,
              "prelu: weight of ", n, " values for an input of shape ",
              self.sizes(), " (its channels: dim ", channel, ")");
  std::vector<int64_t> shape(self.dim(), 1);
  shape[channel] = n;
  return weight.view(shape);
}

// Where x > 0 (bool, x's shape).
at::Tensor positive(const OpContext &ctx, const at::Tensor &x) {
  at::Tensor mask = new_tensor(x, x.sizes(), at::kBool);
  DiopiTensor m(mask), in(x);
  diopiScalar_t zero = diopi_scalar(0);
  BP_CALL(diopiGtScalar, ctx, m, in, &zero);
  return mask;
}

at::Tensor prelu(const at::Tensor &self, const at::Tensor &weight) {
  at::Tensor slopes = prelu_slopes(self, weight);
  at::Tensor out = like(self), scaled = like(self);
  OpContext ctx(self);
  at::Tensor mask = positive(ctx, self);
  DiopiTensor o(out), s(scaled), x(self), w(slopes), m(mask);
  BP_CALL(diopiMul, ctx, s, x, w);
  BP_CALL(diopiWhere, ctx, o, m, x, s);
  return out;
}

// grad_self = g where x > 0, else g * w; grad_weight = the sum of g * x
// where x <= 0 over every dim but the channel's.
std::tuple<at::Tensor, at::Tensor> prelu_backward(const at::Tensor &grad_output,
                                                  const at::Tensor &self,
                                                  const at::Tensor &weight) {
  at::Tensor slopes = prelu_slopes(self, weight);
  at::Tensor grad_self = like(self), grad_weight = like(weight);
  at::Tensor scaled = like(self), masked = like(self), zero_t = like(self);
  OpContext ctx(self);
  at::Tensor mask = positive(ctx, self);
  DiopiTensor gs(grad_self), g(grad_output), x(self), w(slopes), m(mask),
      s(scaled), mk(masked), z(zero_t);
  diopiScalar_t zero = diopi_scalar(0);
  BP_CALL(diopiMul, ctx, s, g, w);
  BP_CALL(diopiWhere, ctx, gs, m, g, s);
  BP_CALL(diopiMul, ctx, s, g, x);
  BP_CALL(diopiFill, ctx, z, &zero);
  BP_CALL(diopiWhere, ctx, mk, m, z, s);
  std::vector<int64_t> dims;
  int64_t channel = weight.numel() == 1 ? -1 : self.dim() >= 2 ? 1 : 0;
  for (int64_t d = 0; d < self.dim(); d++)
    if (d != channel)
      dims.push_back(d);
  std::vector<int64_t> summed; // the weight's shape: (C) or ()
  if (channel >= 0)
    summed.push_back(weight.numel());
  DiopiTensor gw(grad_weight.view(summed));
  BP_CALL(diopiSum, ctx, gw, mk, diopi_size(dims));
  return {grad_self, grad_weight};
}

// GLU's two halves of self along dim: the value and the gate.
std::tuple<at::Tensor, at::Tensor> glu_halves(const at::Tensor &self,
                                              int64_t &dim) {
  dim = wrap_dim(dim, self.dim());
  int64_t n = self.size(dim);
  TORCH_CHECK(n % 2 == 0, "glu: halving dim ", dim, " of size ", n,
              " needs an even size");
  return {self.narrow(dim, 0, n / 2), self.narrow(dim, n / 2, n / 2)};
}

at::Tensor glu(const at::Tensor &self, int64_t dim) {
  auto [value, gate] = glu_halves(self, dim);
  at::Tensor out = like(value), sig = like(gate);
  OpContext ctx(self);
  DiopiTensor o(out), s(sig), v(value), gt(gate);
  BP_CALL(diopiSigmoid, ctx, s, gt);
  BP_CALL(diopiMul, ctx, o, v, s);
  return out;
}

// d value = g * sigmoid(gate); d gate = (g * value) * s * (1 - s).
at::Tensor glu_backward(const at::Tensor &grad_output, const at::Tensor &self,
                        int64_t dim) {
  auto [value, gate] = glu_halves(self, dim);
  at::Tensor grad_input = like(self);
  int64_t half = value.size(dim);
  at::Tensor sig = like(gate), product = like(gate);
  OpContext ctx(self);
  DiopiTensor s(sig), p(product), g(grad_output), v(value), gt(gate),
      gv(grad_input.narrow(dim, 0, half)),
      gg(grad_input.narrow(dim, half, half));
  BP_CALL(diopiSigmoid, ctx, s, gt);
  BP_CALL(diopiMul, ctx, gv, g, s);
  BP_CALL(diopiMul, ctx, p, g, v);
  BP_CALL(diopiSigmoidBackward, ctx, gg, p, s);
  return grad_input;
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("prelu", prelu);
  m.impl("prelu_backward", prelu_backward);
  m.impl("glu", glu);
  m.impl("glu_backward", glu_backward);
}

} // namespace torch_backplane
