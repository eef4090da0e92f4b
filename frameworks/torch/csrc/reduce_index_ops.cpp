// Reductions (max/min, amax/amin, argmin, any/all, cumsum/cumprod, nansum
// and count_nonzero (composed of nan_to_num, ne and sum), vector norms, topk,
// sort) and indexing (index_select, gather, scatter, advanced indexing and
// index_put_, masked_fill_/masked_scatter_/masked_select, nonzero, unique,
// embedding's backward, embedding_bag (+ backward), flip/roll/tril/triu,
// arange, eye), each one DIOPI call on the device's current stream. Ops whose
// result size depends on the data (index with a mask, masked_select, nonzero,
// unique) wait for the stream, as on CUDA.
#include <ATen/ops/empty.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/nan_to_num.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/sum.h>
#include <torch/library.h>

#include <cmath>
#include <limits>
#include <memory>
#include <tuple>
#include <vector>

#include "backplane/diopi/diopirt.h"
#include "kernel_util.h"

namespace torch_backplane {
namespace {

using Pair = std::tuple<at::Tensor, at::Tensor>;

at::Tensor extreme_all(bool max, const at::Tensor &self) {
  TORCH_CHECK(self.numel() > 0, max ? "max" : "min",
              "(): Expected reduction dim to be specified for input.numel() "
              "== 0. Specify the reduction dim with the 'dim' argument.");
  at::Tensor out = new_tensor(self, {}, self.scalar_type());
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  if (max)
    BP_CALL(diopiMaxAll, ctx, o, x);
  else
    BP_CALL(diopiMinAll, ctx, o, x);
  return out;
}
at::Tensor max_all(const at::Tensor &self) {
  return extreme_all(true, self);
}
at::Tensor min_all(const at::Tensor &self) {
  return extreme_all(false, self);
}

// max/min over `dim` with their indices into values and indices, resized to
// the result (PyTorch resizes outs of the wrong size).
void extreme_dim_out(bool max, const at::Tensor &self, int64_t dim,
                     bool keepdim, at::Tensor &values, at::Tensor &indices) {
  int64_t d = wrap_dim(dim, self.dim());
  auto shape = reduced_shape(self, {d}, keepdim);
  shaped_out(values, shape);
  shaped_out(indices, shape);
  if (values.numel() == 0)
    return;
  OpContext ctx(self);
  DiopiTensor v(values), i(indices), x(self);
  if (max)
    BP_CALL(diopiMax, ctx, v, i, x, d);
  else
    BP_CALL(diopiMin, ctx, v, i, x, d);
}
Pair extreme_dim(bool max, const at::Tensor &self, int64_t dim, bool keepdim) {
  at::Tensor values = new_tensor(self, {}, self.scalar_type());
  at::Tensor indices = new_tensor(self, {}, at::kLong);
  extreme_dim_out(max, self, dim, keepdim, values, indices);
  return {values, indices};
}
Pair max_dim(const at::Tensor &self, int64_t dim, bool keepdim) {
  return extreme_dim(true, self, dim, keepdim);
}
Pair min_dim(const at::Tensor &self, int64_t dim, bool keepdim) {
  return extreme_dim(false, self, dim, keepdim);
}
std::tuple<at::Tensor &, at::Tensor &> max_dim_out(const at::Tensor &self,
                                                   int64_t dim, bool keepdim,
                                                   at::Tensor &values,
                                                   at::Tensor &indices) {
  extreme_dim_out(true, self, dim, keepdim, values, indices);
  return {values, indices};
}
std::tuple<at::Tensor &, at::Tensor &> min_dim_out(const at::Tensor &self,
                                                   int64_t dim, bool keepdim,
                                                   at::Tensor &values,
                                                   at::Tensor &indices) {
  extreme_dim_out(false, self, dim, keepdim, values, indices);
  return {values, indices};
}

// amax/amin over `dim` (none: every dim) into out, resized to the result.
at::Tensor &extreme_dims_out(bool max, const at::Tensor &self,
                             c10::IntArrayRef dim, bool keepdim,
                             at::Tensor &out) {
  auto dims = reduced_dims(self, dim);
  shaped_out(out, reduced_shape(self, dims, keepdim));
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  if (max)
    BP_CALL(diopiAmax, ctx, o, x, diopi_size(dims), keepdim);
  else
    BP_CALL(diopiAmin, ctx, o, x, diopi_size(dims), keepdim);
  return out;
}
at::Tensor amax(const at::Tensor &self, c10::IntArrayRef dim, bool keepdim) {
  at::Tensor out = new_tensor(self, {}, self.scalar_type());
  return extreme_dims_out(true, self, dim, keepdim, out);
}
at::Tensor amin(const at::Tensor &self, c10::IntArrayRef dim, bool keepdim) {
  at::Tensor out = new_tensor(self, {}, self.scalar_type());
  return extreme_dims_out(false, self, dim, keepdim, out);
}
at::Tensor &amax_out(const at::Tensor &self, c10::IntArrayRef dim, bool keepdim,
                     at::Tensor &out) {
  return extreme_dims_out(true, self, dim, keepdim, out);
}
at::Tensor &amin_out(const at::Tensor &self, c10::IntArrayRef dim, bool keepdim,
                     at::Tensor &out) {
  return extreme_dims_out(false, self, dim, keepdim, out);
}

at::Tensor argmin(const at::Tensor &self, c10::optional<int64_t> dim,
                  bool keepdim) {
  std::vector<int64_t> shape;
  int64_t d = 0;
  if (dim.has_value()) {
    d = wrap_dim(*dim, self.dim());
    shape = reduced_shape(self, {d}, keepdim);
  } else if (keepdim) {
    shape.assign(self.dim(), 1);
  }
  at::Tensor out = new_tensor(self, shape, at::kLong);
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiArgmin, ctx, o, x, dim.has_value() ? &d : nullptr, keepdim);
  return out;
}

// any/all over everything (dim null) or one dim; bool results, uint8 for a
// uint8 input (as PyTorch 1.13 gives).
at::Tensor any_all(bool any, const at::Tensor &self, const int64_t *dim,
                   bool keepdim) {
  std::vector<int64_t> shape;
  if (dim)
    shape = reduced_shape(self, {*dim}, keepdim);
  at::Tensor out = new_tensor(
      self, shape, self.scalar_type() == at::kByte ? at::kByte : at::kBool);
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  if (any)
    BP_CALL(diopiAny, ctx, o, x, dim);
  else
    BP_CALL(diopiAll, ctx, o, x, dim);
  return out;
}
at::Tensor any(const at::Tensor &self) {
  return any_all(true, self, nullptr, false);
}
at::Tensor all(const at::Tensor &self) {
  return any_all(false, self, nullptr, false);
}
at::Tensor any_dim(const at::Tensor &self, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, self.dim());
  return any_all(true, self, &d, keepdim);
}
at::Tensor all_dim(const at::Tensor &self, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, self.dim());
  return any_all(false, self, &d, keepdim);
}

