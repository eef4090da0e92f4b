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

// The dim PReLU's weight runs along, as PyTorch's prelu takes it: -1 for
// one slope, else dim 1 (dim 0 of a 1-d input).
int64_t prelu_channel(const at::Tensor &self, const at::Tensor &weight) {
  if (weight.numel() == 1)
    return -1;
  return self.dim() >= 2 ? 1 : 0;
}

// PReLU's weight seen so that it broadcasts over self.
at::Tensor prelu_slopes(const at::Tensor &self, const at::Tensor &weight) {
  int64_t n = weight.numel(), channel = prelu_channel(self, weight);
  if (channel < 0)
    return weight.view(c10::IntArrayRef{}); // not view({}): a dtype
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
  at::Tensor out = new_like(self), scaled = new_like(self);
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
  at::Tensor grad_self = new_like(self), grad_weight = new_like(weight);
  at::Tensor scaled = new_like(self);
  OpContext ctx(self);
  at::Tensor mask = positive(ctx, self);
  DiopiTensor gs(grad_self), g(grad_output), x(self), w(slopes), m(mask),
      s(scaled);
  diopiScalar_t zero = diopi_scalar(0);
  BP_CALL(diopiMul, ctx, s, g, w);
  BP_CALL(diopiWhere, ctx, gs, m, g, s);
  BP_CALL(diopiMul, ctx, s, g, x);
  BP_CALL(diopiMaskedFillInpScalar, ctx, s, m, &zero);
  int64_t channel = prelu_channel(self, weight);
  std::vector<int64_t> dims, summed; // summed: the weight's shape, (C) or ()
  for (int64_t d = 0; d < self.dim(); d++)
    if (d != channel)
      dims.push_back(d);
  if (channel >= 0)
    summed.push_back(weight.numel());
  DiopiTensor gw(grad_weight.view(summed));
  BP_CALL(diopiSum, ctx, gw, s, diopi_size(dims));
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
  at::Tensor out = new_like(value), sig = new_like(gate);
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
  at::Tensor grad_input = new_like(self);
  int64_t half = value.size(dim);
  at::Tensor sig = new_like(gate), product = new_like(gate);
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
