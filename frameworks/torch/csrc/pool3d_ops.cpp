// 3-D pooling on the device: max_pool3d_with_indices and avg_pool3d with
// their backward (so F.max_pool3d, F.avg_pool3d, nn.MaxPool3d, ...), over
// (N, C, D, H, W) or (C, D, H, W) input; one DIOPI call each.
#include <torch/library.h>

#include "kernel_util.h"

namespace torch_backplane {
namespace {

// The input's shape with its last three dims pooled.
std::vector<int64_t>
pooled_shape(const at::Tensor &self, const std::vector<int64_t> &k,
             const std::vector<int64_t> &s, const std::vector<int64_t> &p,
             const std::vector<int64_t> &d, bool ceil_mode) {
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5,
              "non-empty 4D or 5D (batch mode) tensor expected for input");
  std::vector<int64_t> shape = self.sizes().vec();
  for (size_t i = 0; i < 3; i++) {
    int64_t &size = shape[shape.size() - 3 + i];
    size = pooled_size(size, k[i], s[i], p[i], d[i], ceil_mode);
  }
  return shape;
}

// The attributes as the op library takes them: 3 values each; an empty
// stride is the kernel size.
struct Window {
  Window(c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
         c10::IntArrayRef padding, c10::IntArrayRef dilation)
      : k(window_attr(kernel_size, 3, 1)),
        s(stride.empty() ? k : window_attr(stride, 3, 1)),
        p(window_attr(padding, 3, 0)), d(window_attr(dilation, 3, 1)) {}
  std::vector<int64_t> k, s, p, d;
};

std::tuple<at::Tensor, at::Tensor>
max_pool3d_with_indices(const at::Tensor &self, c10::IntArrayRef kernel_size,
                        c10::IntArrayRef stride, c10::IntArrayRef padding,
                        c10::IntArrayRef dilation, bool ceil_mode) {
  Window w(kernel_size, stride, padding, dilation);
  auto shape = pooled_shape(self, w.k, w.s, w.p, w.d, ceil_mode);
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
  Window w(kernel_size, stride, padding, dilation);
  at::Tensor grad_input = at::empty(self.sizes(), self.options());
  OpContext ctx(self);
  DiopiTensor gi(grad_input), go(grad_output), x(self), i(indices);
  BP_CALL(diopiMaxPool3dBackward, ctx, gi, go, x, diopi_size(w.k),
          diopi_size(w.s), diopi_size(w.p), diopi_size(w.d), ceil_mode, i);
  return grad_input;
}

at::Tensor avg_pool3d(const at::Tensor &self, c10::IntArrayRef kernel_size,
                      c10::IntArrayRef stride, c10::IntArrayRef padding,
                      bool ceil_mode, bool count_include_pad,
                      c10::optional<int64_t> divisor_override) {
  Window w(kernel_size, stride, padding, {});
  at::Tensor out = at::empty(pooled_shape(self, w.k, w.s, w.p, w.d, ceil_mode),
                             self.options());
  int64_t divisor = divisor_override.value_or(0);
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiAvgPool3d, ctx, o, x, diopi_size(w.k), diopi_size(w.s),
          diopi_size(w.p), ceil_mode, count_include_pad,
          divisor_override.has_value() ? &divisor : nullptr);
  return out;
}

at::Tensor avg_pool3d_backward(const at::Tensor &grad_output,
                               const at::Tensor &self,
                               c10::IntArrayRef kernel_size,
                               c10::IntArrayRef stride,
                               c10::IntArrayRef padding, bool ceil_mode,
                               bool count_include_pad,
                               c10::optional<int64_t> divisor_override) {
  Window w(kernel_size, stride, padding, {});
  at::Tensor grad_input = at::empty(self.sizes(), self.options());
  int64_t divisor = divisor_override.value_or(0);
  OpContext ctx(self);
  DiopiTensor gi(grad_input), go(grad_output), x(self);
  BP_CALL(diopiAvgPool3dBackward, ctx, gi, go, x, diopi_size(w.k),
          diopi_size(w.s), diopi_size(w.p), ceil_mode, count_include_pad,
          divisor_override.has_value() ? &divisor : nullptr);
  return grad_input;
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("max_pool3d_with_indices", max_pool3d_with_indices);
  m.impl("max_pool3d_with_indices_backward", max_pool3d_with_indices_backward);
  m.impl("avg_pool3d", avg_pool3d);
  m.impl("avg_pool3d_backward", avg_pool3d_backward);
}

} // namespace torch_backplane
