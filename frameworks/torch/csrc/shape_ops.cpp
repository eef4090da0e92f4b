// Kernels that assemble tensors from others: cat (DDP flattens buckets and
// coalesced broadcasts with it).
#include <ATen/ops/empty.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <memory>
#include <vector>

#include "op_call.h"

namespace torch_backplane {
namespace {

// PyTorch's legacy rule: 1-D empty tensors take no part in cat.
bool skipped(const at::Tensor &t) {
  return t.dim() == 1 && t.numel() == 0;
}

std::vector<int64_t> cat_shape(const at::ITensorListRef &tensors, int64_t dim,
                               const at::Tensor **first) {
  std::vector<int64_t> shape;
  for (const at::Tensor &t : tensors) {
    if (skipped(t))
      continue;
    if (shape.empty()) {
      *first = &t;
      shape.assign(t.sizes().begin(), t.sizes().end());
      dim = c10::maybe_wrap_dim(dim, t.dim());
      shape[dim] = 0;
    }
    TORCH_CHECK(t.dim() == static_cast<int64_t>(shape.size()),
                "Tensors must have same number of dimensions: got ",
                shape.size(), " and ", t.dim());
    shape[dim] += t.size(dim);
  }
  return shape;
}

at::Tensor &cat_out(const at::ITensorListRef &tensors, int64_t dim,
                    at::Tensor &out) {
  const at::Tensor *first = nullptr;
  std::vector<int64_t> shape = cat_shape(tensors, dim, &first);
  if (!first) {
    out.resize_({0});
    return out;
  }
  dim = c10::maybe_wrap_dim(dim, first->dim());
  if (!out.sizes().equals(shape))
    out.resize_(shape);
  std::vector<at::Tensor> inputs;
  for (const at::Tensor &t : tensors)
    if (!skipped(t))
      inputs.push_back(
          t.scalar_type() == out.scalar_type() ? t : t.to(out.scalar_type()));
  std::vector<std::unique_ptr<DiopiTensor>> owned;
  std::vector<diopiConstTensorHandle_t> handles;
  for (const at::Tensor &t : inputs) {
    owned.push_back(std::make_unique<DiopiTensor>(t));
    handles.push_back(*owned.back());
  }
  OpContext ctx(out);
  DiopiTensor o(out);
  BP_CALL(diopiCat, ctx, o, handles.data(),
          static_cast<int64_t>(handles.size()), dim);
  return out;
}

at::Tensor cat(const at::ITensorListRef &tensors, int64_t dim) {
  const at::Tensor *first = nullptr;
  std::vector<int64_t> shape = cat_shape(tensors, dim, &first);
  TORCH_CHECK(first, "torch.cat(): expected a non-empty list of Tensors");
  at::Tensor out = at::empty(shape, first->options());
  return cat_out(tensors, dim, out);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("cat", cat);
  m.impl("cat.out", cat_out);
}

} // namespace torch_backplane
