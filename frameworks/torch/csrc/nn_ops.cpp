// Matrix products, convolution, pooling, batch and layer norm,
// (log_)softmax, nll_loss and the
// reductions the training of a CNN reaches, forward and backward, each one
// DIOPI call on the device's current stream.
#include <ATen/ops/empty.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "kernel_util.h"

namespace torch_backplane {

namespace {

at::Tensor empty_like(const at::Tensor &t) {
  return at::empty(t.sizes(), t.options());
}

at::Tensor mm(const at::Tensor &self, const at::Tensor &mat2) {
  TORCH_CHECK(self.dim() == 2 && mat2.dim() == 2,
              "mm: expected 2-D "
              "tensors, got ",
              self.dim(), "-D and ", mat2.dim(), "-D");
  at::Tensor out = at::empty({self.size(0), mat2.size(1)}, self.options());
  OpContext ctx(self);
  DiopiTensor o(out), a(self), b(mat2);
  BP_CALL(diopiMm, ctx, o, a, b);
  return out;
}

at::Tensor bmm(const at::Tensor &self, const at::Tensor &mat2) {
  TORCH_CHECK(self.dim() == 3 && mat2.dim() == 3,
              "bmm: expected 3-D "
              "tensors, got ",
              self.dim(), "-D and ", mat2.dim(), "-D");
  at::Tensor out =
      at::empty({self.size(0), self.size(1), mat2.size(2)}, self.options());
  OpContext ctx(self);
  DiopiTensor o(out), a(self), b(mat2);
  BP_CALL(diopiBmm, ctx, o, a, b);
  return out;
}

at::Tensor addmm(const at::Tensor &self, const at::Tensor &mat1,
                 const at::Tensor &mat2, const c10::Scalar &beta,
                 const c10::Scalar &alpha) {
  TORCH_CHECK(mat1.dim() == 2 && mat2.dim() == 2,
              "addmm: expected 2-D "
              "matrices, got ",
              mat1.dim(), "-D and ", mat2.dim(), "-D");
  at::Tensor out = at::empty({mat1.size(0), mat2.size(1)}, mat1.options());
  OpContext ctx(mat1);
  DiopiTensor o(out), c(self), a(mat1), b(mat2);
  diopiScalar_t be = diopi_scalar(beta), al = diopi_scalar(alpha);
  BP_CALL(diopiAddmm, ctx, o, c, a, b, &be, &al);
  return out;
}

// out = beta * self + alpha * batch1 @ batch2 (self broadcast to the
// product's shape); in place when out is self.
at::Tensor baddbmm(const at::Tensor &self, const at::Tensor &batch1,
                   const at::Tensor &batch2, const c10::Scalar &beta,
                   const c10::Scalar &alpha) {
  TORCH_CHECK(batch1.dim() == 3 && batch2.dim() == 3,
              "baddbmm: expected 3-D batches, got ", batch1.dim(), "-D and ",
              batch2.dim(), "-D");
  at::Tensor out = at::empty({batch1.size(0), batch1.size(1), batch2.size(2)},
                             batch1.options());
  OpContext ctx(batch1);
  DiopiTensor o(out), c(self), a(batch1), b(batch2);
  double be = beta.toDouble(), al = alpha.toDouble();
  BP_CALL(diopiBaddbmm, ctx, o, c, a, b, be, al);
  return out;
}

at::Tensor &baddbmm_(at::Tensor &self, const at::Tensor &batch1,
                     const at::Tensor &batch2, const c10::Scalar &beta,
                     const c10::Scalar &alpha) {
  OpContext ctx(self);
  DiopiTensor c(self), a(batch1), b(batch2);
  double be = beta.toDouble(), al = alpha.toDouble();
  BP_CALL(diopiBaddbmmInp, ctx, c, a, b, be, al);
  return self;
}

// One output dim of a convolution (transposed: of its adjoint).
int64_t conv_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                      bool transposed, int64_t output_padding) {
  if (transposed)
    return (in - 1) * s - 2 * p + d * (k - 1) + output_padding + 1;
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

// 2-D (and transposed 2-D) or 3-D: the op library's kinds of convolution.
size_t spatial_dims(const at::Tensor &input, bool transposed,
                    const char *what) {
  TORCH_CHECK_NOT_IMPLEMENTED(
      input.dim() == 4 || (input.dim() == 5 && !transposed),
      "backplane: ", what,
      " runs 2-D and 3-D convolutions and transposed 2-D ones (got ",
      transposed ? "a transposed " : "a ", input.dim() - 2, "-D one)");
  return static_cast<size_t>(input.dim() - 2);
}

at::Tensor convolution(const at::Tensor &input, const at::Tensor &weight,
                       const c10::optional<at::Tensor> &bias,
                       c10::IntArrayRef stride, c10::IntArrayRef padding,
                       c10::IntArrayRef dilation, bool transposed,
                       c10::IntArrayRef output_padding, int64_t groups) {
  size_t dims = spatial_dims(input, transposed, "convolution_overrideable");
  auto s = window_attr(stride, dims, 1), p = window_attr(padding, dims, 0);
  auto d = window_attr(dilation, dims, 1);
  auto op = window_attr(output_padding, dims, 0);
  int64_t channels = transposed ? weight.size(1) * groups : weight.size(0);
  std::vector<int64_t> shape{input.size(0), channels};
  for (size_t i = 0; i < dims; i++)
    shape.push_back(conv_out_size(input.size(2 + i), weight.size(2 + i), s[i],
                                  p[i], d[i], transposed, op[i]));
  at::Tensor out = at::empty(shape, input.options());
  OpContext ctx(input);
  at::Tensor b = bias.has_value() ? *bias : at::Tensor();
  DiopiTensor o(out), x(input), k(weight), bt(b);
  if (transposed)
    BP_CALL(diopiConvTranspose2d, ctx, o, x, k, bt, diopi_size(s),
            diopi_size(p), diopi_size(op), groups, diopi_size(d));
  else if (dims == 3)
    BP_CALL(diopiConvolution3d, ctx, o, x, k, bt, diopi_size(s), diopi_size(p),
            diopi_size(d), groups);
  else
    BP_CALL(diopiConvolution2d, ctx, o, x, k, bt, diopi_size(s), diopi_size(p),
            diopi_size(d), groups);
  return out;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
convolution_backward(const at::Tensor &grad_output, const at::Tensor &input,
                     const at::Tensor &weight, c10::IntArrayRef stride,
                     c10::IntArrayRef padding, c10::IntArrayRef dilation,
                     bool transposed, c10::IntArrayRef output_padding,
                     int64_t groups, std::array<bool, 3> mask) {
  size_t dims =
      spatial_dims(input, transposed, "convolution_backward_overrideable");
  auto s = window_attr(stride, dims, 1), p = window_attr(padding, dims, 0);
  auto d = window_attr(dilation, dims, 1);
  auto op = window_attr(output_padding, dims, 0);
  int64_t channels = transposed ? weight.size(1) * groups : weight.size(0);
  at::Tensor gi = mask[0] ? empty_like(input) : at::Tensor();
  at::Tensor gw = mask[1] ? empty_like(weight) : at::Tensor();
  at::Tensor gb =
      mask[2] ? at::empty({channels}, weight.options()) : at::Tensor();
  std::vector<int64_t> bias_shape{channels};
  diopiSize_t bias_sizes = diopi_size(bias_shape);
  OpContext ctx(input);
  DiopiTensor dgi(gi), dgw(gw), dgb(gb), go(grad_output), x(input), k(weight);
  if (transposed)
    BP_CALL(diopiConvTranspose2dBackward, ctx, dgi, dgw, dgb, go, x, k,
            mask[2] ? &bias_sizes : nullptr, diopi_size(s), diopi_size(p),
            diopi_size(d), diopi_size(op), groups);
  else if (dims == 3)
    BP_CALL(diopiConvolution3dBackward, ctx, dgi, dgw, dgb, go, x, k,
            mask[2] ? &bias_sizes : nullptr, diopi_size(s), diopi_size(p),
            diopi_size(d), groups);
  else
    BP_CALL(diopiConvolution2dBackward, ctx, dgi, dgw, dgb, go, x, k,
            mask[2] ? &bias_sizes : nullptr, diopi_size(s), diopi_size(p),
            diopi_size(d), groups);
  return {gi, gw, gb};
}

std::tuple<at::Tensor, at::Tensor>
max_pool2d_with_indices(const at::Tensor &self, c10::IntArrayRef kernel_size,
                        c10::IntArrayRef stride, c10::IntArrayRef padding,
                        c10::IntArrayRef dilation, bool ceil_mode) {
  TORCH_CHECK_NOT_IMPLEMENTED(self.dim() == 4,
                              "backplane: "
                              "max_pool2d_with_indices takes 4-D input (got ",
                              self.dim(), "-D)");
  auto k = window_attr(kernel_size, 2, 1);
  auto s = stride.empty() ? k : window_attr(stride, 2, 1);
  auto p = window_attr(padding, 2, 0), d = window_attr(dilation, 2, 1);
  int64_t h = pooled_size(self.size(2), k[0], s[0], p[0], d[0], ceil_mode);
  int64_t w = pooled_size(self.size(3), k[1], s[1], p[1], d[1], ceil_mode);
  at::Tensor out =
      at::empty({self.size(0), self.size(1), h, w}, self.options());
  at::Tensor indices = at::empty(out.sizes(), self.options().dtype(at::kLong));
  OpContext ctx(self);
  DiopiTensor o(out), i(indices), x(self);
  BP_CALL(diopiMaxPool2dWithIndices, ctx, o, i, x, diopi_size(k), diopi_size(s),
          diopi_size(p), diopi_size(d), ceil_mode);
  return {out, indices};
}

at::Tensor max_pool2d_with_indices_backward(
    const at::Tensor &grad_output, const at::Tensor &self,
    c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool ceil_mode,
    const at::Tensor &indices) {
  auto k = window_attr(kernel_size, 2, 1);
  auto s = stride.empty() ? k : window_attr(stride, 2, 1);
  auto p = window_attr(padding, 2, 0), d = window_attr(dilation, 2, 1);
  at::Tensor grad_input = empty_like(self);
  OpContext ctx(self);
  DiopiTensor gi(grad_input), go(grad_output), x(self), i(indices);
  BP_CALL(diopiMaxPool2dBackward, ctx, gi, go, x, diopi_size(k), diopi_size(s),
          diopi_size(p), diopi_size(d), ceil_mode, i);
  return grad_input;
}

at::Tensor log_softmax(const at::Tensor &self, int64_t dim,
                       bool half_to_float) {
  TORCH_CHECK_NOT_IMPLEMENTED(!half_to_float, "backplane: _log_softmax with "
                                              "half_to_float");
  at::Tensor out = empty_like(self);
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiLogSoftmax, ctx, o, x, c10::maybe_wrap_dim(dim, self.dim()));
  return out;
}

at::Tensor log_softmax_backward(const at::Tensor &grad_output,
                                const at::Tensor &output, int64_t dim,
                                at::ScalarType /*input_dtype*/) {
  at::Tensor grad_input = empty_like(output);
  OpContext ctx(output);
  DiopiTensor gi(grad_input), go(grad_output), y(output);
  BP_CALL(diopiLogSoftmaxBackward, ctx, gi, go, y,
          c10::maybe_wrap_dim(dim, output.dim()));
  return grad_input;
}

at::Tensor softmax(const at::Tensor &self, int64_t dim, bool half_to_float) {
  TORCH_CHECK_NOT_IMPLEMENTED(!half_to_float, "backplane: _softmax with "
                                              "half_to_float");
  at::Tensor out = empty_like(self);
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiSoftmax, ctx, o, x, c10::maybe_wrap_dim(dim, self.dim()));
  return out;
}

at::Tensor softmax_backward(const at::Tensor &grad_output,
                            const at::Tensor &output, int64_t dim,
                            at::ScalarType /*input_dtype*/) {
  at::Tensor grad_input = empty_like(output);
  OpContext ctx(output);
  DiopiTensor gi(grad_input), go(grad_output), y(output);
  BP_CALL(diopiSoftmaxBackward, ctx, gi, go, y,
          c10::maybe_wrap_dim(dim, output.dim()));
  return grad_input;
}

at::Tensor defined_or_none(const c10::optional<at::Tensor> &t) {
  return t.has_value() ? *t : at::Tensor();
}

// save_mean and save_invstd are per channel ([C]) in training and in
// evaluation alike.
std::tuple<at::Tensor, at::Tensor, at::Tensor>
batch_norm(const at::Tensor &input, const c10::optional<at::Tensor> &weight,
           const c10::optional<at::Tensor> &bias,
           const c10::optional<at::Tensor> &running_mean,
           const c10::optional<at::Tensor> &running_var, bool training,
           double momentum, double eps) {
  TORCH_CHECK(input.dim() >= 2,
              "batch_norm: expected at least 2-D input, "
              "got ",
              input.dim(), "-D");
  at::Tensor out = empty_like(input);
  at::Tensor save_mean = at::empty({input.size(1)}, input.options());
  at::Tensor save_invstd = at::empty({input.size(1)}, input.options());
  at::Tensor w = defined_or_none(weight), b = defined_or_none(bias);
  at::Tensor rm = defined_or_none(running_mean);
  at::Tensor rv = defined_or_none(running_var);
  OpContext ctx(input);
  DiopiTensor o(out), sm(save_mean), si(save_invstd), x(input), wt(w), bt(b),
      rmt(rm), rvt(rv);
  BP_CALL(diopiBatchNorm, ctx, o, sm, si, x, wt, bt, rmt, rvt, training,
          momentum, eps);
  return {out, save_mean, save_invstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
batch_norm_backward(const at::Tensor &grad_output, const at::Tensor &input,
                    const c10::optional<at::Tensor> &weight,
                    const c10::optional<at::Tensor> &running_mean,
                    const c10::optional<at::Tensor> &running_var,
                    const c10::optional<at::Tensor> &save_mean,
                    const c10::optional<at::Tensor> &save_invstd, bool training,
                    double eps, std::array<bool, 3> mask) {
  int64_t channels = input.size(1);
  at::Tensor gi = mask[0] ? empty_like(input) : at::Tensor();
  at::Tensor gw =
      mask[1] ? at::empty({channels}, input.options()) : at::Tensor();
  at::Tensor gb =
      mask[2] ? at::empty({channels}, input.options()) : at::Tensor();
  at::Tensor w = defined_or_none(weight);
  at::Tensor rm = defined_or_none(running_mean);
  at::Tensor rv = defined_or_none(running_var);
  at::Tensor sm = defined_or_none(save_mean), si = defined_or_none(save_invstd);
  OpContext ctx(input);
  DiopiTensor dgi(gi), dgw(gw), dgb(gb), go(grad_output), x(input), wt(w),
      rmt(rm), rvt(rv), smt(sm), sit(si);
  BP_CALL(diopiBatchNormBackward, ctx, dgi, dgw, dgb, go, x, wt, rmt, rvt, smt,
          sit, training, eps);
  return {gi, gw, gb};
}

// mean and rstd have the input's leading dims and 1 for each normalized one.
std::vector<int64_t> layer_norm_stat_shape(const at::Tensor &input,
                                           size_t normalized_dims) {
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  for (size_t i = shape.size() - normalized_dims; i < shape.size(); i++)
    shape[i] = 1;
  return shape;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
layer_norm(const at::Tensor &input, c10::SymIntArrayRef normalized_shape_sym,
           const c10::optional<at::Tensor> &weight,
           const c10::optional<at::Tensor> &bias, double eps) {
  c10::IntArrayRef normalized = c10::asIntArrayRefSlow(normalized_shape_sym);
  TORCH_CHECK(normalized.size() <= static_cast<size_t>(input.dim()),
              "layer_norm: normalized_shape has more dims than the input");
  at::Tensor out = empty_like(input);
  auto stat_shape = layer_norm_stat_shape(input, normalized.size());
  at::Tensor mean = at::empty(stat_shape, input.options());
  at::Tensor rstd = at::empty(stat_shape, input.options());
  at::Tensor w = defined_or_none(weight), b = defined_or_none(bias);
  OpContext ctx(input);
  DiopiTensor o(out), m(mean), r(rstd), x(input), wt(w), bt(b);
  BP_CALL(diopiLayerNorm, ctx, o, m, r, x, wt, bt, diopi_size(normalized), eps);
  return {out, mean, rstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_backward(
    const at::Tensor &grad_output, const at::Tensor &input,
    c10::SymIntArrayRef normalized_shape_sym, const at::Tensor &mean,
    const at::Tensor &rstd, const c10::optional<at::Tensor> &weight,
    const c10::optional<at::Tensor> &bias, std::array<bool, 3> mask) {
  c10::IntArrayRef normalized = c10::asIntArrayRefSlow(normalized_shape_sym);
  at::Tensor w = defined_or_none(weight), b = defined_or_none(bias);
  at::Tensor gi = mask[0] ? empty_like(input) : at::Tensor();
  at::Tensor gw = mask[1] && w.defined() ? empty_like(w) : at::Tensor();
  at::Tensor gb = mask[2] && b.defined() ? empty_like(b) : at::Tensor();
  OpContext ctx(input);
  DiopiTensor dgi(gi), dgw(gw), dgb(gb), go(grad_output), x(input), wt(w),
      bt(b), m(mean), r(rstd);
  BP_CALL(diopiLayerNormBackward, ctx, dgi, dgw, dgb, go, x, wt, bt, m, r,
          diopi_size(normalized));
  return {gi, gw, gb};
}

// total_weight is what nll_loss_backward is handed back; DIOPI's backward
// needs none, so it holds the number of targets (ignored ones included).
std::tuple<at::Tensor, at::Tensor>
nll_loss_forward(const at::Tensor &self, const at::Tensor &target,
                 const c10::optional<at::Tensor> &weight, int64_t reduction,
                 int64_t ignore_index) {
  at::Tensor out = reduction == 0 ? at::empty(target.sizes(), self.options())
                                  : at::empty({}, self.options());
  at::Tensor total_weight = at::empty({}, self.options());
  at::Tensor w = weight.has_value() ? *weight : at::Tensor();
  OpContext ctx(self);
  DiopiTensor o(out), x(self), t(target), wt(w), tw(total_weight);
  BP_CALL(diopiNLLLoss, ctx, o, x, t, wt,
          static_cast<diopiReduction_t>(reduction), ignore_index);
  diopiScalar_t count = diopi_scalar(static_cast<double>(target.numel()));
  BP_CALL(diopiFill, ctx, tw, &count);
  return {out, total_weight};
}

at::Tensor nll_loss_backward(const at::Tensor &grad_output,
                             const at::Tensor &self, const at::Tensor &target,
                             const c10::optional<at::Tensor> &weight,
                             int64_t reduction, int64_t ignore_index,
                             const at::Tensor & /*total_weight*/) {
  at::Tensor grad_input = empty_like(self);
  at::Tensor w = weight.has_value() ? *weight : at::Tensor();
  OpContext ctx(self);
  DiopiTensor gi(grad_input), go(grad_output), x(self), t(target), wt(w);
  BP_CALL(diopiNLLLossBackward, ctx, gi, go, x, t, wt,
          static_cast<diopiReduction_t>(reduction), ignore_index);
  return grad_input;
}

at::Tensor sum(const at::Tensor &self, at::OptionalIntArrayRef dim,
               bool keepdim, c10::optional<at::ScalarType> dtype) {
  at::ScalarType type = dtype.value_or(
      c10::isIntegralType(self.scalar_type(), true) ? at::kLong
                                                    : self.scalar_type());
  auto dims = reduced_dims(self, dim);
  at::Tensor out =
      at::empty(reduced_shape(self, dims, keepdim), self.options().dtype(type));
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiSum, ctx, o, x, diopi_size(dims));
  return out;
}

at::Tensor &sum_out(const at::Tensor &self, at::OptionalIntArrayRef dim,
                    bool keepdim, c10::optional<at::ScalarType> /*dtype*/,
                    at::Tensor &out) {
  auto dims = reduced_dims(self, dim);
  auto shape = reduced_shape(self, dims, keepdim);
  if (!out.sizes().equals(shape))
    out.resize_(shape);
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiSum, ctx, o, x, diopi_size(dims));
  return out;
}

at::Tensor sum_all(const at::Tensor &self,
                   c10::optional<at::ScalarType> dtype) {
  return sum(self, c10::nullopt, false, dtype);
}

at::Tensor mean(const at::Tensor &self, at::OptionalIntArrayRef dim,
                bool keepdim, c10::optional<at::ScalarType> dtype) {
  at::ScalarType type = dtype.value_or(self.scalar_type());
  TORCH_CHECK(c10::isFloatingType(type),
              "mean(): could not infer output "
              "dtype. Input dtype must be either a floating point or "
              "complex dtype. Got: ",
              type);
  auto dims = reduced_dims(self, dim);
  at::Tensor out =
      at::empty(reduced_shape(self, dims, keepdim), self.options().dtype(type));
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiMean, ctx, o, x, diopi_size(dims));
  return out;
}

at::Tensor mean_all(const at::Tensor &self,
                    c10::optional<at::ScalarType> dtype) {
  return mean(self, c10::nullopt, false, dtype);
}

at::Tensor argmax(const at::Tensor &self, c10::optional<int64_t> dim,
                  bool keepdim) {
  std::vector<int64_t> shape;
  int64_t d = 0;
  if (dim.has_value()) {
    d = c10::maybe_wrap_dim(*dim, self.dim());
    shape = reduced_shape(self, {d}, keepdim);
  } else if (keepdim) {
    shape.assign(self.dim(), 1);
  }
  at::Tensor out = at::empty(shape, self.options().dtype(at::kLong));
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiArgmax, ctx, o, x, dim.has_value() ? &d : nullptr, keepdim);
  return out;
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("mm", mm);
  m.impl("bmm", bmm);
  m.impl("addmm", addmm);
  m.impl("baddbmm", baddbmm);
  m.impl("baddbmm_", baddbmm_);
  m.impl("convolution_overrideable", convolution);
  m.impl("convolution_backward_overrideable", convolution_backward);
  m.impl("max_pool2d_with_indices", max_pool2d_with_indices);
  m.impl("max_pool2d_with_indices_backward", max_pool2d_with_indices_backward);
  m.impl("_log_softmax", log_softmax);
  m.impl("_log_softmax_backward_data", log_softmax_backward);
  m.impl("_softmax", softmax);
  m.impl("_softmax_backward_data", softmax_backward);
  m.impl("native_batch_norm", batch_norm);
  m.impl("native_batch_norm_backward", batch_norm_backward);
  m.impl("native_layer_norm", layer_norm);
  m.impl("native_layer_norm_backward", layer_norm_backward);
  m.impl("nll_loss_forward", nll_loss_forward);
  m.impl("nll_loss_backward", nll_loss_backward);
  m.impl("sum.dim_IntList", sum);
  m.impl("sum", sum_all);
  m.impl("sum.IntList_out", sum_out);
  m.impl("mean.dim", mean);
  m.impl("mean", mean_all);
  m.impl("argmax", argmax);
}

} // namespace torch_backplane
