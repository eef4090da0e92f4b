// Order statistics: median and nanmedian (over everything, or along a dim
// with indices), kthvalue and cummax/cummin (torch 1.13 reaches these through
// _cummax_helper and _cummin_helper), each one DIOPI call on the device's
// current stream with PyTorch's CPU rules for ties and NaNs (the op
// library's). Their backwards are PyTorch's compositions (scatter,
// scatter_add, masked_fill_).
#include <torch/library.h>

#include <tuple>

#include "kernel_util.h"

namespace torch_backplane {
namespace {

using PairRef = std::tuple<at::Tensor &, at::Tensor &>;

at::Tensor median_all(const at::Tensor &self) {
  at::Tensor out = new_tensor(self, {}, self.scalar_type());
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiMedianAll, ctx, o, x);
  return out;
}
at::Tensor nanmedian_all(const at::Tensor &self) {
  at::Tensor out = new_tensor(self, {}, self.scalar_type());
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiNanmedianAll, ctx, o, x);
  return out;
}

// The `out=` values and indices of a selection along dim, shaped for
// keepdim; dim made non-negative.
int64_t shape_outs(const at::Tensor &self, int64_t dim, bool keepdim,
                   at::Tensor &values, at::Tensor &indices) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  std::vector<int64_t> shape = reduced_shape(self, {d}, keepdim);
  shaped_out(values, shape);
  shaped_out(indices, shape);
  return d;
}

PairRef median_out(const at::Tensor &self, int64_t dim, bool keepdim,
                   at::Tensor &values, at::Tensor &indices) {
  int64_t d = shape_outs(self, dim, keepdim, values, indices);
  OpContext ctx(self);
  DiopiTensor v(values), i(indices), x(self);
  BP_CALL(diopiMedian, ctx, v, i, x, d);
  return {values, indices};
}

PairRef nanmedian_out(const at::Tensor &self, int64_t dim, bool keepdim,
                      at::Tensor &values, at::Tensor &indices) {
  int64_t d = shape_outs(self, dim, keepdim, values, indices);
  OpContext ctx(self);
  DiopiTensor v(values), i(indices), x(self);
  BP_CALL(diopiNanmedian, ctx, v, i, x, d);
  return {values, indices};
}

PairRef kthvalue_out(const at::Tensor &self, int64_t k, int64_t dim,
                     bool keepdim, at::Tensor &values, at::Tensor &indices) {
  int64_t d = shape_outs(self, dim, keepdim, values, indices);
  OpContext ctx(self);
  DiopiTensor v(values), i(indices), x(self);
  BP_CALL(diopiKthvalue, ctx, v, i, x, k, d);
  return {values, indices};
}

// values and indices come sized as self (cummax.out, PyTorch's).
void cummax_helper(const at::Tensor &self, at::Tensor &values,
                   at::Tensor &indices, int64_t dim) {
  OpContext ctx(self);
  DiopiTensor v(values), i(indices), x(self);
  BP_CALL(diopiCummax, ctx, v, i, x, dim);
}
void cummin_helper(const at::Tensor &self, at::Tensor &values,
                   at::Tensor &indices, int64_t dim) {
  OpContext ctx(self);
  DiopiTensor v(values), i(indices), x(self);
  BP_CALL(diopiCummin, ctx, v, i, x, dim);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("median", median_all);
  m.impl("median.dim_values", median_out);
  m.impl("nanmedian", nanmedian_all);
  m.impl("nanmedian.dim_values", nanmedian_out);
  m.impl("kthvalue.values", kthvalue_out);
  m.impl("_cummax_helper", cummax_helper);
  m.impl("_cummin_helper", cummin_helper);
}

} // namespace torch_backplane