at::Tensor prod_over(const at::Tensor &self, const int64_t *dim, bool keepdim,
                     c10::optional<at::ScalarType> dtype) {
  at::ScalarType type = dtype.value_or(
      c10::isIntegralType(self.scalar_type(), true) ? at::kLong
                                                    : self.scalar_type());
  std::vector<int64_t> shape;
  if (dim)
    shape = reduced_shape(self, {*dim}, keepdim);
  at::Tensor out = new_tensor(self, shape, type);
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiProd, ctx, o, x, dim);
  return out;
}
at::Tensor prod(const at::Tensor &self, c10::optional<at::ScalarType> dtype) {
  return prod_over(self, nullptr, false, dtype);
}
at::Tensor prod_dim(const at::Tensor &self, int64_t dim, bool keepdim,
                    c10::optional<at::ScalarType> dtype) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  return prod_over(self, self.dim() ? &d : nullptr, keepdim, dtype);
}

using SpreadFn = diopiError_t (*)(diopiContextHandle_t, diopiTensorHandle_t,
                                  diopiConstTensorHandle_t, diopiSize_t,
                                  const diopiScalar_t *);

// Standard deviation or variance with `correction` (default 1, Bessel's)
// over `dim` (none: all); autograd's formulas for both are composite.
at::Tensor spread(const char *name, SpreadFn fn, const at::Tensor &self,
                  at::OptionalIntArrayRef dim,
                  c10::optional<int64_t> correction, bool keepdim) {
  auto dims = reduced_dims(self, dim);
  at::Tensor out = new_tensor(self, reduced_shape(self, dims, keepdim),
                              floating_type(self.scalar_type()));
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  diopiScalar_t c = diopi_scalar(correction.value_or(1));
  check_op(name, fn(ctx, o, x, diopi_size(dims), &c));
  return out;
}
at::Tensor std_correction(const at::Tensor &self, at::OptionalIntArrayRef dim,
                          c10::optional<int64_t> correction, bool keepdim) {
  return spread("diopiStd", BP_DIOPI(diopiStd), self, dim, correction, keepdim);
}
at::Tensor var_correction(const at::Tensor &self, at::OptionalIntArrayRef dim,
                          c10::optional<int64_t> correction, bool keepdim) {
  return spread("diopiVar", BP_DIOPI(diopiVar), self, dim, correction, keepdim);
}

