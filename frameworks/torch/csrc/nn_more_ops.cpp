// The nn layers beyond a LeNet's: group norm, the regression (MSE, smooth
// L1, Huber), binary and multi-class margin losses, average and adaptive
// pooling, nearest and bilinear upsampling, forward and backward, each one
// DIOPI call on the device's current stream.
#include <torch/library.h>

#include <tuple>
#include <vector>

#include "kernel_util.h"
#include "pool_kernels.h"

namespace torch_backplane {
namespace {

using Triple = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

at::Tensor optional_tensor(const c10::optional<at::Tensor> &t) {
  return t.has_value() ? *t : at::Tensor();
}

// A loss's result: one value, or one per element with reduction none.
at::Tensor loss_result(const at::Tensor &self, int64_t reduction) {
  if (reduction == 0)
    return new_like(self);
  return new_tensor(self, {}, self.scalar_type());
}

diopiReduction_t diopi_reduction(int64_t reduction) {
  return static_cast<diopiReduction_t>(reduction);
}

Triple group_norm(const at::Tensor &input,
                  const c10::optional<at::Tensor> &weight,
                  const c10::optional<at::Tensor> &bias, c10::SymInt n,
                  c10::SymInt /*c*/, c10::SymInt /*hxw*/, int64_t group,
                  double eps) {
  at::Tensor out = new_like(input);
  int64_t batch = n.expect_int();
  at::Tensor mean = new_tensor(input, {batch, group}, input.scalar_type());
  at::Tensor rstd = new_tensor(input, {batch, group}, input.scalar_type());
  at::Tensor w = optional_tensor(weight), b = optional_tensor(bias);
  OpContext ctx(input);
  DiopiTensor o(out), m(mean), r(rstd), x(input), wt(w), bt(b);
  BP_CALL(diopiGroupNorm, ctx, o, m, r, x, wt, bt, group, eps);
  return {out, mean, rstd};
}

Triple group_norm_backward(const at::Tensor &grad_out, const at::Tensor &input,
                           const at::Tensor &mean, const at::Tensor &rstd,
                           const c10::optional<at::Tensor> &weight,
                           c10::SymInt /*n*/, c10::SymInt c,
                           c10::SymInt /*hxw*/, int64_t group,
                           std::array<bool, 3> mask) {
  int64_t channels = c.expect_int();
  at::Tensor gi = mask[0] ? new_like(input) : at::Tensor();
  at::Tensor gw = mask[1] ? new_tensor(input, {channels}, input.scalar_type())
                          : at::Tensor();
  at::Tensor gb = mask[2] ? new_tensor(input, {channels}, input.scalar_type())
                          : at::Tensor();
  at::Tensor w = optional_tensor(weight);
  OpContext ctx(input);
  DiopiTensor dgi(gi), dgw(gw), dgb(gb), go(grad_out), x(input), wt(w), m(mean),
      r(rstd);
  BP_CALL(diopiGroupNormBackward, ctx, dgi, dgw, dgb, go, x, wt, m, r, group);
  return {gi, gw, gb};
}

at::Tensor mse_loss(const at::Tensor &self, const at::Tensor &target,
                    int64_t reduction) {
  at::Tensor out = loss_result(self, reduction);
  OpContext ctx(self);
  DiopiTensor o(out), x(self), t(target);
  BP_CALL(diopiMSELoss, ctx, o, x, t, diopi_reduction(reduction));
  return out;
}
at::Tensor mse_loss_backward(const at::Tensor &grad_output,
                             const at::Tensor &self, const at::Tensor &target,
                             int64_t reduction) {
  at::Tensor gi = new_like(self);
  OpContext ctx(self);
  DiopiTensor g(gi), go(grad_output), x(self), t(target);
  BP_CALL(diopiMSELossBackward, ctx, g, go, x, t, diopi_reduction(reduction));
  return gi;
}

// multi_margin_loss: one loss per sample (target's shape) with reduction
// none.
at::Tensor multi_margin_loss(const at::Tensor &self, const at::Tensor &target,
                             const c10::Scalar &p, const c10::Scalar &margin,
                             const c10::optional<at::Tensor> &weight,
                             int64_t reduction) {
  at::Tensor out = reduction == 0
                       ? new_tensor(self, target.sizes(), self.scalar_type())
                       : new_tensor(self, {}, self.scalar_type());
  at::Tensor w = optional_tensor(weight);
  OpContext ctx(self);
  DiopiTensor o(out), x(self), t(target), wt(w);
  BP_CALL(diopiMultiMarginLoss, ctx, o, x, t, wt, p.toLong(), margin.toDouble(),
          diopi_reduction(reduction));
  return out;
}
at::Tensor multi_margin_loss_backward(
    const at::Tensor &grad_output, const at::Tensor &self,
    const at::Tensor &target, const c10::Scalar &p, const c10::Scalar &margin,
    const c10::optional<at::Tensor> &weight, int64_t reduction) {
  at::Tensor gi = new_like(self);
  at::Tensor w = optional_tensor(weight);
  OpContext ctx(self);
  DiopiTensor g(gi), go(grad_output), x(self), t(target), wt(w);
  BP_CALL(diopiMultiMarginLossBackward, ctx, g, go, x, t, wt, p.toLong(),
          margin.toDouble(), diopi_reduction(reduction));
  return gi;
}

at::Tensor bce(const at::Tensor &self, const at::Tensor &target,
               const c10::optional<at::Tensor> &weight, int64_t reduction) {
  at::Tensor out = loss_result(self, reduction);
  at::Tensor w = optional_tensor(weight);
  OpContext ctx(self);
  DiopiTensor o(out), x(self), t(target), wt(w);
  BP_CALL(diopiBCELoss, ctx, o, x, t, wt, diopi_reduction(reduction));
  return out;
}
at::Tensor bce_backward(const at::Tensor &grad_output, const at::Tensor &self,
                        const at::Tensor &target,
                        const c10::optional<at::Tensor> &weight,
                        int64_t reduction) {
  at::Tensor gi = new_like(self);
  at::Tensor w = optional_tensor(weight);
  OpContext ctx(self);
  DiopiTensor g(gi), go(grad_output), x(self), t(target), wt(w);
  BP_CALL(diopiBCELossBackward, ctx, g, go, x, t, wt,
          diopi_reduction(reduction));
  return gi;
}

at::Tensor smooth_l1_loss(const at::Tensor &self, const at::Tensor &target,
                          int64_t reduction, double beta) {
  at::Tensor out = loss_result(self, reduction);
  OpContext ctx(self);
  DiopiTensor o(out), x(self), t(target);
  BP_CALL(diopiSmoothL1Loss, ctx, o, x, t, diopi_reduction(reduction), beta);
  return out;
}
at::Tensor smooth_l1_loss_backward(const at::Tensor &grad_output,
                                   const at::Tensor &self,
                                   const at::Tensor &target, int64_t reduction,
                                   double beta) {
  at::Tensor gi = new_like(self);
  OpContext ctx(self);
  DiopiTensor g(gi), go(grad_output), x(self), t(target);
  BP_CALL(diopiSmoothL1LossBackward, ctx, g, go, x, t,
          diopi_reduction(reduction), beta);
  return gi;
}

// Huber loss is delta times smooth L1 with beta = delta, and so is its
// gradient.
at::Tensor huber_loss(const at::Tensor &self, const at::Tensor &target,
                      int64_t reduction, double delta) {
  at::Tensor out = smooth_l1_loss(self, target, reduction, delta);
  OpContext ctx(self);
  DiopiTensor o(out);
  diopiScalar_t scale = diopi_scalar(delta);
  BP_CALL(diopiMulInpScalar, ctx, o, &scale);
  return out;
}
at::Tensor huber_loss_backward(const at::Tensor &grad_output,
                               const at::Tensor &self, const at::Tensor &target,
                               int64_t reduction, double delta) {
  at::Tensor gi =
      smooth_l1_loss_backward(grad_output, self, target, reduction, delta);
  OpContext ctx(self);
  DiopiTensor g(gi);
  diopiScalar_t scale = diopi_scalar(delta);
  BP_CALL(diopiMulInpScalar, ctx, g, &scale);
  return gi;
}

// ---- Pooling ------------------------------------------------------------

// (N, C, H, W) or (C, H, W) with the last two dims replaced by h, w.
std::vector<int64_t> spatial_shape(const at::Tensor &self, int64_t h,
                                   int64_t w) {
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 2);
  shape.push_back(h);
  shape.push_back(w);
  return shape;
}

// self resized to `size` in its last two dims through
// fn(ctx, out, self, size, attrs...) (adaptive pooling, upsampling).
template <typename Fn, typename... Attrs>
at::Tensor resized(const char *name, Fn fn, const at::Tensor &self,
                   c10::IntArrayRef size, const Attrs &...attrs) {
  at::Tensor out = new_tensor(self, spatial_shape(self, size[0], size[1]),
                              self.scalar_type());
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  check_op(name, fn(ctx, o, x, diopi_size(size), attrs...));
  return out;
}

// The gradient of an input of in_size resized to out_size, through
// fn(ctx, grad_input, grad_output, out_size, in_size, attrs...).
template <typename Fn, typename... Attrs>
at::Tensor
resized_backward(const char *name, Fn fn, const at::Tensor &grad_output,
                 c10::SymIntArrayRef output_size,
                 c10::SymIntArrayRef input_size, const Attrs &...attrs) {
  c10::IntArrayRef out_size = c10::asIntArrayRefSlow(output_size);
  c10::IntArrayRef in_size = c10::asIntArrayRefSlow(input_size);
  at::Tensor gi = new_tensor(grad_output, in_size, grad_output.scalar_type());
  OpContext ctx(grad_output);
  DiopiTensor g(gi), go(grad_output);
  check_op(name,
           fn(ctx, g, go, diopi_size(out_size), diopi_size(in_size), attrs...));
  return gi;
}

at::Tensor adaptive_avg_pool2d(const at::Tensor &self,
                               c10::SymIntArrayRef output_size) {
  c10::IntArrayRef size = c10::asIntArrayRefSlow(output_size);
  TORCH_CHECK(size.size() == 2 && (self.dim() == 3 || self.dim() == 4),
              "adaptive_avg_pool2d: expected a 3-D or 4-D input and 2 "
              "output sizes");
  return resized("diopiAdaptiveAvgPool2d", BP_DIOPI(diopiAdaptiveAvgPool2d),
                 self, size);
}

at::Tensor adaptive_avg_pool2d_backward(const at::Tensor &grad_output,
                                        const at::Tensor &self) {
  at::Tensor gi = new_like(self);
  OpContext ctx(self);
  DiopiTensor g(gi), go(grad_output), x(self);
  BP_CALL(diopiAdaptiveAvgPool2dBackward, ctx, g, go, x);
  return gi;
}

std::tuple<at::Tensor, at::Tensor>
adaptive_max_pool2d(const at::Tensor &self, c10::IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 2 && (self.dim() == 3 || self.dim() == 4),
              "adaptive_max_pool2d: expected a 3-D or 4-D input and 2 "
              "output sizes");
  auto shape = spatial_shape(self, output_size[0], output_size[1]);
  at::Tensor out = new_tensor(self, shape, self.scalar_type());
  at::Tensor indices = new_tensor(self, shape, at::kLong);
  OpContext ctx(self);
  DiopiTensor o(out), i(indices), x(self);
  BP_CALL(diopiAdaptiveMaxPool2dWithIndices, ctx, o, i, x,
          diopi_size(output_size));
  return {out, indices};
}

