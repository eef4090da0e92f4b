// What the pooling kernel files share: a pooling window's attributes as
// the op library takes them, the pooled shape, and the average pooling
// kernels over the last 2 or 3 dims (diopiAvgPool2d/3d and their backwards
// take the same attributes), each one DIOPI call on the device's current
// stream.
#pragma once

#include <vector>

#include "kernel_util.h"

namespace torch_backplane {

// kernel, stride, padding and dilation over `dims` dims: one value given is
// every dim's; an empty stride is the kernel size, an empty dilation 1.
struct PoolWindow {
  PoolWindow(size_t dims, c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
             c10::IntArrayRef padding, c10::IntArrayRef dilation)
      : k(window_attr(kernel_size, dims, 1)),
        s(stride.empty() ? k : window_attr(stride, dims, 1)),
        p(window_attr(padding, dims, 0)), d(window_attr(dilation, dims, 1)) {}
  std::vector<int64_t> k, s, p, d;
};

// self's shape with its last w.k.size() dims pooled; self must have that
// many dims plus one or two (channels, batch). Raises naming `name`.
std::vector<int64_t> pooled_shape(const char *name, const at::Tensor &self,
                                  const PoolWindow &w, bool ceil_mode);

// diopiAvgPool2d/3d (Dims 2 or 3) or their backwards (grad_output given):
// every one takes the window, ceil_mode, count_include_pad and an optional
// divisor after its tensors. Raises naming the op.
template <size_t Dims>
void run_avg_pool(const at::Tensor &out, const at::Tensor *grad_output,
                  const at::Tensor &self, const PoolWindow &w, bool ceil_mode,
                  bool count_include_pad,
                  c10::optional<int64_t> divisor_override) {
  static_assert(Dims == 2 || Dims == 3, "avg_pool2d or avg_pool3d");
  int64_t divisor = divisor_override.value_or(0);
  const int64_t *divisor_or_null = divisor_override ? &divisor : nullptr;
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  auto attrs = [&](auto fn, const auto &...tensors) {
    return fn(ctx, o, tensors..., diopi_size(w.k), diopi_size(w.s),
              diopi_size(w.p), ceil_mode, count_include_pad, divisor_or_null);
  };
  if (grad_output) {
    DiopiTensor go(*grad_output);
    if (Dims == 2)
      return check_op("diopiAvgPool2dBackward",
                      attrs(BP_DIOPI(diopiAvgPool2dBackward), go, x));
    return check_op("diopiAvgPool3dBackward",
                    attrs(BP_DIOPI(diopiAvgPool3dBackward), go, x));
  }
  if (Dims == 2)
    return check_op("diopiAvgPool2d", attrs(BP_DIOPI(diopiAvgPool2d), x));
  check_op("diopiAvgPool3d", attrs(BP_DIOPI(diopiAvgPool3d), x));
}

// aten::avg_pool2d (Dims 2) and avg_pool3d (Dims 3).
template <size_t Dims>
at::Tensor avg_pool(const at::Tensor &self, c10::IntArrayRef kernel_size,
                    c10::IntArrayRef stride, c10::IntArrayRef padding,
                    bool ceil_mode, bool count_include_pad,
                    c10::optional<int64_t> divisor_override) {
  PoolWindow w(Dims, kernel_size, stride, padding, {});
  at::Tensor out = new_tensor(
      self,
      pooled_shape(Dims == 2 ? "avg_pool2d" : "avg_pool3d", self, w, ceil_mode),
      self.scalar_type());
  run_avg_pool<Dims>(out, nullptr, self, w, ceil_mode, count_include_pad,
                     divisor_override);
  return out;
}

// aten::avg_pool2d_backward (Dims 2) and avg_pool3d_backward (Dims 3).
template <size_t Dims>
at::Tensor avg_pool_backward(const at::Tensor &grad_output,
                             const at::Tensor &self,
                             c10::IntArrayRef kernel_size,
                             c10::IntArrayRef stride, c10::IntArrayRef padding,
                             bool ceil_mode, bool count_include_pad,
                             c10::optional<int64_t> divisor_override) {
  PoolWindow w(Dims, kernel_size, stride, padding, {});
  at::Tensor gi = new_tensor(self, self.sizes(), self.scalar_type());
  run_avg_pool<Dims>(gi, &grad_output, self, w, ceil_mode, count_include_pad,
                     divisor_override);
  return gi;
}

} // namespace torch_backplane