// var_mean / std_mean: the spread and the mean over the same dims.
std::tuple<at::Tensor, at::Tensor>
var_mean_correction(const at::Tensor &self, at::OptionalIntArrayRef dim,
                    c10::optional<int64_t> correction, bool keepdim) {
  return {var_correction(self, dim, correction, keepdim),
          at::mean(self, dim.value_or(c10::IntArrayRef{}), keepdim)};
}
std::tuple<at::Tensor, at::Tensor>
std_mean_correction(const at::Tensor &self, at::OptionalIntArrayRef dim,
                    c10::optional<int64_t> correction, bool keepdim) {
  return {std_correction(self, dim, correction, keepdim),
          at::mean(self, dim.value_or(c10::IntArrayRef{}), keepdim)};
}

// cumsum or cumprod along dim into out (resized to self's shape); an
// integral input gives int64 unless `dtype` says otherwise.
at::ScalarType scan_type(const at::Tensor &self,
                         c10::optional<at::ScalarType> dtype) {
  return dtype.value_or(c10::isIntegralType(self.scalar_type(), true)
                            ? at::kLong
                            : self.scalar_type());
}
at::Tensor &scan_out(bool product, const at::Tensor &self, int64_t dim,
                     at::Tensor &out) {
  shaped_out(out, self.sizes());
  if (out.numel() == 0)
    return out;
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  if (product)
    BP_CALL(diopiCumprod, ctx, o, x, d);
  else
    BP_CALL(diopiCumsum, ctx, o, x, d);
  return out;
}
at::Tensor cumsum(const at::Tensor &self, int64_t dim,
                  c10::optional<at::ScalarType> dtype) {
  at::Tensor out = new_tensor(self, self.sizes(), scan_type(self, dtype));
  return scan_out(false, self, dim, out);
}
at::Tensor cumprod(const at::Tensor &self, int64_t dim,
                   c10::optional<at::ScalarType> dtype) {
  at::Tensor out = new_tensor(self, self.sizes(), scan_type(self, dtype));
  return scan_out(true, self, dim, out);
}
at::Tensor &cumprod_out(const at::Tensor &self, int64_t dim,
                        c10::optional<at::ScalarType> dtype, at::Tensor &out) {
  (void)dtype; // out's dtype is the result's
  return scan_out(true, self, dim, out);
}

// nansum: sum with each NaN as 0 (the sum of nan_to_num keeping the
// infinities: exact, one more pass); integral tensors hold no NaN.
at::Tensor nan_as_zero(const at::Tensor &self) {
  if (!c10::isFloatingType(self.scalar_type()))
    return self;
  double inf = std::numeric_limits<double>::infinity();
  return at::nan_to_num(self, 0.0, inf, -inf);
}
at::Tensor nansum(const at::Tensor &self, at::OptionalIntArrayRef dim,
                  bool keepdim, c10::optional<at::ScalarType> dtype) {
  return at::sum(nan_as_zero(self), dim, keepdim, dtype);
}
at::Tensor &nansum_out(const at::Tensor &self, at::OptionalIntArrayRef dim,
                       bool keepdim, c10::optional<at::ScalarType> dtype,
                       at::Tensor &out) {
  return at::sum_out(out, nan_as_zero(self), dim, keepdim, dtype);
}

// count_nonzero: the sum (int64) of self != 0 over `dim` (none: all).
at::Tensor count_nonzero(const at::Tensor &self, c10::IntArrayRef dim) {
  return at::sum(at::ne(self, 0), dim, false, at::kLong);
}

at::Tensor linalg_vector_norm(const at::Tensor &self, const c10::Scalar &ord,
                              at::OptionalIntArrayRef dim, bool keepdim,
                              c10::optional<at::ScalarType> dtype) {
  auto dims = reduced_dims(self, dim);
  at::ScalarType type = dtype.value_or(floating_type(self.scalar_type()));
  at::Tensor out = new_tensor(self, reduced_shape(self, dims, keepdim), type);
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  diopiScalar_t p = diopi_scalar(ord);
  BP_CALL(diopiLinalgVecNorm, ctx, o, x, &p, diopi_size(dims), keepdim);
  return out;
}

// torch.norm's overloads: p absent is 2; no dims is every dim.
at::Tensor norm_dim(const at::Tensor &self, const c10::optional<c10::Scalar> &p,
                    c10::IntArrayRef dim, bool keepdim) {
  return linalg_vector_norm(self, p.value_or(2), dim, keepdim, c10::nullopt);
}
at::Tensor norm_dim_dtype(const at::Tensor &self,
                          const c10::optional<c10::Scalar> &p,
                          c10::IntArrayRef dim, bool keepdim,
                          at::ScalarType dtype) {
  return linalg_vector_norm(self, p.value_or(2), dim, keepdim, dtype);
}
at::Tensor norm_all(const at::Tensor &self, const c10::Scalar &p) {
  return linalg_vector_norm(self, p, c10::nullopt, false, c10::nullopt);
}

