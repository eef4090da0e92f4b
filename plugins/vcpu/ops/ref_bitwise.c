/* Bitwise and, or, xor (an extension), not of integer or bool tensors (tensor
 * or scalar other, in place or not), exact on 64-bit integers (the engine's
 * integer loop; tensors of one dtype bit for bit in place). On bool, not is
 * logical. */
#include <stdint.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_error.h"
#include "ref_ew_call.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

typedef enum bitwise { AND, OR, XOR } bitwise_t;

static int64_t apply(bitwise_t kind, int64_t a, int64_t b) {
  return kind == AND ? a & b : kind == OR ? a | b : a ^ b;
}
/* p[0] the operation, p[1] the scalar other. */
static int64_t tensor_int(const int64_t *in, const int64_t *p) {
  return apply((bitwise_t)p[0], in[0], in[1]);
}
static int64_t scalar_int(const int64_t *in, const int64_t *p) {
  return apply((bitwise_t)p[0], in[0], p[1]);
}
/* p[0]: 1 when out is bool (logical not). */
static int64_t not_int(const int64_t *in, const int64_t *p) {
  return p[0] != 0 ? in[0] == 0 : ~in[0];
}

/* The bits loops: tensors of one dtype, each element's bits in place. */
REF_ISA_BODY void tensor_bits_body(void *out, const void *const *in, int64_t n,
                                   diopiDtype_t dtype, const double *p) {
  bitwise_t kind = (bitwise_t)p[0];
#define AND_OR(type)                                                           \
  {                                                                            \
    type *o = out;                                                             \
    const type *a = in[0], *b = in[1];                                         \
    if (kind == AND)                                                           \
      for (int64_t k = 0; k < n; k++)                                          \
        o[k] = a[k] & b[k];                                                    \
    else if (kind == OR)                                                       \
      for (int64_t k = 0; k < n; k++)                                          \
        o[k] = a[k] | b[k];                                                    \
    else                                                                       \
      for (int64_t k = 0; k < n; k++)                                          \
        o[k] = a[k] ^ b[k];                                                    \
  }
  REF_EW_BY_WIDTH(dtype, AND_OR)
#undef AND_OR
}
REF_EW_BITS(tensor_bits)
REF_ISA_BODY void not_bits_body(void *out, const void *const *in, int64_t n,
                                diopiDtype_t dtype, const double *p) {
  (void)p;
  if (dtype == diopi_dtype_bool) {
    const uint8_t *a = in[0];
    for (int64_t k = 0; k < n; k++)
      ((uint8_t *)out)[k] = a[k] == 0;
    return;
  }
#define NOT(type)                                                              \
  {                                                                            \
    const type *a = in[0];                                                     \
    for (int64_t k = 0; k < n; k++)                                            \
      ((type *)out)[k] = (type)~a[k];                                          \
  }
  REF_EW_BY_WIDTH(dtype, NOT)
#undef NOT
}
REF_EW_BITS(not_bits)

/* Bitwise ops take integers and bools only. */
static diopiError_t expect_integral(diopiContextHandle_t ctx, const char *op,
                                    const char *arg, CT t) {
  ref_view_t v;
  diopiError_t err = ref_view(ctx, op, arg, t, &v);
  if (!err && ref_is_floating(v.dtype))
    err = ref_fail(op, "%s: expected an integer or bool dtype, got dtype %d",
                   arg, (int)v.dtype);
  return err;
}

static diopiError_t tensors(CTX, const char *op, CT out, CT input, CT other,
                            bitwise_t kind) {
  diopiError_t err = expect_integral(ctx, op, "input", input);
  if (!err)
    err = expect_integral(ctx, op, "other", other);
  if (!err)
    err = expect_integral(ctx, op, "out", out);
  if (err)
    return err;
  CT in[2] = {input, other};
  static const char *const names[2] = {"input", "other"};
  ref_ew_t ew = {.nin = 2,
                 .int_fn = tensor_int,
                 .bits = tensor_bits,
                 .params = {kind},
                 .int_params = {kind}};
  return ref_ew_call_with(ctx, op, &ew, out, in, names, REF_OUT_ANY);
}

static diopiError_t scalar(CTX, const char *op, CT out, CT input, S other,
                           bitwise_t kind) {
  if (!other)
    return ref_fail(op, "other: scalar is NULL");
  if (ref_is_floating(other->stype))
    return ref_fail(op, "other: expected an integer scalar, got dtype %d",
                    (int)other->stype);
  diopiError_t err = expect_integral(ctx, op, "input", input);
  if (!err)
    err = expect_integral(ctx, op, "out", out);
  if (err)
    return err;
  static const char *const names[1] = {"input"};
  ref_ew_t ew = {
      .nin = 1, .int_fn = scalar_int, .int_params = {kind, other->ival}};
  return ref_ew_call_with(ctx, op, &ew, out, &input, names, REF_OUT_ANY);
}

static diopiError_t not_op(CTX, const char *op, CT out, CT input) {
  ref_view_t o;
  diopiError_t err = expect_integral(ctx, op, "input", input);
  if (!err)
    err = expect_integral(ctx, op, "out", out);
  if (!err)
    err = ref_view(ctx, op, "out", out, &o);
  if (err)
    return err;
  static const char *const names[1] = {"input"};
  ref_ew_t ew = {.nin = 1,
                 .int_fn = not_int,
                 .bits = not_bits,
                 .int_params = {o.dtype == diopi_dtype_bool}};
  return ref_ew_call_with(ctx, op, &ew, out, &input, names, REF_OUT_ANY);
}

/* diopiBitwiseName, Inp, Scalar and InpScalar. */
#define REF_EXPORT_BITWISE(Name, kind)                                         \
  REF_EXPORT diopiError_t diopiBitwise##Name(CTX, T out, CT input, CT other) { \
    return tensors(ctx, "diopiBitwise" #Name, out, input, other, kind);        \
  }                                                                            \
  REF_EXPORT diopiError_t diopiBitwise##Name##Inp(CTX, T input, CT other) {    \
    return tensors(ctx, "diopiBitwise" #Name "Inp", input, input, other,       \
                   kind);                                                      \
  }                                                                            \
  REF_EXPORT diopiError_t diopiBitwise##Name##Scalar(CTX, T out, CT input,     \
                                                     S other) {                \
    return scalar(ctx, "diopiBitwise" #Name "Scalar", out, input, other,       \
                  kind);                                                       \
  }                                                                            \
  REF_EXPORT diopiError_t diopiBitwise##Name##InpScalar(CTX, T input,          \
                                                        S other) {             \
    return scalar(ctx, "diopiBitwise" #Name "InpScalar", input, input, other,  \
                  kind);                                                       \
  }

REF_EXPORT_BITWISE(And, AND)
REF_EXPORT_BITWISE(Or, OR)
REF_EXPORT_BITWISE(Xor, XOR)

REF_EXPORT diopiError_t diopiBitwiseNot(CTX, T out, CT input) {
  return not_op(ctx, "diopiBitwiseNot", out, input);
}
REF_EXPORT diopiError_t diopiBitwiseNotInp(CTX, T input) {
  return not_op(ctx, "diopiBitwiseNotInp", input, input);
}
