// The binary kernel forms shared by the pointwise kernel files: one DIOPI
// call on the device's current stream for out = op(a, b), a and b
// broadcast, a 0-dim host b passed as the op's scalar where it has a
// scalar form, in the functional, in-place and `out=` forms.
#ifndef TORCH_BACKPLANE_BINARY_KERNELS_H_
#define TORCH_BACKPLANE_BINARY_KERNELS_H_

#include <ATen/ExpandUtils.h>
#include <ATen/ScalarOps.h>

#include "kernel_util.h"

namespace torch_backplane {

using BinaryFn = diopiError_t (*)(diopiContextHandle_t, diopiTensorHandle_t,
                                  diopiConstTensorHandle_t,
                                  diopiConstTensorHandle_t);
using BinaryScalarFn = diopiError_t (*)(diopiContextHandle_t,
                                        diopiTensorHandle_t,
                                        diopiConstTensorHandle_t,
                                        const diopiScalar_t *);

// The op functions are looked up on first call (BP_DIOPI_LATER), not when
// the library loads: that would start Backplane's runtime at import time,
// where a failure cannot become a Python exception.
struct BinaryOp {
  const char *name;
  BinaryFn (*tensor)();
  const char *scalar_name;
  BinaryScalarFn (*scalar)(); // may be null: the scalar goes to the device
};
#define BP_DIOPI_LATER(name) []() { return BP_DIOPI(name); }

// out = op(a, b); a 0-dim host b is the op's scalar. Errors raise.
inline void run_binary(const BinaryOp &op, const at::Tensor &out,
                       const at::Tensor &a, const at::Tensor &b) {
  if (out.numel() == 0)
    return;
  at::Tensor lhs = on_device(a, out.device());
  OpContext ctx(out);
  DiopiTensor o(out), x(lhs);
  if (op.scalar && is_host_scalar(b)) {
    diopiScalar_t s = diopi_scalar(b.item());
    return check_op(op.scalar_name, op.scalar()(ctx, o, x, &s));
  }
  at::Tensor rhs = on_device(b, out.device());
  TORCH_CHECK(rhs.device() == out.device(),
              "backplane: expected all tensors to be on the same device, "
              "but found ",
              out.device(), " and ", rhs.device());
  DiopiTensor y(rhs);
  check_op(op.name, op.tensor()(ctx, o, x, y));
}

// The operand whose device a result goes to: a, unless a is on the host.
inline const at::Tensor &device_operand(const at::Tensor &a,
                                        const at::Tensor &b) {
  return a.device().is_cpu() ? b : a;
}

// A new result of the broadcast shape and dtype `type`.
inline at::Tensor binary(const BinaryOp &op, const at::Tensor &a,
                         const at::Tensor &b, at::ScalarType type) {
  at::Tensor out = new_tensor(device_operand(a, b),
                              at::infer_size(a.sizes(), b.sizes()), type);
  run_binary(op, out, a, b);
  return out;
}

inline at::Tensor &binary_out(const BinaryOp &op, const at::Tensor &a,
                              const at::Tensor &b, at::Tensor &out) {
  run_binary(op, shaped_out(out, at::infer_size(a.sizes(), b.sizes())), a, b);
  return out;
}

// In place: b must broadcast to self's shape.
inline at::Tensor &binary_(const BinaryOp &op, at::Tensor &self,
                           const at::Tensor &b) {
  TORCH_CHECK(at::infer_size(self.sizes(), b.sizes()) == self.sizes(),
              "output with shape ", self.sizes(),
              " doesn't match the broadcast shape ",
              at::infer_size(self.sizes(), b.sizes()));
  run_binary(op, self, self, b);
  return self;
}

// A number as the 0-dim host tensor run_binary takes for a scalar.
inline at::Tensor scalar_tensor(const c10::Scalar &s) {
  return c10::scalar_to_tensor(s);
}

} // namespace torch_backplane

#endif // TORCH_BACKPLANE_BINARY_KERNELS_H_