Pair topk(const at::Tensor &self, int64_t k, int64_t dim, bool largest,
          bool sorted) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (!shape.empty())
    shape[d] = k;
  at::Tensor values = new_tensor(self, shape, self.scalar_type());
  at::Tensor indices = new_tensor(self, shape, at::kLong);
  OpContext ctx(self);
  DiopiTensor v(values), i(indices), x(self);
  BP_CALL(diopiTopk, ctx, v, i, x, k, d, largest, sorted);
  return {values, indices};
}

Pair sort_stable(const at::Tensor &self, c10::optional<bool> stable,
                 int64_t dim, bool descending) {
  at::Tensor values = new_tensor(self, self.sizes(), self.scalar_type());
  at::Tensor indices = new_tensor(self, self.sizes(), at::kLong);
  if (values.numel() == 0)
    return {values, indices};
  bool is_stable = stable.value_or(false);
  OpContext ctx(self);
  DiopiTensor v(values), i(indices), x(self);
  BP_CALL(diopiSort, ctx, v, i, x,
          wrap_dim(dim, std::max<int64_t>(self.dim(), 1)), descending,
          stable.has_value() ? &is_stable : nullptr);
  return {values, indices};
}
Pair sort(const at::Tensor &self, int64_t dim, bool descending) {
  return sort_stable(self, c10::nullopt, dim, descending);
}

// ---- Indexing -----------------------------------------------------------

at::Tensor index_select(const at::Tensor &self, int64_t dim,
                        const at::Tensor &index) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (!shape.empty())
    shape[d] = index.numel();
  at::Tensor out = new_tensor(self, shape, self.scalar_type());
  if (out.numel() == 0)
    return out;
  at::Tensor idx = on_device(index, self.device());
  OpContext ctx(self);
  DiopiTensor o(out), x(self), i(idx);
  BP_CALL(diopiIndexSelect, ctx, o, x, d, i);
  return out;
}

at::Tensor gather(const at::Tensor &self, int64_t dim, const at::Tensor &index,
                  bool /*sparse_grad*/) {
  at::Tensor out = new_tensor(self, index.sizes(), self.scalar_type());
  if (out.numel() == 0)
    return out;
  OpContext ctx(self);
  DiopiTensor o(out), x(self), i(index);
  BP_CALL(diopiGather, ctx, o, x,
          wrap_dim(dim, std::max<int64_t>(self.dim(), 1)), i);
  return out;
}

// out = self with src (a tensor, or `value`) scattered along dim at index;
// reduce: nullptr (replace), "add" or "multiply".
void run_scatter(const at::Tensor &out, const at::Tensor &self, int64_t dim,
                 const at::Tensor &index, const at::Tensor *src,
                 const c10::Scalar &value, const char *reduce) {
  if (out.numel() == 0)
    return;
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  OpContext ctx(out);
  DiopiTensor o(out), x(self), i(index);
  if (src) {
    DiopiTensor s(*src);
    return BP_CALL(diopiScatter, ctx, o, x, d, s, i, reduce);
  }
  diopiScalar_t v = diopi_scalar(value);
  BP_CALL(diopiScatterScalar, ctx, o, x, d, &v, i, reduce);
}

at::Tensor scatter_src(const at::Tensor &self, int64_t dim,
                       const at::Tensor &index, const at::Tensor &src) {
  at::Tensor out = new_tensor(self, self.sizes(), self.scalar_type());
  run_scatter(out, self, dim, index, &src, 0, nullptr);
  return out;
}
at::Tensor &scatter_src_(at::Tensor &self, int64_t dim, const at::Tensor &index,
                         const at::Tensor &src) {
  run_scatter(self, self, dim, index, &src, 0, nullptr);
  return self;
}
at::Tensor scatter_value(const at::Tensor &self, int64_t dim,
                         const at::Tensor &index, const c10::Scalar &value) {
  at::Tensor out = new_tensor(self, self.sizes(), self.scalar_type());
  run_scatter(out, self, dim, index, nullptr, value, nullptr);
  return out;
}
at::Tensor &scatter_value_(at::Tensor &self, int64_t dim,
                           const at::Tensor &index, const c10::Scalar &value) {
  run_scatter(self, self, dim, index, nullptr, value, nullptr);
  return self;
}
at::Tensor scatter_add(const at::Tensor &self, int64_t dim,
                       const at::Tensor &index, const at::Tensor &src) {
  at::Tensor out = new_tensor(self, self.sizes(), self.scalar_type());
  run_scatter(out, self, dim, index, &src, 0, "add");
  return out;
}
at::Tensor &scatter_add_(at::Tensor &self, int64_t dim, const at::Tensor &index,
                         const at::Tensor &src) {
  run_scatter(self, self, dim, index, &src, 0, "add");
  return self;
}

