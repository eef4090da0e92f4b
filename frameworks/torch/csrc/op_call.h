// Calling a DIOPI op on PyTorch tensors: at::Tensor -> diopi tensor handle
// (device memory, or host memory for CPU tensors, strides kept), scalars,
// sizes, and one OpContext per call that picks the tensors' device, its
// current stream and clears the op's scratch afterwards.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceGuard.h>

#include <vector>

#include "backplane/diopi/functions.h"
#include "backplane/diopi/functions_backplane.h"
#include "bridge.h"

namespace torch_backplane {

diopiDtype_t diopi_dtype(c10::ScalarType type);

// Owns a diopi tensor handle over `t`'s memory (none for an undefined t).
class DiopiTensor {
public:
  explicit DiopiTensor(const at::Tensor &t);
  ~DiopiTensor() {
    bp_ops_tensor_destroy(handle_);
  }
  DiopiTensor(const DiopiTensor &) = delete;
  DiopiTensor &operator=(const DiopiTensor &) = delete;
  operator diopiTensorHandle_t() const {
    return handle_;
  }
  operator diopiConstTensorHandle_t() const {
    return handle_;
  }

private:
  diopiTensorHandle_t handle_ = nullptr;
};

diopiScalar_t diopi_scalar(const c10::Scalar &s);

// A diopiSize_t viewing `v` (which must outlive it).
inline diopiSize_t diopi_size(c10::IntArrayRef v) {
  return {v.data(), static_cast<int64_t>(v.size())};
}

// The device (guarded current for the call's duration) and its context.
class OpContext {
public:
  explicit OpContext(const at::Tensor &on)
      : guard_(on.device()), ctx_(context(on.device().index())) {}
  ~OpContext() {
    bp_ops_context_clear(ctx_);
  }
  OpContext(const OpContext &) = delete;
  OpContext &operator=(const OpContext &) = delete;
  operator diopiContextHandle_t() const {
    return ctx_;
  }

private:
  c10::DeviceGuard guard_;
  diopiContextHandle_t ctx_;
};

// BP_DIOPI(diopiAdd): the op library's diopiAdd, typed, looked up once.
#define BP_DIOPI(name)                                                         \
  ([]() {                                                                      \
    static auto fn = reinterpret_cast<decltype(&::name)>(                      \
        ::torch_backplane::find_op(#name));                                    \
    return fn;                                                                 \
  }())
// BP_CALL(diopiAdd, ctx, out, a, b, &alpha): calls it and throws on failure.
#define BP_CALL(name, ...)                                                     \
  ::torch_backplane::check_op(#name, BP_DIOPI(name)(__VA_ARGS__))

} // namespace torch_backplane
