// The unary kernel forms shared by the pointwise kernel files: one DIOPI
// call on the device's current stream, in the functional, in-place and
// `out=` forms PyTorch dispatches separately, and the backward of such an
// op; each takes the op's attributes after its tensors.
#ifndef TORCH_BACKPLANE_UNARY_KERNELS_H_
#define TORCH_BACKPLANE_UNARY_KERNELS_H_

#include "kernel_util.h"

namespace torch_backplane {

// An op attribute as the op library takes it: a c10::Scalar becomes a
// pointer to its diopiScalar_t, which lives to the end of the call's full
// expression; any other attribute passes unchanged.
class ScalarAttr {
public:
  explicit ScalarAttr(const c10::Scalar &s) : value_(diopi_scalar(s)) {}
  operator const diopiScalar_t *() const {
    return &value_;
  }

private:
  diopiScalar_t value_;
};
inline ScalarAttr diopi_attr(const c10::Scalar &s) {
  return ScalarAttr(s);
}
template <typename T> T diopi_attr(T attr) {
  return attr;
}

// fn(ctx, out, self, attrs...) (nothing for an empty out); errors raise,
// naming `name`. `attrs` are the op's attributes (diopi_attr).
template <typename Fn, typename... Attrs>
void run_unary(const char *name, Fn fn, const at::Tensor &out,
               const at::Tensor &self, const Attrs &...attrs) {
  if (out.numel() == 0)
    return;
  OpContext ctx(out);
  DiopiTensor o(out), x(self);
  check_op(name, fn(ctx, o, x, diopi_attr(attrs)...));
}

// A new result of self's shape; `floating`: an integral input gives the
// default floating dtype.
template <typename Fn, typename... Attrs>
at::Tensor unary(const char *name, Fn fn, const at::Tensor &self, bool floating,
                 const Attrs &...attrs) {
  at::ScalarType type =
      floating ? floating_type(self.scalar_type()) : self.scalar_type();
  at::Tensor out = new_tensor(self, self.sizes(), type);
  run_unary(name, fn, out, self, attrs...);
  return out;
}

// A floating op in place: an integral self cannot hold its result (PyTorch's
// error).
inline void check_floating_in_place(const at::Tensor &self) {
  at::ScalarType type = floating_type(self.scalar_type());
  TORCH_CHECK(type == self.scalar_type(), "result type ", type,
              " can't be cast to the desired output type ", self.scalar_type());
}

// In place through the op's Inp form, fn(ctx, self, attrs...).
template <typename Fn, typename... Attrs>
at::Tensor &unary_(const char *name, Fn fn, at::Tensor &self,
                   const Attrs &...attrs) {
  if (self.numel() == 0)
    return self;
  OpContext ctx(self);
  DiopiTensor x(self);
  check_op(name, fn(ctx, x, diopi_attr(attrs)...));
  return self;
}

template <typename Fn, typename... Attrs>
at::Tensor &unary_out(const char *name, Fn fn, const at::Tensor &self,
                      at::Tensor &out, const Attrs &...attrs) {
  run_unary(name, fn, shaped_out(out, self.sizes()), self, attrs...);
  return out;
}

// grad_input of self's shape and grad_output's dtype from
// fn(ctx, grad_input, grad_output, self, attrs...); `self` is the forward's
// input or result, as the op's backward takes it.
template <typename Fn, typename... Attrs>
at::Tensor unary_backward(const char *name, Fn fn,
                          const at::Tensor &grad_output, const at::Tensor &self,
                          const Attrs &...attrs) {
  at::Tensor gi =
      new_tensor(grad_output, self.sizes(), grad_output.scalar_type());
  if (gi.numel() == 0)
    return gi;
  OpContext ctx(gi);
  DiopiTensor g(gi), go(grad_output), x(self);
  check_op(name, fn(ctx, g, go, x, diopi_attr(attrs)...));
  return gi;
}

} // namespace torch_backplane

// aten::NAME, NAME_ and NAME.out over diopiDIOPI and diopiDIOPIInp;
// FLOATING: an integral input gives the default floating dtype.
#define BP_UNARY(NAME, DIOPI, FLOATING)                                        \
  at::Tensor NAME##_kernel(const at::Tensor &s) {                              \
    return unary("diopi" #DIOPI, BP_DIOPI(diopi##DIOPI), s, FLOATING);         \
  }                                                                            \
  at::Tensor &NAME##_inplace(at::Tensor &s) {                                  \
    if (FLOATING)                                                              \
      check_floating_in_place(s);                                              \
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
