#include "storage_view.h"

#include <ATen/native/Resize.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/strides.h>
#include <torch/csrc/Export.h>
#include <torch/csrc/Storage.h>

namespace torch_backplane {

at::Tensor tensor_of_storage(PyObject *storage, at::ScalarType dtype,
                             int64_t offset, const std::vector<int64_t> &size,
                             const std::vector<int64_t> &stride) {
  TORCH_CHECK(PyObject_IsInstance(storage, THPStorageClass) == 1,
              "backplane: expected a torch.UntypedStorage, got ",
              Py_TYPE(storage)->tp_name);
  c10::Storage source(c10::intrusive_ptr<c10::StorageImpl>::reclaim_copy(
      reinterpret_cast<THPStorage *>(storage)->cdata));
  TORCH_CHECK(source.device().type() == c10::DeviceType::PrivateUse1,
              "backplane: expected a storage of a backplane device, got one "
              "of ",
              source.device());
  at::Tensor t = at::detail::make_tensor<c10::TensorImpl>(
      std::move(source), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      c10::scalarTypeToTypeMeta(dtype));
  c10::IntArrayRef sizes(size);
  c10::DimVector contiguous;
  c10::IntArrayRef strides(stride);
  if (stride.empty() && !size.empty()) {
    contiguous = c10::contiguous_strides(sizes);
    strides = contiguous;
  }
  at::native::setStrided(t, sizes, strides, offset);
  return t;
}

} // namespace torch_backplane
