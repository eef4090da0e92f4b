// Tensors over device storages handed in from Python: torch 1.13's Python
// bindings refuse a PrivateUse1 storage as an argument (Tensor.set_,
// UntypedStorage.copy_), which torch.save and torch.load need.
#pragma once

#include <ATen/core/Tensor.h>
#include <Python.h>

#include <vector>

namespace torch_backplane {

// A tensor of `dtype` viewing `storage` (a torch.UntypedStorage of a
// backplane device) at `offset` elements with `size` and `stride` (empty:
// contiguous). Shares the storage; no data moves. Throws (RuntimeError) for
// another object or a view outside the storage.
at::Tensor tensor_of_storage(PyObject *storage, at::ScalarType dtype,
                             int64_t offset, const std::vector<int64_t> &size,
                             const std::vector<int64_t> &stride);

} // namespace torch_backplane
