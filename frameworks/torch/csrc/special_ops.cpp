// Special functions: polygamma (so digamma's and polygamma's backwards,
// which autograd writes as polygamma(n + 1, x)) and xlogy (so F.kl_div with
// log_target=False, which PyTorch composes from xlogy), in the functional,
// in-place and `out=` forms; each one DIOPI call on the device's current
// stream, broadcasting and strides the op library's.
#include <ATen/ops/result_type.h>
#include <torch/library.h>

#include "binary_kernels.h"
#include "kernel_util.h"

namespace torch_backplane {
namespace {

void run_polygamma(const at::Tensor &out, int64_t n, const at::Tensor &self) {
  if (out.numel() == 0)
    return;
  OpContext ctx(out);
  DiopiTensor o(out), x(self);
  if (out.is_same(self))
    return BP_CALL(diopiPolygammaInp, ctx, o, n);
  BP_CALL(diopiPolygamma, ctx, o, x, n);
}

at::Tensor polygamma(int64_t n, const at::Tensor &self) {
  at::Tensor out =
      new_tensor(self, self.sizes(), floating_type(self.scalar_type()));
  run_polygamma(out, n, self);
  return out;
}
at::Tensor &polygamma_(at::Tensor &self, int64_t n) {
  run_polygamma(self, n, self);
  return self;
}
at::Tensor &polygamma_out(int64_t n, const at::Tensor &self, at::Tensor &out) {
  run_polygamma(shaped_out(out, self.sizes()), n, self);
  return out;
}

const BinaryOp xlogy_op = {"diopiXlogy", BP_DIOPI_LATER(diopiXlogy),
                           "diopiXlogyScalar",
                           BP_DIOPI_LATER(diopiXlogyScalar)};

at::ScalarType xlogy_type(const at::Tensor &a, const at::Tensor &b) {
  return floating_type(at::result_type(a, b));
}

at::Tensor xlogy_tensor(const at::Tensor &a, const at::Tensor &b) {
  return binary(xlogy_op, a, b, xlogy_type(a, b));
}
at::Tensor xlogy_scalar_other(const at::Tensor &a, const c10::Scalar &b) {
  at::Tensor other = scalar_tensor(b);
  return binary(xlogy_op, a, other, xlogy_type(a, other));
}
at::Tensor &xlogy_tensor_(at::Tensor &a, const at::Tensor &b) {
  return binary_(xlogy_op, a, b);
}
at::Tensor &xlogy_scalar_other_(at::Tensor &a, const c10::Scalar &b) {
  return binary_(xlogy_op, a, scalar_tensor(b));
}
at::Tensor &xlogy_out_tensor(const at::Tensor &a, const at::Tensor &b,
                             at::Tensor &out) {
  return binary_out(xlogy_op, a, b, out);
}
at::Tensor &xlogy_out_scalar_other(const at::Tensor &a, const c10::Scalar &b,
                                   at::Tensor &out) {
  return binary_out(xlogy_op, a, scalar_tensor(b), out);
}

// xlogy(number, tensor): the library's scalar-self form.
void run_xlogy_scalar_self(const at::Tensor &out, const c10::Scalar &a,
                           const at::Tensor &b) {
  if (out.numel() == 0)
    return;
  OpContext ctx(out);
  DiopiTensor o(out), y(b);
  diopiScalar_t x = diopi_scalar(a);
  BP_CALL(diopiXlogyScalarSelf, ctx, o, &x, y);
}
at::Tensor xlogy_scalar_self(const c10::Scalar &a, const at::Tensor &b) {
  at::Tensor out = new_tensor(b, b.sizes(), xlogy_type(scalar_tensor(a), b));
  run_xlogy_scalar_self(out, a, b);
  return out;
}
at::Tensor &xlogy_out_scalar_self(const c10::Scalar &a, const at::Tensor &b,
                                  at::Tensor &out) {
  run_xlogy_scalar_self(shaped_out(out, b.sizes()), a, b);
  return out;
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("polygamma", polygamma);
  m.impl("polygamma_", polygamma_);
  m.impl("polygamma.out", polygamma_out);
  m.impl("xlogy.Tensor", xlogy_tensor);
  m.impl("xlogy.Scalar_Other", xlogy_scalar_other);
  m.impl("xlogy.Scalar_Self", xlogy_scalar_self);
  m.impl("xlogy_.Tensor", xlogy_tensor_);
  m.impl("xlogy_.Scalar_Other", xlogy_scalar_other_);
  m.impl("xlogy.OutTensor", xlogy_out_tensor);
  m.impl("xlogy.OutScalar_Other", xlogy_out_scalar_other);
  m.impl("xlogy.OutScalar_Self", xlogy_out_scalar_self);
}

} // namespace torch_backplane
