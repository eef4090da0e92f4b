// 3-D pooling on the device: max_pool3d_with_indices and avg_pool3d with
// their backward (so F.max_pool3d, F.avg_pool3d, nn.MaxPool3d, ...), over
// (N, C, D, H, W) or (C, D, H, W) input; one DIOPI call each.
#include <torch/library.h>

#include "pool_kernels.h"

namespace torch_backplane {
namespace {

std::tuple<at::Tensor, at::Tensor>
max_pool3d_with_indices(const at::Tensor &self, c10::IntArrayRef kernel_size,
                        c10::IntArrayRef stride, c10::IntArrayRef padding,
                        c10::IntArrayRef dilation, bool ceil_mode) {
  PoolWindow w(3, kernel_size, stride, padding, dilation);
  auto shape = pooled_shape("max_pool3d", self, w, ceil_mode);
  at::Tensor out = at::empty(shape, self.options());
  at::Tensor indices = at::empty(shape, self.options().dtype(at::kLong));
  OpContext ctx(self);
  DiopiTensor o(out), i(indices), x(self);
  BP_CALL(diopiMaxPool3dWithIndices, ctx, o, i, x, diopi_size(w.k),
          diopi_size(w.s), diopi_size(w.p), diopi_size(w.d), ceil_mode);
  return {out, indices};
}

at::Tensor max_pool3d_with_indices_backward(
    const at::Tensor &grad_output, const at::Tensor &self,
    c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool ceil_mode,
    const at::Tensor &indices) {
  PoolWindow w(3, kernel_size, stride, padding, dilation);
  at::Tensor grad_input = at::empty(self.sizes(), self.options());
  OpContext ctx(self);
  DiopiTensor gi(grad_input), go(grad_output), x(self), i(indices);
  BP_CALL(diopiMaxPool3dBackward, ctx, gi, go, x, diopi_size(w.k),
          diopi_size(w.s), diopi_size(w.p), diopi_size(w.d), ceil_mode, i);
  return grad_input;
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("max_pool3d_with_indices", max_pool3d_with_indices);
  m.impl("max_pool3d_with_indices_backward", max_pool3d_with_indices_backward);
  m.impl("avg_pool3d", avg_pool<3>);
  m.impl("avg_pool3d_backward", avg_pool_backward<3>);
}

} // namespace torch_backplane