// The defined entries of an index list on `device` (undefined entries stay,
// as nullptr handles: DIOPI's "every element of that dim").
std::vector<at::Tensor>
index_tensors(const c10::List<c10::optional<at::Tensor>> &indices,
              const at::Device &device) {
  std::vector<at::Tensor> out;
  for (const c10::optional<at::Tensor> &i : indices) {
    at::Tensor t = i.has_value() ? *i : at::Tensor();
    out.push_back(on_device(t, device));
  }
  return out;
}

// A device tensor the op library allocated through the context, copied into
// a tensor PyTorch owns before the context releases it.
at::Tensor adopt_result(diopiContextHandle_t ctx, const at::Tensor &like,
                        diopiTensorHandle_t result) {
  diopiSize_t shape{};
  diopiDtype_t dtype{};
  TORCH_CHECK(diopiGetTensorShape(result, &shape) == diopiSuccess &&
                  diopiGetTensorDtype(result, &dtype) == diopiSuccess,
              "backplane: cannot read the shape and dtype of an op's result");
  at::Tensor out = new_tensor(
      like, c10::IntArrayRef(shape.data, static_cast<size_t>(shape.len)),
      scalar_type(dtype));
  if (out.numel() > 0) {
    DiopiTensor o(out);
    BP_CALL(diopiCopyInp, ctx, result, o);
  }
  return out;
}

at::Tensor index(const at::Tensor &self,
                 const c10::List<c10::optional<at::Tensor>> &indices) {
  std::vector<at::Tensor> held = index_tensors(indices, self.device());
  std::vector<std::unique_ptr<DiopiTensor>> handles;
  std::vector<diopiConstTensorHandle_t> list;
  for (const at::Tensor &t : held) {
    handles.push_back(std::make_unique<DiopiTensor>(t));
    list.push_back(*handles.back());
  }
  OpContext ctx(self);
  DiopiTensor x(self);
  diopiTensorHandle_t result = nullptr;
  BP_CALL(diopiIndex, ctx, &result, x, list.data(),
          static_cast<int64_t>(list.size()));
  return adopt_result(ctx, self, result);
}

at::Tensor &index_put_impl(at::Tensor &self,
                           const c10::List<c10::optional<at::Tensor>> &indices,
                           const at::Tensor &values, bool accumulate,
                           bool /*unsafe*/) {
  std::vector<at::Tensor> held = index_tensors(indices, self.device());
  std::vector<std::unique_ptr<DiopiTensor>> handles;
  std::vector<diopiConstTensorHandle_t> list;
  for (const at::Tensor &t : held) {
    handles.push_back(std::make_unique<DiopiTensor>(t));
    list.push_back(*handles.back());
  }
  at::Tensor v = on_device(values, self.device());
  OpContext ctx(self);
  DiopiTensor x(self), vt(v);
  BP_CALL(diopiIndexPutInp, ctx, x, vt, list.data(),
          static_cast<int64_t>(list.size()), accumulate);
  return self;
}

// self's slices at `index` along dim += alpha * source: an accumulating
// index_put_ with every dim before `dim` taken whole (index_select's
// backward).
at::Tensor &index_add_(at::Tensor &self, int64_t dim, const at::Tensor &index,
                       const at::Tensor &source, const c10::Scalar &alpha) {
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  c10::List<c10::optional<at::Tensor>> indices;
  for (int64_t i = 0; i < d; i++)
    indices.push_back(c10::nullopt);
  indices.push_back(index);
  bool unit = alpha.isIntegral(/*includeBool=*/false) ? alpha.toLong() == 1
                                                      : alpha.toDouble() == 1.0;
  at::Tensor values = unit ? source : source.mul(alpha);
  return index_put_impl(self, indices, values, /*accumulate=*/true, false);
}

at::Tensor index_add(const at::Tensor &self, int64_t dim,
                     const at::Tensor &index, const at::Tensor &source,
                     const c10::Scalar &alpha) {
  at::Tensor out = new_tensor(self, self.sizes(), self.scalar_type());
  out.copy_(self);
  return index_add_(out, dim, index, source, alpha);
}

