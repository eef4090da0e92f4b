// cdist on the device: _cdist_forward and _cdist_backward (torch.cdist
// takes them for p != 2 and for small p = 2 inputs; larger p = 2 inputs go
// through matrix products). Batch dims broadcast; autograd sums a
// broadcast input's gradient back to its shape.
#include <ATen/ExpandUtils.h>
#include <torch/library.h>

#include "kernel_util.h"

namespace torch_backplane {
namespace {

// x [..., rows, features] expanded to `batch` leading dims.
at::Tensor with_batch(const at::Tensor &x, c10::IntArrayRef batch) {
  std::vector<int64_t> shape = batch.vec();
  shape.push_back(x.size(-2));
  shape.push_back(x.size(-1));
  return x.expand(shape);
}

std::vector<int64_t> batch_of(const at::Tensor &x1, const at::Tensor &x2) {
  return at::infer_size(x1.sizes().slice(0, x1.dim() - 2),
                        x2.sizes().slice(0, x2.dim() - 2));
}

void check_inputs(const at::Tensor &x1, const at::Tensor &x2, double p) {
  TORCH_CHECK(x1.dim() >= 2,
              "cdist only supports at least 2D tensors, X1 got: ", x1.dim(),
              "D");
  TORCH_CHECK(x2.dim() >= 2,
              "cdist only supports at least 2D tensors, X2 got: ", x2.dim(),
              "D");
  TORCH_CHECK(x1.size(-1) == x2.size(-1),
              "X1 and X2 must have the same number of columns. X1: ",
              x1.size(-1), " X2: ", x2.size(-1));
  TORCH_CHECK(p >= 0, "cdist only supports non-negative p values");
}

at::Tensor cdist_forward(const at::Tensor &x1, const at::Tensor &x2, double p,
                         c10::optional<int64_t> compute_mode) {
  check_inputs(x1, x2, p);
  auto batch = batch_of(x1, x2);
  at::Tensor a = with_batch(x1, batch), b = with_batch(x2, batch);
  std::vector<int64_t> shape = batch;
  shape.push_back(x1.size(-2));
  shape.push_back(x2.size(-2));
  at::Tensor out = new_tensor(x1, shape, x1.scalar_type());
  if (out.numel() == 0)
    return out;
  int64_t mode = compute_mode.value_or(0);
  OpContext ctx(x1);
  DiopiTensor o(out), ta(a), tb(b);
  BP_CALL(diopiCdist, ctx, o, ta, tb, p,
          compute_mode.has_value() ? &mode : nullptr);
  return out;
}

// The gradient for x1 (autograd calls it with the inputs swapped for x2).
at::Tensor cdist_backward(const at::Tensor &grad, const at::Tensor &x1,
                          const at::Tensor &x2, double p,
                          const at::Tensor &cdist) {
  check_inputs(x1, x2, p);
  auto batch = batch_of(x1, x2);
  at::Tensor a = with_batch(x1, batch), b = with_batch(x2, batch);
  at::Tensor grad_input = new_tensor(x1, a.sizes(), x1.scalar_type());
  if (grad_input.numel() == 0)
    return grad_input;
  OpContext ctx(x1);
  DiopiTensor gi(grad_input), go(grad), ta(a), tb(b), d(cdist);
  BP_CALL(diopiCdistBackward, ctx, gi, go, ta, tb, p, d);
  return grad_input;
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_cdist_forward", cdist_forward);
  m.impl("_cdist_backward", cdist_backward);
}

} // namespace torch_backplane