at::Tensor adaptive_max_pool2d_backward(const at::Tensor &grad_output,
                                        const at::Tensor &self,
                                        const at::Tensor &indices) {
  at::Tensor gi = new_like(self);
  OpContext ctx(self);
  DiopiTensor g(gi), go(grad_output), x(self), i(indices);
  BP_CALL(diopiAdaptiveMaxPool2dBackward, ctx, g, go, x, i);
  return gi;
}

// ---- Upsampling (sizes given; PyTorch computes them from scales) --------

at::Tensor upsample_nearest2d(const at::Tensor &self,
                              c10::SymIntArrayRef output_size,
                              c10::optional<double> /*scales_h*/,
                              c10::optional<double> /*scales_w*/) {
  return resized("diopiUpsampleNearest", BP_DIOPI(diopiUpsampleNearest), self,
                 c10::asIntArrayRefSlow(output_size));
}

at::Tensor upsample_nearest2d_backward(const at::Tensor &grad_output,
                                       c10::SymIntArrayRef output_size,
                                       c10::SymIntArrayRef input_size,
                                       c10::optional<double> /*scales_h*/,
                                       c10::optional<double> /*scales_w*/) {
  return resized_backward("diopiUpsampleNearestBackward",
                          BP_DIOPI(diopiUpsampleNearestBackward), grad_output,
                          output_size, input_size);
}