at::Tensor &masked_fill_scalar_(at::Tensor &self, const at::Tensor &mask,
                                const c10::Scalar &value) {
  if (self.numel() == 0)
    return self;
  at::Tensor m = on_device(mask, self.device());
  OpContext ctx(self);
  DiopiTensor x(self), mt(m);
  diopiScalar_t v = diopi_scalar(value);
  BP_CALL(diopiMaskedFillInpScalar, ctx, x, mt, &v);
  return self;
}
at::Tensor &masked_fill_tensor_(at::Tensor &self, const at::Tensor &mask,
                                const at::Tensor &value) {
  TORCH_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but "
              "got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill_scalar_(self, mask, value.item());
}

// self's elements where mask (broadcast) holds replaced by source's, in
// order; a short source leaves the rest (PyTorch's CPU raises there).
at::Tensor &masked_scatter_(at::Tensor &self, const at::Tensor &mask,
                            const at::Tensor &source) {
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "masked_scatter: expected self and source to have same dtypes "
              "but got ",
              self.scalar_type(), " and ", source.scalar_type());
  if (self.numel() == 0)
    return self;
  at::Tensor m = on_device(mask, self.device());
  OpContext ctx(self);
  DiopiTensor x(self), mt(m), src(source);
  BP_CALL(diopiMaskedScatter, ctx, x, x, mt, src);
  return self;
}

at::Tensor masked_select(const at::Tensor &self, const at::Tensor &mask) {
  at::Tensor m = on_device(mask, self.device());
  OpContext ctx(self);
  DiopiTensor x(self), mt(m);
  diopiTensorHandle_t result = nullptr;
  BP_CALL(diopiMaskedSelect, ctx, &result, x, mt);
  return adopt_result(ctx, self, result);
}

at::Tensor nonzero(const at::Tensor &self) {
  OpContext ctx(self);
  DiopiTensor x(self);
  diopiTensorHandle_t result = nullptr;
  BP_CALL(diopiNonzero, ctx, &result, x);
  return adopt_result(ctx, self, result);
}

// torch.unique (_unique2: every element; unique_dim: slices along dim) as
// the library's, which always sorts: sorted=False gets the sorted result,
// one of the orders PyTorch leaves unspecified. The inverse (self's shape,
// or dim's length) and counts are empty unless asked for, as PyTorch's.
// Sized by the data: waits for the stream.
std::tuple<at::Tensor, at::Tensor, at::Tensor> unique_of(const at::Tensor &self,
                                                         const int64_t *dim,
                                                         bool return_inverse,
                                                         bool return_counts) {
  std::vector<int64_t> inverse_shape{0};
  if (return_inverse)
    inverse_shape =
        dim ? std::vector<int64_t>{self.size(*dim)} : self.sizes().vec();
  at::Tensor inverse = new_tensor(self, inverse_shape, at::kLong);
  OpContext ctx(self);
  DiopiTensor x(self);
  std::unique_ptr<DiopiTensor> inv;
  if (return_inverse)
    inv = std::make_unique<DiopiTensor>(inverse);
  diopiTensorHandle_t out = nullptr, counts = nullptr;
  BP_CALL(diopiUnique, ctx, &out, x, dim, true, return_counts,
          inv ? static_cast<diopiTensorHandle_t>(*inv) : nullptr, &counts);
  at::Tensor counted = return_counts ? adopt_result(ctx, self, counts)
                                     : new_tensor(self, {0}, at::kLong);
  return {adopt_result(ctx, self, out), inverse, counted};
}
std::tuple<at::Tensor, at::Tensor, at::Tensor> unique2(const at::Tensor &self,
                                                       bool /*sorted*/,
                                                       bool return_inverse,
                                                       bool return_counts) {
  return unique_of(self, nullptr, return_inverse, return_counts);
}
std::tuple<at::Tensor, at::Tensor, at::Tensor>
unique_dim(const at::Tensor &self, int64_t dim, bool /*sorted*/,
           bool return_inverse, bool return_counts) {
  int64_t d = wrap_dim(dim, self.dim());
  return unique_of(self, &d, return_inverse, return_counts);
}

// _embedding_bag (and its forward-only twin): out, then offset2bag,
// bag_size and max_indices (max mode; else empty), which the backward reads.
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>
embedding_bag(const at::Tensor &weight, const at::Tensor &indices,
              const at::Tensor &offsets, bool /*scale_grad_by_freq*/,
              int64_t mode, bool /*sparse*/,
              const c10::optional<at::Tensor> &per_sample_weights,
              bool include_last_offset, int64_t padding_idx) {
  int64_t bags = offsets.numel() - (include_last_offset ? 1 : 0);
  at::Tensor out =
      new_tensor(weight, {bags, weight.size(1)}, weight.scalar_type());
  at::Tensor offset2bag = new_tensor(weight, {indices.numel()}, at::kLong);
  at::Tensor bag_size = new_tensor(weight, {bags}, at::kLong);
  at::Tensor max_indices = new_tensor(
      weight, mode == 2 ? out.sizes() : c10::IntArrayRef{0}, at::kLong);
  at::Tensor psw = per_sample_weights.value_or(at::Tensor());
  OpContext ctx(weight);
  DiopiTensor o(out), o2b(offset2bag), bs(bag_size), mi(max_indices), w(weight),
      i(indices), off(offsets), p(psw);
  BP_CALL(diopiEmbeddingBag, ctx, o, o2b, bs,
          mode == 2 ? static_cast<diopiTensorHandle_t>(mi) : nullptr, w, i, off,
          mode, p, include_last_offset, padding_idx);
  return {out, offset2bag, bag_size, max_indices};
}

