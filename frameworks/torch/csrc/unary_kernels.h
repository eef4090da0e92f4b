// The unary kernel forms shared by the pointwise kernel files: one DIOPI
// call on the device's current stream, in the functional, in-place and
// `out=` forms PyTorch dispatches separately.
#ifndef TORCH_BACKPLANE_UNARY_KERNELS_H_
#define TORCH_BACKPLANE_UNARY_KERNELS_H_

#include "kernel_util.h"

namespace torch_backplane {

using UnaryFn = diopiError_t (*)(diopiContextHandle_t, diopiTensorHandle_t,
                                 diopiConstTensorHandle_t);
using UnaryInpFn = diopiError_t (*)(diopiContextHandle_t, diopiTensorHandle_t);

// `fn` from `self` into `out` (nothing for an empty out); errors raise,
// naming `name`.
inline void run_unary(const char *name, UnaryFn fn, const at::Tensor &out,
                      const at::Tensor &self) {
  if (out.numel() == 0)
    return;
  OpContext ctx(out);
  DiopiTensor o(out), x(self);
  check_op(name, fn(ctx, o, x));
}

// A new result of self's shape; `floating`: an integral input gives the
// default floating dtype.
inline at::Tensor unary(const char *name, UnaryFn fn, const at::Tensor &self,
                        bool floating) {
  at::ScalarType type =
      floating ? floating_type(self.scalar_type()) : self.scalar_type();
  at::Tensor out = new_tensor(self, self.sizes(), type);
  run_unary(name, fn, out, self);
  return out;
}

inline at::Tensor &unary_(const char *name, UnaryInpFn fn, at::Tensor &self) {
  if (self.numel() == 0)
    return self;
  OpContext ctx(self);
  DiopiTensor x(self);
  check_op(name, fn(ctx, x));
  return self;
}

inline at::Tensor &unary_out(const char *name, UnaryFn fn,
                             const at::Tensor &self, at::Tensor &out) {
  run_unary(name, fn, shaped_out(out, self.sizes()), self);
  return out;
}

} // namespace torch_backplane

// aten::NAME, NAME_ and NAME.out over diopiDIOPI and diopiDIOPIInp;
// FLOATING: an integral input gives the default floating dtype.
#define BP_UNARY(NAME, DIOPI, FLOATING)                                        \
  at::Tensor NAME##_kernel(const at::Tensor &s) {                              \
    return unary("diopi" #DIOPI, BP_DIOPI(diopi##DIOPI), s, FLOATING);         \
  }                                                                            \
  at::Tensor &NAME##_inplace(at::Tensor &s) {                                  \
    return unary_("diopi" #DIOPI "Inp", BP_DIOPI(diopi##DIOPI##Inp), s);       \
  }                                                                            \
  at::Tensor &NAME##_out(const at::Tensor &s, at::Tensor &out) {               \
    return unary_out("diopi" #DIOPI, BP_DIOPI(diopi##DIOPI), s, out);          \
  }
#define BP_UNARY_REGISTER(m, NAME)                                             \
  m.impl(#NAME, NAME##_kernel);                                                \
  m.impl(#NAME "_", NAME##_inplace);                                           \
  m.impl(#NAME ".out", NAME##_out)

#endif // TORCH_BACKPLANE_UNARY_KERNELS_H_
