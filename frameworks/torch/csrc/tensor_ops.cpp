// The PrivateUse1 kernels that make tensors exist: allocation (empty,
// empty_strided, resize_), views (metadata only: view, as_strided, unfold),
// copies in every direction (bp_copy across the host boundary and between
// devices, diopiCopyInp on one device: casts, strides, broadcasting), fill_ /
// zero_ and item().
#include <ATen/EmptyTensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/Allocator.h>
#include <c10/util/strides.h>
#include <torch/library.h>

#include "op_call.h"

namespace torch_backplane {
namespace {

constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

bool on_backplane(const at::Tensor &t) {
  return t.device().type() == kType;
}

size_t nbytes(const at::Tensor &t) {
  return t.numel() * t.element_size();
}

at::Tensor empty_memory_format(c10::SymIntArrayRef size,
                               c10::optional<at::ScalarType> dtype,
                               c10::optional<at::Layout> /*layout*/,
                               c10::optional<at::Device> where,
                               c10::optional<bool> /*pin_memory*/,
                               c10::optional<at::MemoryFormat> format) {
  c10::OptionalDeviceGuard guard(where);
  return at::detail::empty_generic(
      c10::asIntArrayRefSlow(size), c10::GetAllocator(kType),
      c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      c10::dtype_or_default(dtype), format);
}

at::Tensor empty_strided(c10::SymIntArrayRef size, c10::SymIntArrayRef stride,
                         c10::optional<at::ScalarType> dtype,
                         c10::optional<at::Layout> /*layout*/,
                         c10::optional<at::Device> where,
                         c10::optional<bool> /*pin_memory*/) {
  c10::OptionalDeviceGuard guard(where);
  return at::detail::empty_strided_generic(
      c10::asIntArrayRefSlow(size), c10::asIntArrayRefSlow(stride),
      c10::GetAllocator(kType),
      c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      c10::dtype_or_default(dtype));
}

// Grows the storage (keeping its bytes) when the new shape needs more.
const at::Tensor &resize_(const at::Tensor &self, c10::SymIntArrayRef size,
                          c10::optional<at::MemoryFormat> /*format*/) {
  c10::DeviceGuard guard(self.device());
  auto *impl = self.unsafeGetTensorImpl();
  impl->set_sizes_contiguous(c10::asIntArrayRefSlow(size));
  size_t needed = (impl->storage_offset() + impl->numel()) *
                  static_cast<size_t>(self.element_size());
  c10::Storage storage = impl->storage();
  if (needed > storage.nbytes()) {
    c10::DataPtr grown = c10::GetAllocator(kType)->allocate(needed);
    if (storage.nbytes() > 0) {
      c10::DeviceIndex index = self.device().index();
      check(bp_copy(device(index), grown.get(), device(index), storage.data(),
                    storage.nbytes(), current_stream(index)),
            "bp_copy");
    }
    storage.set_data_ptr_noswap(std::move(grown));
    storage.set_nbytes(needed);
  }
  return self;
}

at::Tensor view(const at::Tensor &self, c10::SymIntArrayRef size) {
  return at::native::view(self, c10::asIntArrayRefSlow(size));
}

at::Tensor reshape_alias(const at::Tensor &self, c10::SymIntArrayRef size,
                         c10::SymIntArrayRef stride) {
  return at::native::_reshape_alias(self, c10::asIntArrayRefSlow(size),
                                    c10::asIntArrayRefSlow(stride));
}

at::Tensor as_strided(const at::Tensor &self, c10::SymIntArrayRef size,
                      c10::SymIntArrayRef stride,
                      c10::optional<c10::SymInt> offset) {
  c10::optional<int64_t> start;
  if (offset)
    start = offset->expect_int();
  return at::native::as_strided_tensorimpl(self, c10::asIntArrayRefSlow(size),
                                           c10::asIntArrayRefSlow(stride),
                                           start);
}

// self becomes a view of `source` (a storage of its device): how
// torch.load and storage-level code rebuild tensors. No data moves.
at::Tensor &set_storage_offset(at::Tensor &self, at::Storage source,
                               c10::SymInt offset, c10::SymIntArrayRef size,
                               c10::SymIntArrayRef stride) {
  c10::IntArrayRef sizes = c10::asIntArrayRefSlow(size);
  c10::IntArrayRef strides = c10::asIntArrayRefSlow(stride);
  int64_t start = offset.expect_int();
  at::native::checkSetStorage(self, source, start, sizes, strides);
  c10::DimVector contiguous;
  if (strides.data() == nullptr || strides.empty()) {
    contiguous = c10::contiguous_strides(sizes);
    strides = contiguous;
  }
  at::native::setStrided(self, sizes, strides, start);
  return self;
}

at::Tensor &set_storage(at::Tensor &self, at::Storage source) {
  int64_t elements =
      static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  std::vector<c10::SymInt> size{c10::SymInt(elements)};
  return set_storage_offset(self, std::move(source), 0, size, {});
}

// src -> dst on one device: any dtypes, strides, broadcasting.
void copy_on_device(const at::Tensor &src, const at::Tensor &dst) {
  OpContext ctx(dst);
  DiopiTensor from(src), to(dst);
  BP_CALL(diopiCopyInp, ctx, from, to);
}

bool is_dense(const at::Tensor &t) {
  return t.is_contiguous();
}

// Host -> device. The host side is made dense in dst's dtype first; the copy
// is ordered on dst's current stream and the host memory is the caller's
// again on return (bp_copy captures pageable memory).
void copy_host_to_device(const at::Tensor &src, const at::Tensor &dst) {
  at::Tensor host = src.to(dst.scalar_type()).expand(dst.sizes()).contiguous();
  c10::DeviceIndex index = dst.device().index();
  at::Tensor target =
      is_dense(dst) ? dst : at::empty(dst.sizes(), dst.options());
  check(bp_copy(device(index), target.data_ptr(), nullptr, host.data_ptr(),
                nbytes(host), current_stream(index)),
        "bp_copy (host to device)");
  if (!target.is_same(dst))
    copy_on_device(target, dst);
}

// Device -> host: waits for the data (PyTorch's .cpu() semantics).
void copy_device_to_host(const at::Tensor &src, const at::Tensor &dst) {
  at::Tensor dense = is_dense(src) ? src : src.contiguous();
  c10::DeviceIndex index = src.device().index();
  bool direct = is_dense(dst) && dst.scalar_type() == src.scalar_type() &&
                dst.sizes().equals(src.sizes());
  at::Tensor host =
      direct ? dst : at::empty(src.sizes(), src.options().device(at::kCPU));
  check(bp_copy(nullptr, host.data_ptr(), device(index), dense.data_ptr(),
                nbytes(dense), current_stream(index)),
        "bp_copy (device to host)");
  if (!direct)
    dst.copy_(host);
}

// Device -> another device: the source's stream is drained, then one copy
// on the destination's stream.
void copy_between_devices(const at::Tensor &src, const at::Tensor &dst) {
  at::Tensor dense = is_dense(src) ? src : src.contiguous();
  c10::DeviceIndex from = src.device().index(), to = dst.device().index();
  check(bp_stream_synchronize(current_stream(from)), "bp_stream_synchronize");
  at::Tensor staged =
      at::empty(src.sizes(), src.options().device(dst.device()));
  check(bp_copy(device(to), staged.data_ptr(), device(from), dense.data_ptr(),
                nbytes(dense), current_stream(to)),
        "bp_copy (device to device)");
  copy_on_device(staged, dst);
}

at::Tensor copy_from(const at::Tensor &self, const at::Tensor &dst,
                     bool /*non_blocking*/) {
  if (dst.numel() == 0)
    return dst;
  if (on_backplane(self) && on_backplane(dst)) {
    if (self.device() == dst.device())
      copy_on_device(self, dst);
    else
      copy_between_devices(self, dst);
  } else if (on_backplane(dst)) {
    TORCH_CHECK(self.device().is_cpu(), "backplane: cannot copy from ",
                self.device());
    copy_host_to_device(self, dst);
  } else {
    TORCH_CHECK(dst.device().is_cpu(), "backplane: cannot copy to ",
                dst.device());
    copy_device_to_host(self, dst);
  }
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor &self, const at::Tensor &dst) {
  if (!dst.sizes().equals(self.sizes()))
    dst.resize_(self.sizes());
  return copy_from(self, dst, false);
}

at::Tensor &fill_scalar(at::Tensor &self, const c10::Scalar &value) {
  if (self.numel() == 0)
    return self;
  OpContext ctx(self);
  DiopiTensor t(self);
  diopiScalar_t v = diopi_scalar(value);
  BP_CALL(diopiFill, ctx, t, &v);
  return self;
}

at::Tensor &fill_tensor(at::Tensor &self, const at::Tensor &value) {
  TORCH_CHECK(value.dim() == 0,
              "fill_ only supports 0-dimension value "
              "tensor but got tensor with ",
              value.dim(), " dimensions.");
  return fill_scalar(self, value.item());
}

at::Tensor &zero_(at::Tensor &self) {
  return fill_scalar(self, 0);
}

c10::Scalar local_scalar_dense(const at::Tensor &self) {
  at::Tensor host = at::empty({}, self.options().device(at::kCPU));
  copy_device_to_host(self.reshape({}), host);
  return host.item();
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", empty_memory_format);
  m.impl("empty_strided", empty_strided);
  m.impl("resize_", resize_);
  m.impl("view", view);
  m.impl("_reshape_alias", reshape_alias);
  m.impl("as_strided", as_strided);
  m.impl("unfold", at::native::unfold);
  m.impl("set_.source_Storage", set_storage);
  m.impl("set_.source_Storage_storage_offset", set_storage_offset);
  m.impl("_copy_from", copy_from);
  m.impl("_copy_from_and_resize", copy_from_and_resize);
  m.impl("fill_.Scalar", fill_scalar);
  m.impl("fill_.Tensor", fill_tensor);
  m.impl("zero_", zero_);
  m.impl("_local_scalar_dense", local_scalar_dense);
}

} // namespace torch_backplane