at::Tensor embedding_bag_dense_backward(
    const at::Tensor &grad, const at::Tensor &indices,
    const at::Tensor &offset2bag, const at::Tensor &bag_size,
    const at::Tensor &maximum_indices, int64_t num_weights,
    bool scale_grad_by_freq, int64_t mode,
    const c10::optional<at::Tensor> &per_sample_weights, int64_t padding_idx) {
  at::Tensor grad_weight =
      new_tensor(grad, {num_weights, grad.size(1)}, grad.scalar_type());
  at::Tensor psw = per_sample_weights.value_or(at::Tensor());
  OpContext ctx(grad);
  DiopiTensor gw(grad_weight), g(grad), i(indices), o2b(offset2bag),
      bs(bag_size), mi(maximum_indices), p(psw);
  BP_CALL(diopiEmbeddingBagBackward, ctx, gw, g, i, o2b, bs,
          mode == 2 ? static_cast<diopiConstTensorHandle_t>(mi) : nullptr, mode,
          p, scale_grad_by_freq, padding_idx);
  return grad_weight;
}

// The gradient of per_sample_weights (mode sum; offsets are read through
// offset2bag, which the forward always fills).
at::Tensor embedding_bag_per_sample_weights_backward(
    const at::Tensor &grad, const at::Tensor &weight, const at::Tensor &indices,
    const at::Tensor & /*offsets*/, const at::Tensor &offset2bag, int64_t mode,
    int64_t padding_idx) {
  TORCH_CHECK(mode == 0,
              "embedding_bag_backward: per_sample_weights only supported for "
              "mode='sum'");
  at::Tensor out = new_tensor(grad, {indices.numel()}, grad.scalar_type());
  OpContext ctx(grad);
  DiopiTensor o(out), g(grad), w(weight), i(indices), o2b(offset2bag);
  BP_CALL(diopiEmbeddingBagPerSampleWeightsBackward, ctx, o, g, w, i, o2b,
          padding_idx);
  return out;
}

at::Tensor embedding_dense_backward(const at::Tensor &grad_output,
                                    const at::Tensor &indices,
                                    c10::SymInt num_weights,
                                    int64_t padding_idx,
                                    bool scale_grad_by_freq) {
  int64_t rows = num_weights.expect_int();
  at::Tensor grad = new_tensor(grad_output, {rows, grad_output.size(-1)},
                               grad_output.scalar_type());
  OpContext ctx(grad_output);
  DiopiTensor g(grad), go(grad_output), i(indices);
  BP_CALL(diopiEmbeddingBackward, ctx, g, go, i, rows, padding_idx,
          scale_grad_by_freq, false);
  return grad;
}

// ---- Rearrangements -----------------------------------------------------

at::Tensor flip(const at::Tensor &self, c10::IntArrayRef dims) {
  at::Tensor out = new_tensor(self, self.sizes(), self.scalar_type());
  if (out.numel() == 0)
    return out;
  std::vector<int64_t> wrapped;
  for (int64_t d : dims)
    wrapped.push_back(wrap_dim(d, self.dim()));
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiFlip, ctx, o, x, diopi_size(wrapped));
  return out;
}

at::Tensor roll(const at::Tensor &self, c10::IntArrayRef shifts,
                c10::IntArrayRef dims) {
  at::Tensor out = new_tensor(self, self.sizes(), self.scalar_type());
  if (out.numel() == 0)
    return out;
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  BP_CALL(diopiRoll, ctx, o, x, diopi_size(shifts), diopi_size(dims));
  return out;
}

at::Tensor triangle(bool lower, const at::Tensor &self, int64_t diagonal) {
  at::Tensor out = new_tensor(self, self.sizes(), self.scalar_type());
  if (out.numel() == 0)
    return out;
  OpContext ctx(self);
  DiopiTensor o(out), x(self);
  if (lower)
    BP_CALL(diopiTril, ctx, o, x, diagonal);
  else
    BP_CALL(diopiTriu, ctx, o, x, diagonal);
  return out;
}
at::Tensor tril(const at::Tensor &self, int64_t diagonal) {
  return triangle(true, self, diagonal);
}
at::Tensor triu(const at::Tensor &self, int64_t diagonal) {
  return triangle(false, self, diagonal);
}

