// Pointwise kernels beyond add/sub/mul/div: unary math, comparisons and
// logical ops, bitwise xor, copysign, where, addcmul/addcdiv, lerp, pow,
// clamp, maximum/minimum, fmax/fmin and the activations leaky_relu, silu,
// hardtanh, hardswish with their backward. Each is one DIOPI call on the
// device's current stream, in the functional, in-place and `out=` forms PyTorch
// dispatches separately; broadcasting and strides are the op library's.
#include <ATen/ExpandUtils.h>
#include <ATen/native/TypeProperties.h>
#include <ATen/ops/result_type.h>
#include <torch/library.h>

#include "binary_kernels.h"
#include "kernel_util.h"
#include "unary_kernels.h"

namespace torch_backplane {
namespace {

BP_UNARY(exp, Exp, true)
BP_UNARY(expm1, Expm1, true)
BP_UNARY(log, Log, true)
BP_UNARY(log2, Log2, true)
BP_UNARY(log10, Log10, true)
BP_UNARY(log1p, Log1p, true)
BP_UNARY(sqrt, Sqrt, true)
BP_UNARY(rsqrt, Rsqrt, true)
BP_UNARY(erf, Erf, true)
BP_UNARY(erfinv, Erfinv, true)
BP_UNARY(sin, Sin, true)
BP_UNARY(cos, Cos, true)
BP_UNARY(tan, Tan, true)
BP_UNARY(asin, Asin, true)
BP_UNARY(acos, Acos, true)
BP_UNARY(atan, Atan, true)
BP_UNARY(sinh, Sinh, true)
BP_UNARY(cosh, Cosh, true)
BP_UNARY(asinh, Asinh, true)
BP_UNARY(acosh, Acosh, true)
BP_UNARY(atanh, Atanh, true)
BP_UNARY(reciprocal, Reciprocal, true)
BP_UNARY(neg, Neg, false)
BP_UNARY(abs, Abs, false)
BP_UNARY(floor, Floor, false)
BP_UNARY(ceil, Ceil, false)
BP_UNARY(sgn, Sgn, false)

at::Tensor logical_not_bool(const at::Tensor &s) {
  at::Tensor out = new_tensor(s, s.sizes(), at::kBool);
  run_unary("diopiLogicalNot", BP_DIOPI(diopiLogicalNot), out, s);
  return out;
}
at::Tensor &logical_not_inplace(at::Tensor &s) {
  return unary_("diopiLogicalNotInp", BP_DIOPI(diopiLogicalNotInp), s);
}
at::Tensor &logical_not_out(const at::Tensor &s, at::Tensor &out) {
  return unary_out("diopiLogicalNot", BP_DIOPI(diopiLogicalNot), s, out);
}

at::Tensor sign(const at::Tensor &s) {
  return unary("diopiSign", BP_DIOPI(diopiSign), s, false);
}
at::Tensor &sign_(at::Tensor &s) {
  run_unary("diopiSign", BP_DIOPI(diopiSign), s, s);
  return s;
}
at::Tensor &sign_out(const at::Tensor &s, at::Tensor &out) {
  return unary_out("diopiSign", BP_DIOPI(diopiSign), s, out);
}

at::Tensor bitwise_not(const at::Tensor &s) {
  return unary("diopiBitwiseNot", BP_DIOPI(diopiBitwiseNot), s, false);
}
at::Tensor &bitwise_not_(at::Tensor &s) {
  return unary_("diopiBitwiseNotInp", BP_DIOPI(diopiBitwiseNotInp), s);
}

at::Tensor isnan(const at::Tensor &s) {
  at::Tensor out = new_tensor(s, s.sizes(), at::kBool);
  run_unary("diopiIsNan", BP_DIOPI(diopiIsNan), out, s);
  return out;
}

// NAME.Tensor/.Scalar/_.Tensor/_.Scalar/.Tensor_out/.Scalar_out over
// diopiDIOPI and diopiDIOPIScalar; TYPE: the functional forms' dtype (in
// place keeps self's).
#define BP_BINARY_FAMILY(NAME, DIOPI, TYPE)                                    \
  const BinaryOp NAME##_op = {"diopi" #DIOPI, BP_DIOPI_LATER(diopi##DIOPI),    \
                              "diopi" #DIOPI "Scalar",                         \
                              BP_DIOPI_LATER(diopi##DIOPI##Scalar)};           \
  at::Tensor NAME##_tensor(const at::Tensor &a, const at::Tensor &b) {         \
    return binary(NAME##_op, a, b, TYPE);                                      \
  }                                                                            \
  at::Tensor NAME##_scalar(const at::Tensor &a, const c10::Scalar &b) {        \
    return binary(NAME##_op, a, scalar_tensor(b), TYPE);                       \
  }                                                                            \
  at::Tensor &NAME##_tensor_(at::Tensor &a, const at::Tensor &b) {             \
    return binary_(NAME##_op, a, b);                                           \
  }                                                                            \
  at::Tensor &NAME##_scalar_(at::Tensor &a, const c10::Scalar &b) {            \
    return binary_(NAME##_op, a, scalar_tensor(b));                            \
  }                                                                            \
  at::Tensor &NAME##_tensor_out(const at::Tensor &a, const at::Tensor &b,      \
                                at::Tensor &out) {                             \
    return binary_out(NAME##_op, a, b, out);                                   \
  }                                                                            \
  at::Tensor &NAME##_scalar_out(const at::Tensor &a, const c10::Scalar &b,     \
                                at::Tensor &out) {                             \
    return binary_out(NAME##_op, a, scalar_tensor(b), out);                    \
  }
#define BP_BINARY_FAMILY_REGISTER(m, NAME)                                     \
  m.impl(#NAME ".Tensor", NAME##_tensor);                                      \
  m.impl(#NAME ".Scalar", NAME##_scalar);                                      \
  m.impl(#NAME "_.Tensor", NAME##_tensor_);                                    \
  m.impl(#NAME "_.Scalar", NAME##_scalar_);                                    \
  m.impl(#NAME ".Tensor_out", NAME##_tensor_out);                              \
  m.impl(#NAME ".Scalar_out", NAME##_scalar_out)

BP_BINARY_FAMILY(eq, Eq, at::kBool)
BP_BINARY_FAMILY(ne, Ne, at::kBool)
BP_BINARY_FAMILY(lt, Lt, at::kBool)
BP_BINARY_FAMILY(le, Le, at::kBool)
BP_BINARY_FAMILY(gt, Gt, at::kBool)
BP_BINARY_FAMILY(ge, Ge, at::kBool)
BP_BINARY_FAMILY(bitwise_and, BitwiseAnd, at::result_type(a, b))
BP_BINARY_FAMILY(bitwise_or, BitwiseOr, at::result_type(a, b))
BP_BINARY_FAMILY(bitwise_xor, BitwiseXor, at::result_type(a, b))
BP_BINARY_FAMILY(copysign, Copysign, floating_type(at::result_type(a, b)))

const BinaryOp logical_and_op = {
    "diopiLogicalAnd", BP_DIOPI_LATER(diopiLogicalAnd), nullptr, nullptr};
const BinaryOp logical_or_op = {
    "diopiLogicalOr", BP_DIOPI_LATER(diopiLogicalOr), nullptr, nullptr};
const BinaryOp maximum_op = {"diopiMaximum", BP_DIOPI_LATER(diopiMaximum),
                             nullptr, nullptr};
const BinaryOp minimum_op = {"diopiMinimum", BP_DIOPI_LATER(diopiMinimum),
                             nullptr, nullptr};
const BinaryOp fmax_op = {"diopiFmax", BP_DIOPI_LATER(diopiFmax), nullptr,
                          nullptr};
const BinaryOp fmin_op = {"diopiFmin", BP_DIOPI_LATER(diopiFmin), nullptr,
                          nullptr};
const BinaryOp pow_op = {"diopiPowTensor", BP_DIOPI_LATER(diopiPowTensor),
                         "diopiPow", BP_DIOPI_LATER(diopiPow)};
const BinaryOp remainder_op = {
    "diopiRemainderTensor", BP_DIOPI_LATER(diopiRemainderTensor),
    "diopiRemainderScalar", BP_DIOPI_LATER(diopiRemainderScalar)};

at::Tensor logical_and(const at::Tensor &a, const at::Tensor &b) {
  return binary(logical_and_op, a, b, at::kBool);
}
at::Tensor &logical_and_out(const at::Tensor &a, const at::Tensor &b,
                            at::Tensor &out) {
  return binary_out(logical_and_op, a, b, out);
}
at::Tensor &logical_and_(at::Tensor &a, const at::Tensor &b) {
  return binary_(logical_and_op, a, b);
}
at::Tensor logical_or(const at::Tensor &a, const at::Tensor &b) {
  return binary(logical_or_op, a, b, at::kBool);
}
at::Tensor &logical_or_out(const at::Tensor &a, const at::Tensor &b,
                           at::Tensor &out) {
  return binary_out(logical_or_op, a, b, out);
}
at::Tensor &logical_or_(at::Tensor &a, const at::Tensor &b) {
  return binary_(logical_or_op, a, b);
}

at::Tensor maximum(const at::Tensor &a, const at::Tensor &b) {
  return binary(maximum_op, a, b, at::result_type(a, b));
}
at::Tensor &maximum_out(const at::Tensor &a, const at::Tensor &b,
                        at::Tensor &out) {
  return binary_out(maximum_op, a, b, out);
}
at::Tensor minimum(const at::Tensor &a, const at::Tensor &b) {
  return binary(minimum_op, a, b, at::result_type(a, b));
}
at::Tensor &minimum_out(const at::Tensor &a, const at::Tensor &b,
                        at::Tensor &out) {
  return binary_out(minimum_op, a, b, out);
}

at::Tensor fmax(const at::Tensor &a, const at::Tensor &b) {
  return binary(fmax_op, a, b, at::result_type(a, b));
}
at::Tensor &fmax_out(const at::Tensor &a, const at::Tensor &b,
                     at::Tensor &out) {
  return binary_out(fmax_op, a, b, out);
}
at::Tensor fmin(const at::Tensor &a, const at::Tensor &b) {
  return binary(fmin_op, a, b, at::result_type(a, b));
}
at::Tensor &fmin_out(const at::Tensor &a, const at::Tensor &b,
                     at::Tensor &out) {
  return binary_out(fmin_op, a, b, out);
}

at::Tensor remainder_tensor(const at::Tensor &a, const at::Tensor &b) {
  return binary(remainder_op, a, b, at::result_type(a, b));
}
at::Tensor remainder_scalar(const at::Tensor &a, const c10::Scalar &b) {
  return binary(remainder_op, a, scalar_tensor(b), at::result_type(a, b));
}

at::Tensor pow_tensor(const at::Tensor &a, const at::Tensor &b) {
  return binary(pow_op, a, b, at::result_type(a, b));
}
at::Tensor pow_tensor_scalar(const at::Tensor &a, const c10::Scalar &b) {
  return binary(pow_op, a, scalar_tensor(b), at::result_type(a, b));
}
at::Tensor &pow_tensor_(at::Tensor &a, const at::Tensor &b) {
  return binary_(pow_op, a, b);
}
at::Tensor &pow_scalar_(at::Tensor &a, const c10::Scalar &b) {
  return binary_(pow_op, a, scalar_tensor(b));
}
at::Tensor &pow_tensor_out(const at::Tensor &a, const at::Tensor &b,
                           at::Tensor &out) {
  return binary_out(pow_op, a, b, out);
}
at::Tensor &pow_tensor_scalar_out(const at::Tensor &a, const c10::Scalar &b,
                                  at::Tensor &out) {
  return binary_out(pow_op, a, scalar_tensor(b), out);
}
at::Tensor pow_scalar_tensor(const c10::Scalar &a, const at::Tensor &b) {
  at::Tensor out = new_tensor(b, b.sizes(), at::result_type(a, b));
  if (out.numel() == 0)
    return out;
  OpContext ctx(out);
  DiopiTensor o(out), e(b);
  diopiScalar_t base = diopi_scalar(a);
  BP_CALL(diopiPowScalar, ctx, o, &base, e);
  return out;
}

// ---- where, addcmul/addcdiv, lerp ---------------------------------------

at::Tensor where(const at::Tensor &condition, const at::Tensor &self,
                 const at::Tensor &other) {
  const at::Tensor &on = !self.device().is_cpu()    ? self
                         : !other.device().is_cpu() ? other
                                                    : condition;
  auto shape = at::infer_size(at::infer_size(condition.sizes(), self.sizes()),
                              other.sizes());
  at::Tensor out = new_tensor(on, shape, at::result_type(self, other));
  if (out.numel() == 0)
    return out;
  at::Tensor c = on_device(condition, out.device());
  at::Tensor x = on_device(self, out.device());
  at::Tensor y = on_device(other, out.device());
  OpContext ctx(out);
  DiopiTensor o(out), ct(c), xt(x), yt(y);
  BP_CALL(diopiWhere, ctx, o, ct, xt, yt);
  return out;
}

enum class Addc { kMul, kDiv };

void run_addc(Addc kind, const at::Tensor &out, const at::Tensor &self,
              const at::Tensor &t1, const at::Tensor &t2,
              const c10::Scalar &value) {
  if (out.numel() == 0)
    return;
  at::Tensor x = on_device(self, out.device());
  at::Tensor a = on_device(t1, out.device()), b = on_device(t2, out.device());
  OpContext ctx(out);
  DiopiTensor o(out), xt(x), at_(a), bt(b);
  diopiScalar_t v = diopi_scalar(value);
  bool in_place = out.is_same(self);
  if (kind == Addc::kMul) {
    if (in_place)
      return BP_CALL(diopiAddcmulInp, ctx, o, at_, bt, &v);
    return BP_CALL(diopiAddcmul, ctx, o, xt, at_, bt, &v);
  }
  if (in_place)
    return BP_CALL(diopiAddcdivInp, ctx, o, at_, bt, &v);
  BP_CALL(diopiAddcdiv, ctx, o, xt, at_, bt, &v);
}

std::vector<int64_t> addc_shape(const at::Tensor &self, const at::Tensor &t1,
                                const at::Tensor &t2) {
  return at::infer_size(at::infer_size(self.sizes(), t1.sizes()), t2.sizes());
}

at::Tensor addc(Addc kind, const at::Tensor &self, const at::Tensor &t1,
                const at::Tensor &t2, const c10::Scalar &value) {
  at::ScalarType type =
      c10::promoteTypes(at::result_type(self, t1), at::result_type(self, t2));
  if (kind == Addc::kDiv)
    type = floating_type(type);
  at::Tensor out = new_tensor(self, addc_shape(self, t1, t2), type);
  run_addc(kind, out, self, t1, t2, value);
  return out;
}

at::Tensor addcmul(const at::Tensor &s, const at::Tensor &t1,
                   const at::Tensor &t2, const c10::Scalar &v) {
  return addc(Addc::kMul, s, t1, t2, v);
}
at::Tensor &addcmul_(at::Tensor &s, const at::Tensor &t1, const at::Tensor &t2,
                     const c10::Scalar &v) {
  run_addc(Addc::kMul, s, s, t1, t2, v);
  return s;
}
at::Tensor &addcmul_out(const at::Tensor &s, const at::Tensor &t1,
                        const at::Tensor &t2, const c10::Scalar &v,
                        at::Tensor &out) {
  run_addc(Addc::kMul, shaped_out(out, addc_shape(s, t1, t2)), s, t1, t2, v);
  return out;
}
at::Tensor addcdiv(const at::Tensor &s, const at::Tensor &t1,
                   const at::Tensor &t2, const c10::Scalar &v) {
  return addc(Addc::kDiv, s, t1, t2, v);
}
at::Tensor &addcdiv_(at::Tensor &s, const at::Tensor &t1, const at::Tensor &t2,
                     const c10::Scalar &v) {
  run_addc(Addc::kDiv, s, s, t1, t2, v);
  return s;
}
at::Tensor &addcdiv_out(const at::Tensor &s, const at::Tensor &t1,
                        const at::Tensor &t2, const c10::Scalar &v,
                        at::Tensor &out) {
  run_addc(Addc::kDiv, shaped_out(out, addc_shape(s, t1, t2)), s, t1, t2, v);
  return out;
}

// out = self + weight * (end - self); weight a scalar or a tensor.
void run_lerp(const at::Tensor &out, const at::Tensor &self,
              const at::Tensor &end, const at::Tensor *weight,
              const c10::Scalar &scalar_weight) {
  if (out.numel() == 0)
    return;
  at::Tensor e = on_device(end, out.device());
  OpContext ctx(out);
  DiopiTensor o(out), x(self), et(e);
  if (weight == nullptr || is_host_scalar(*weight)) {
    diopiScalar_t w = diopi_scalar(weight ? weight->item() : scalar_weight);
    return BP_CALL(diopiLerpScalar, ctx, o, x, et, &w);
  }
  at::Tensor wd = on_device(*weight, out.device());
  DiopiTensor wt(wd);
  BP_CALL(diopiLerpTensor, ctx, o, x, et, wt);
}

at::Tensor lerp_scalar(const at::Tensor &s, const at::Tensor &end,
                       const c10::Scalar &w) {
  at::Tensor out =
      new_tensor(s, at::infer_size(s.sizes(), end.sizes()), s.scalar_type());
  run_lerp(out, s, end, nullptr, w);
  return out;
}
at::Tensor &lerp_scalar_(at::Tensor &s, const at::Tensor &end,
                         const c10::Scalar &w) {
  run_lerp(s, s, end, nullptr, w);
  return s;
}
at::Tensor lerp_tensor(const at::Tensor &s, const at::Tensor &end,
                       const at::Tensor &w) {
  at::Tensor out = new_tensor(
      s, at::infer_size(at::infer_size(s.sizes(), end.sizes()), w.sizes()),
      s.scalar_type());
  run_lerp(out, s, end, &w, 0);
  return out;
}
at::Tensor &lerp_tensor_(at::Tensor &s, const at::Tensor &end,
                         const at::Tensor &w) {
  run_lerp(s, s, end, &w, 0);
  return s;
}

// ---- clamp --------------------------------------------------------------

void run_clamp(const at::Tensor &out, const at::Tensor &self,
               const c10::optional<c10::Scalar> &min,
               const c10::optional<c10::Scalar> &max) {
  TORCH_CHECK(min.has_value() || max.has_value(),
              "torch.clamp: At least one of 'min' or 'max' must not be None");
  if (out.numel() == 0)
    return;
  OpContext ctx(out);
  DiopiTensor o(out), x(self);
  diopiScalar_t lo = min ? diopi_scalar(*min) : diopiScalar_t{};
  diopiScalar_t hi = max ? diopi_scalar(*max) : diopiScalar_t{};
  BP_CALL(diopiClampScalar, ctx, o, x, min ? &lo : nullptr,
          max ? &hi : nullptr);
}

// PyTorch's clamp dtype, the promoted one: a bool result has no clamp.
at::ScalarType clamp_type(at::ScalarType type) {
  TORCH_CHECK(type != at::kBool, "\"clamp_cpu\" not implemented for 'Bool'");
  return type;
}
// With number bounds a floating input keeps its dtype; any other is
// promoted with the numbers.
at::ScalarType clamp_type(const at::Tensor &s,
                          const c10::optional<c10::Scalar> &min,
                          const c10::optional<c10::Scalar> &max) {
  if (c10::isFloatingType(s.scalar_type()))
    return s.scalar_type();
  at::native::ResultTypeState state = {};
  state = at::native::update_result_type_state(s, state);
  if (min)
    state = at::native::update_result_type_state(*min, state);
  if (max)
    state = at::native::update_result_type_state(*max, state);
  return clamp_type(at::native::result_type(state));
}

at::Tensor clamp_scalar(const at::Tensor &s,
                        const c10::optional<c10::Scalar> &min,
                        const c10::optional<c10::Scalar> &max) {
  at::Tensor out = new_tensor(s, s.sizes(), clamp_type(s, min, max));
  run_clamp(out, s, min, max);
  return out;
}
at::Tensor &clamp_scalar_(at::Tensor &s, const c10::optional<c10::Scalar> &min,
                          const c10::optional<c10::Scalar> &max) {
  at::ScalarType type = clamp_type(s, min, max);
  TORCH_CHECK(type == s.scalar_type(), "result type ", type,
              " can't be cast to the desired output type ", s.scalar_type());
  run_clamp(s, s, min, max);
  return s;
}
at::Tensor &clamp_out(const at::Tensor &s,
                      const c10::optional<c10::Scalar> &min,
                      const c10::optional<c10::Scalar> &max, at::Tensor &out) {
  run_clamp(shaped_out(out, s.sizes()), s, min, max);
  return out;
}
at::Tensor clamp_min(const at::Tensor &s, const c10::Scalar &min) {
  return clamp_scalar(s, min, c10::nullopt);
}
at::Tensor &clamp_min_(at::Tensor &s, const c10::Scalar &min) {
  return clamp_scalar_(s, min, c10::nullopt);
}
at::Tensor clamp_max(const at::Tensor &s, const c10::Scalar &max) {
  return clamp_scalar(s, c10::nullopt, max);
}
at::Tensor &clamp_max_(at::Tensor &s, const c10::Scalar &max) {
  return clamp_scalar_(s, c10::nullopt, max);
}

// Tensor bounds (either may be absent; a CPU one is copied over), broadcast
// with self: the result's shape.
struct ClampBounds {
  at::Tensor lo, hi;
  std::vector<int64_t> shape;
};
ClampBounds clamp_bounds(const at::Tensor &s,
                         const c10::optional<at::Tensor> &min,
                         const c10::optional<at::Tensor> &max) {
  TORCH_CHECK(min.has_value() || max.has_value(),
              "torch.clamp: At least one of 'min' or 'max' must not be None");
  ClampBounds b;
  b.lo = min ? on_device(*min, s.device()) : at::Tensor();
  b.hi = max ? on_device(*max, s.device()) : at::Tensor();
  b.shape.assign(s.sizes().begin(), s.sizes().end());
  if (b.lo.defined())
    b.shape = at::infer_size(b.shape, b.lo.sizes());
  if (b.hi.defined())
    b.shape = at::infer_size(b.shape, b.hi.sizes());
  return b;
}
void run_clamp_tensor(const at::Tensor &out, const at::Tensor &s,
                      const ClampBounds &b) {
  if (out.numel() == 0)
    return;
  OpContext ctx(out);
  DiopiTensor o(out), x(s), lt(b.lo), ht(b.hi);
  BP_CALL(diopiClamp, ctx, o, x, lt, ht);
}

at::Tensor clamp_tensor(const at::Tensor &s,
                        const c10::optional<at::Tensor> &min,
                        const c10::optional<at::Tensor> &max) {
  ClampBounds b = clamp_bounds(s, min, max);
  at::native::ResultTypeState state = {};
  for (const at::Tensor *t :
       std::initializer_list<const at::Tensor *>{&s, &b.lo, &b.hi})
    if (t->defined())
      state = at::native::update_result_type_state(*t, state);
  at::Tensor out =
      new_tensor(s, b.shape, clamp_type(at::native::result_type(state)));
  run_clamp_tensor(out, s, b);
  return out;
}
// In place and out= keep the dtype they have, as PyTorch's casts.
at::Tensor &clamp_tensor_(at::Tensor &s, const c10::optional<at::Tensor> &min,
                          const c10::optional<at::Tensor> &max) {
  ClampBounds b = clamp_bounds(s, min, max);
  TORCH_CHECK(s.sizes().equals(b.shape), "output with shape ", s.sizes(),
              " doesn't match the broadcast shape ", b.shape);
  run_clamp_tensor(s, s, b);
  return s;
}
at::Tensor &clamp_tensor_out(const at::Tensor &s,
                             const c10::optional<at::Tensor> &min,
                             const c10::optional<at::Tensor> &max,
                             at::Tensor &out) {
  ClampBounds b = clamp_bounds(s, min, max);
  run_clamp_tensor(shaped_out(out, b.shape), s, b);
  return out;
}

// ---- Activations --------------------------------------------------------

at::Tensor leaky_relu(const at::Tensor &s, const c10::Scalar &slope) {
  return unary("diopiLeakyRelu", BP_DIOPI(diopiLeakyRelu), s, false, slope);
}
at::Tensor &leaky_relu_(at::Tensor &s, const c10::Scalar &slope) {
  return unary_("diopiLeakyReluInp", BP_DIOPI(diopiLeakyReluInp), s, slope);
}
at::Tensor leaky_relu_backward(const at::Tensor &grad_output,
                               const at::Tensor &self, const c10::Scalar &slope,
                               bool self_is_result) {
  return unary_backward("diopiLeakyReluBackward",
                        BP_DIOPI(diopiLeakyReluBackward), grad_output, self,
                        slope, self_is_result);
}

at::Tensor silu(const at::Tensor &s) {
  return unary("diopiSilu", BP_DIOPI(diopiSilu), s, false);
}
at::Tensor &silu_(at::Tensor &s) {
  return unary_("diopiSiluInp", BP_DIOPI(diopiSiluInp), s);
}
at::Tensor &silu_out(const at::Tensor &s, at::Tensor &out) {
  return unary_out("diopiSilu", BP_DIOPI(diopiSilu), s, out);
}
at::Tensor silu_backward(const at::Tensor &grad_output,
                         const at::Tensor &self) {
  return unary_backward("diopiSiluBackward", BP_DIOPI(diopiSiluBackward),
                        grad_output, self);
}
at::Tensor hardswish(const at::Tensor &s) {
  return unary("diopiHardswish", BP_DIOPI(diopiHardswish), s, false);
}
at::Tensor &hardswish_(at::Tensor &s) {
  return unary_("diopiHardswishInp", BP_DIOPI(diopiHardswishInp), s);
}
at::Tensor hardswish_backward(const at::Tensor &grad_output,
                              const at::Tensor &self) {
  return unary_backward("diopiHardswishBackward",
                        BP_DIOPI(diopiHardswishBackward), grad_output, self);
}

at::Tensor hardtanh(const at::Tensor &s, const c10::Scalar &min,
                    const c10::Scalar &max) {
  return unary("diopiHardtanh", BP_DIOPI(diopiHardtanh), s, false, min, max);
}
at::Tensor &hardtanh_(at::Tensor &s, const c10::Scalar &min,
                      const c10::Scalar &max) {
  return unary_("diopiHardtanhInp", BP_DIOPI(diopiHardtanhInp), s, min, max);
}
at::Tensor hardtanh_backward(const at::Tensor &grad_output,
                             const at::Tensor &self, const c10::Scalar &min,
                             const c10::Scalar &max) {
  return unary_backward("diopiHardtanhBackward",
                        BP_DIOPI(diopiHardtanhBackward), grad_output, self, min,
                        max);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  BP_UNARY_REGISTER(m, exp);
  BP_UNARY_REGISTER(m, expm1);
  BP_UNARY_REGISTER(m, log);
  BP_UNARY_REGISTER(m, log2);
  BP_UNARY_REGISTER(m, log10);
  BP_UNARY_REGISTER(m, log1p);
  BP_UNARY_REGISTER(m, sqrt);
  BP_UNARY_REGISTER(m, rsqrt);
  BP_UNARY_REGISTER(m, erf);
  BP_UNARY_REGISTER(m, erfinv);
  BP_UNARY_REGISTER(m, sin);
  BP_UNARY_REGISTER(m, cos);
  BP_UNARY_REGISTER(m, tan);
  BP_UNARY_REGISTER(m, asin);
  BP_UNARY_REGISTER(m, acos);
  BP_UNARY_REGISTER(m, atan);
  BP_UNARY_REGISTER(m, sinh);
  BP_UNARY_REGISTER(m, cosh);
  BP_UNARY_REGISTER(m, asinh);
  BP_UNARY_REGISTER(m, acosh);
  BP_UNARY_REGISTER(m, atanh);
  BP_UNARY_REGISTER(m, reciprocal);
  BP_UNARY_REGISTER(m, neg);
  BP_UNARY_REGISTER(m, abs);
  BP_UNARY_REGISTER(m, floor);
  BP_UNARY_REGISTER(m, ceil);
  BP_UNARY_REGISTER(m, sgn);
  m.impl("logical_not", logical_not_bool);
  m.impl("logical_not_", logical_not_inplace);
  m.impl("logical_not.out", logical_not_out);
  m.impl("sign", sign);
  m.impl("sign_", sign_);
  m.impl("sign.out", sign_out);
  m.impl("bitwise_not", bitwise_not);
  m.impl("bitwise_not_", bitwise_not_);
  m.impl("isnan", isnan);
  BP_BINARY_FAMILY_REGISTER(m, eq);
  BP_BINARY_FAMILY_REGISTER(m, ne);
  BP_BINARY_FAMILY_REGISTER(m, lt);
  BP_BINARY_FAMILY_REGISTER(m, le);
  BP_BINARY_FAMILY_REGISTER(m, gt);
  BP_BINARY_FAMILY_REGISTER(m, ge);
  BP_BINARY_FAMILY_REGISTER(m, bitwise_and);
  BP_BINARY_FAMILY_REGISTER(m, bitwise_or);
  BP_BINARY_FAMILY_REGISTER(m, bitwise_xor);
  m.impl("copysign.Tensor", copysign_tensor);
  m.impl("copysign.Scalar", copysign_scalar);
  m.impl("copysign_.Tensor", copysign_tensor_);
  m.impl("copysign_.Scalar", copysign_scalar_);
  m.impl("copysign.out", copysign_tensor_out);
  m.impl("copysign.Scalar_out", copysign_scalar_out);
  m.impl("fmax", fmax);
  m.impl("fmax.out", fmax_out);
  m.impl("fmin", fmin);
  m.impl("fmin.out", fmin_out);
  m.impl("logical_and", logical_and);
  m.impl("logical_and_", logical_and_);
  m.impl("logical_and.out", logical_and_out);
  m.impl("logical_or", logical_or);
  m.impl("logical_or_", logical_or_);
  m.impl("logical_or.out", logical_or_out);
  m.impl("maximum", maximum);
  m.impl("maximum.out", maximum_out);
  m.impl("minimum", minimum);
  m.impl("minimum.out", minimum_out);
  m.impl("remainder.Tensor", remainder_tensor);
  m.impl("remainder.Scalar", remainder_scalar);
  m.impl("pow.Tensor_Tensor", pow_tensor);
  m.impl("pow.Tensor_Scalar", pow_tensor_scalar);
  m.impl("pow.Scalar", pow_scalar_tensor);
  m.impl("pow_.Tensor", pow_tensor_);
  m.impl("pow_.Scalar", pow_scalar_);
  m.impl("pow.Tensor_Tensor_out", pow_tensor_out);
  m.impl("pow.Tensor_Scalar_out", pow_tensor_scalar_out);
  m.impl("where.self", where);
  m.impl("addcmul", addcmul);
  m.impl("addcmul_", addcmul_);
  m.impl("addcmul.out", addcmul_out);
  m.impl("addcdiv", addcdiv);
  m.impl("addcdiv_", addcdiv_);
  m.impl("addcdiv.out", addcdiv_out);
  m.impl("lerp.Scalar", lerp_scalar);
  m.impl("lerp_.Scalar", lerp_scalar_);
  m.impl("lerp.Tensor", lerp_tensor);
  m.impl("lerp_.Tensor", lerp_tensor_);
  m.impl("clamp", clamp_scalar);
  m.impl("clamp_", clamp_scalar_);
  m.impl("clamp.out", clamp_out);
  m.impl("clamp.Tensor", clamp_tensor);
  m.impl("clamp_.Tensor", clamp_tensor_);
  m.impl("clamp.Tensor_out", clamp_tensor_out);
  m.impl("clamp_min", clamp_min);
  m.impl("clamp_min_", clamp_min_);
  m.impl("clamp_max", clamp_max);
  m.impl("clamp_max_", clamp_max_);
  m.impl("leaky_relu", leaky_relu);
  m.impl("leaky_relu_", leaky_relu_);
  m.impl("leaky_relu_backward", leaky_relu_backward);
  m.impl("silu", silu);
  m.impl("silu_", silu_);
  m.impl("silu.out", silu_out);
  m.impl("silu_backward", silu_backward);
  m.impl("hardswish", hardswish);
  m.impl("hardswish_", hardswish_);
  m.impl("hardswish_backward", hardswish_backward);
  m.impl("hardtanh", hardtanh);
  m.impl("hardtanh_", hardtanh_);
  m.impl("hardtanh_backward", hardtanh_backward);
}

} // namespace torch_backplane