at::Tensor upsample_bilinear2d(const at::Tensor &self,
                               c10::SymIntArrayRef output_size,
                               bool align_corners,
                               c10::optional<double> /*scales_h*/,
                               c10::optional<double> /*scales_w*/) {
  return resized("diopiUpsampleLinear", BP_DIOPI(diopiUpsampleLinear), self,
                 c10::asIntArrayRefSlow(output_size), align_corners,
                 "bilinear");
}

at::Tensor upsample_bilinear2d_backward(const at::Tensor &grad_output,
                                        c10::SymIntArrayRef output_size,
                                        c10::SymIntArrayRef input_size,
                                        bool align_corners,
                                        c10::optional<double> /*scales_h*/,
                                        c10::optional<double> /*scales_w*/) {
  return resized_backward("diopiUpsampleLinearBackward",
                          BP_DIOPI(diopiUpsampleLinearBackward), grad_output,
                          output_size, input_size, align_corners, "bilinear");
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("native_group_norm", group_norm);
  m.impl("native_group_norm_backward", group_norm_backward);
  m.impl("mse_loss", mse_loss);
  m.impl("mse_loss_backward", mse_loss_backward);
  m.impl("binary_cross_entropy", bce);
  m.impl("binary_cross_entropy_backward", bce_backward);
  m.impl("multi_margin_loss", multi_margin_loss);
  m.impl("multi_margin_loss_backward", multi_margin_loss_backward);
  m.impl("smooth_l1_loss", smooth_l1_loss);
  m.impl("smooth_l1_loss_backward", smooth_l1_loss_backward);
  m.impl("huber_loss", huber_loss);
  m.impl("huber_loss_backward", huber_loss_backward);
  m.impl("avg_pool2d", avg_pool<2>);
  m.impl("avg_pool2d_backward", avg_pool_backward<2>);
  m.impl("_adaptive_avg_pool2d", adaptive_avg_pool2d);
  m.impl("_adaptive_avg_pool2d_backward", adaptive_avg_pool2d_backward);
  m.impl("adaptive_max_pool2d", adaptive_max_pool2d);
  m.impl("adaptive_max_pool2d_backward", adaptive_max_pool2d_backward);
  m.impl("upsample_nearest2d", upsample_nearest2d);
  m.impl("upsample_nearest2d_backward", upsample_nearest2d_backward);
  m.impl("upsample_bilinear2d", upsample_bilinear2d);
  m.impl("upsample_bilinear2d_backward", upsample_bilinear2d_backward);
}

} // namespace torch_backplane