at::Tensor &arange_out(const c10::Scalar &start, const c10::Scalar &end,
                       const c10::Scalar &step, at::Tensor &out) {
  double from = start.toDouble(), to = end.toDouble(), by = step.toDouble();
  TORCH_CHECK(by != 0, "step must be nonzero");
  TORCH_CHECK((by > 0 && to >= from) || (by < 0 && to <= from),
              "upper bound and larger bound inconsistent with step sign");
  int64_t n = static_cast<int64_t>(std::ceil((to - from) / by));
  shaped_out(out, {n});
  if (n == 0)
    return out;
  OpContext ctx(out);
  DiopiTensor o(out);
  diopiScalar_t a = diopi_scalar(start), b = diopi_scalar(end),
                s = diopi_scalar(step);
  BP_CALL(diopiArange, ctx, o, &a, &b, &s);
  return out;
}

// n x m identity (ones on the main diagonal) into out, resized to it.
at::Tensor &eye_m_out(int64_t n, int64_t m, at::Tensor &out) {
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  shaped_out(out, {n, m});
  if (out.numel() == 0)
    return out;
  OpContext ctx(out);
  DiopiTensor o(out);
  BP_CALL(diopiEye, ctx, o, n, m);
  return out;
}
at::Tensor &eye_out(int64_t n, at::Tensor &out) {
  return eye_m_out(n, n, out);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("max", max_all);
  m.impl("min", min_all);
  m.impl("max.dim", max_dim);
  m.impl("min.dim", min_dim);
  m.impl("max.dim_max", max_dim_out);
  m.impl("min.dim_min", min_dim_out);
  m.impl("amax", amax);
  m.impl("amax.out", amax_out);
  m.impl("amin", amin);
  m.impl("amin.out", amin_out);
  m.impl("argmin", argmin);
  m.impl("any", any);
  m.impl("all", all);
  m.impl("any.dim", any_dim);
  m.impl("all.dim", all_dim);
  m.impl("cumsum", cumsum);
  m.impl("cumprod", cumprod);
  m.impl("cumprod.out", cumprod_out);
  m.impl("nansum", nansum);
  m.impl("nansum.out", nansum_out);
  m.impl("count_nonzero.dim_IntList", count_nonzero);
  m.impl("prod", prod);
  m.impl("prod.dim_int", prod_dim);
  m.impl("std.correction", std_correction);
  m.impl("var.correction", var_correction);
  m.impl("var_mean.correction", var_mean_correction);
  m.impl("std_mean.correction", std_mean_correction);
  m.impl("linalg_vector_norm", linalg_vector_norm);
  m.impl("norm.ScalarOpt_dim", norm_dim);
  m.impl("norm.ScalarOpt_dim_dtype", norm_dim_dtype);
  m.impl("norm.Scalar", norm_all);
  m.impl("topk", topk);
  m.impl("sort", sort);
  m.impl("sort.stable", sort_stable);
  m.impl("index_select", index_select);
  m.impl("gather", gather);
  m.impl("scatter.src", scatter_src);
  m.impl("scatter_.src", scatter_src_);
  m.impl("scatter.value", scatter_value);
  m.impl("scatter_.value", scatter_value_);
  m.impl("scatter_add", scatter_add);
  m.impl("scatter_add_", scatter_add_);
  m.impl("index.Tensor", index);
  m.impl("_index_put_impl_", index_put_impl);
  m.impl("index_add_", index_add_);
  m.impl("index_add", index_add);
  m.impl("masked_fill_.Scalar", masked_fill_scalar_);
  m.impl("masked_scatter_", masked_scatter_);
  m.impl("masked_fill_.Tensor", masked_fill_tensor_);
  m.impl("masked_select", masked_select);
  m.impl("nonzero", nonzero);
  m.impl("_unique2", unique2);
  m.impl("unique_dim", unique_dim);
  m.impl("embedding_dense_backward", embedding_dense_backward);
  m.impl("_embedding_bag", embedding_bag);
  m.impl("_embedding_bag_forward_only", embedding_bag);
  m.impl("_embedding_bag_dense_backward", embedding_bag_dense_backward);
  m.impl("_embedding_bag_per_sample_weights_backward",
         embedding_bag_per_sample_weights_backward);
  m.impl("flip", flip);
  m.impl("roll", roll);
  m.impl("tril", tril);
  m.impl("triu", triu);
  m.impl("arange.start_out", arange_out);
  m.impl("eye.out", eye_out);
  m.impl("eye.m_out", eye_m_out);
}

} // namespace torch_backplane
