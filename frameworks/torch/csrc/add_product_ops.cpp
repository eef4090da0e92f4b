// Matrix products with an addend beyond addmm and baddbmm: addmv (so mv,
// which PyTorch writes as addmv_ with beta 0) and addbmm, in the
// functional, in-place and `out=` forms; each one DIOPI call on the
// device's current stream (self broadcast to the product's shape; beta 0
// ignores self, NaN and Inf in it included, as PyTorch).
#include <torch/library.h>

#include "kernel_util.h"

namespace torch_backplane {
namespace {

using AddProductFn = diopiError_t (*)(diopiContextHandle_t, diopiTensorHandle_t,
                                      diopiConstTensorHandle_t,
                                      diopiConstTensorHandle_t,
                                      diopiConstTensorHandle_t,
                                      const diopiScalar_t *,
                                      const diopiScalar_t *);

// out = beta * self + alpha * product(a, b) through `fn`, named `name`.
void run_add_product(const char *name, AddProductFn fn, const at::Tensor &out,
                     const at::Tensor &self, const at::Tensor &a,
                     const at::Tensor &b, const c10::Scalar &beta,
                     const c10::Scalar &alpha) {
  if (out.numel() == 0)
    return;
  at::Tensor addend = on_device(self, out.device());
  OpContext ctx(out);
  DiopiTensor o(out), c(addend), x(a), y(b);
  diopiScalar_t be = diopi_scalar(beta), al = diopi_scalar(alpha);
  check_op(name, fn(ctx, o, c, x, y, &be, &al));
}

std::vector<int64_t> addmv_shape(const at::Tensor &mat, const at::Tensor &vec) {
  TORCH_CHECK(mat.dim() == 2 && vec.dim() == 1,
              "addmv: expected a 2-D matrix and a 1-D vector, got ", mat.dim(),
              "-D and ", vec.dim(), "-D");
  return {mat.size(0)};
}

at::Tensor &addmv_out(const at::Tensor &self, const at::Tensor &mat,
                      const at::Tensor &vec, const c10::Scalar &beta,
                      const c10::Scalar &alpha, at::Tensor &out) {
  run_add_product("diopiAddmv", BP_DIOPI(diopiAddmv),
                  shaped_out(out, addmv_shape(mat, vec)), self, mat, vec, beta,
                  alpha);
  return out;
}
at::Tensor addmv(const at::Tensor &self, const at::Tensor &mat,
                 const at::Tensor &vec, const c10::Scalar &beta,
                 const c10::Scalar &alpha) {
  at::Tensor out = new_tensor(mat, addmv_shape(mat, vec), mat.scalar_type());
  return addmv_out(self, mat, vec, beta, alpha, out);
}
at::Tensor &addmv_(at::Tensor &self, const at::Tensor &mat,
                   const at::Tensor &vec, const c10::Scalar &beta,
                   const c10::Scalar &alpha) {
  TORCH_CHECK(self.sizes().equals(addmv_shape(mat, vec)),
              "addmv_: self has shape ", self.sizes(), ", the product ",
              addmv_shape(mat, vec));
  return addmv_out(self, mat, vec, beta, alpha, self);
}

std::vector<int64_t> addbmm_shape(const at::Tensor &batch1,
                                  const at::Tensor &batch2) {
  TORCH_CHECK(batch1.dim() == 3 && batch2.dim() == 3,
              "addbmm: expected 3-D batches, got ", batch1.dim(), "-D and ",
              batch2.dim(), "-D");
  return {batch1.size(1), batch2.size(2)};
}

at::Tensor &addbmm_out(const at::Tensor &self, const at::Tensor &batch1,
                       const at::Tensor &batch2, const c10::Scalar &beta,
                       const c10::Scalar &alpha, at::Tensor &out) {
  run_add_product("diopiAddbmm", BP_DIOPI(diopiAddbmm),
                  shaped_out(out, addbmm_shape(batch1, batch2)), self, batch1,
                  batch2, beta, alpha);
  return out;
}
at::Tensor addbmm(const at::Tensor &self, const at::Tensor &batch1,
                  const at::Tensor &batch2, const c10::Scalar &beta,
                  const c10::Scalar &alpha) {
  at::Tensor out =
      new_tensor(batch1, addbmm_shape(batch1, batch2), batch1.scalar_type());
  return addbmm_out(self, batch1, batch2, beta, alpha, out);
}
at::Tensor &addbmm_(at::Tensor &self, const at::Tensor &batch1,
                    const at::Tensor &batch2, const c10::Scalar &beta,
                    const c10::Scalar &alpha) {
  TORCH_CHECK(self.sizes().equals(addbmm_shape(batch1, batch2)),
              "addbmm_: self has shape ", self.sizes(), ", the product ",
              addbmm_shape(batch1, batch2));
  return addbmm_out(self, batch1, batch2, beta, alpha, self);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("addmv", addmv);
  m.impl("addmv_", addmv_);
  m.impl("addmv.out", addmv_out);
  m.impl("addbmm", addbmm);
  m.impl("addbmm_", addbmm_);
  m.impl("addbmm.out", addbmm_out);
}

} // namespace torch_backplane
