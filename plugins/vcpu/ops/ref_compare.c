/* Comparisons eq, ne, lt, le, gt, ge (tensor or scalar other, in place or
 * not) and logical and, or, not: results 1 or 0 in out's dtype (bool as a
 * rule), NaN unequal to everything; and equal (one host bool: same shape
 * and values, so it waits for the stream). */
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"
#include "ref_settle.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

typedef enum compare { EQ, NE, LT, LE, GT, GE, AND, OR } compare_t;

/* Returns comparison `kind` of a and b: one switch for the double and the
 * integer forms. */
#define RETURN_COMPARED(kind, a, b)                                            \
  switch (kind) {                                                              \
  case EQ:                                                                     \
    return (a) == (b);                                                         \
  case NE:                                                                     \
    return (a) != (b);                                                         \
  case LT:                                                                     \
    return (a) < (b);                                                          \
  case LE:                                                                     \
    return (a) <= (b);                                                         \
  case GT:                                                                     \
    return (a) > (b);                                                          \
  case GE:                                                                     \
    return (a) >= (b);                                                         \
  case AND:                                                                    \
    return (a) != 0 && (b) != 0;                                               \
  case OR:                                                                     \
    return (a) != 0 || (b) != 0;                                               \
  }

static double compare(compare_t kind, double a, double b) {
  RETURN_COMPARED(kind, a, b)
  return 0;
}

/* params: [0] the comparison, [1] the scalar operand. */
static double tensor_fn(const double *in, const double *p) {
  return compare((compare_t)p[0], in[0], in[1]);
}
static double scalar_fn(const double *in, const double *p) {
  return compare((compare_t)p[0], in[0], p[1]);
}
/* The integer forms (exact beyond 2^53): int_params as params. */
static bool compare_int(compare_t kind, int64_t a, int64_t b) {
  RETURN_COMPARED(kind, a, b)
  return false;
}
static int64_t tensor_int(const int64_t *in, const int64_t *p) {
  return compare_int((compare_t)p[0], in[0], in[1]);
}
static int64_t scalar_int(const int64_t *in, const int64_t *p) {
  return compare_int((compare_t)p[0], in[0], p[1]);
}
static double not_fn(const double *in, const double *p) {
  (void)p;
  return in[0] == 0;
}

/* The float32 loops (inputs float32 or narrower, converted exactly; the
 * scalar operand rounded to float as PyTorch compares a float tensor). */
#define COMPARE_LOOP(a, b)                                                     \
  switch (kind) {                                                              \
  case EQ:                                                                     \
    for (int64_t k = 0; k < n; k++)                                            \
      out[k] = (a) == (b);                                                     \
    return;                                                                    \
  case NE:                                                                     \
    for (int64_t k = 0; k < n; k++)                                            \
      out[k] = (a) != (b);                                                     \
    return;                                                                    \
  case LT:                                                                     \
    for (int64_t k = 0; k < n; k++)                                            \
      out[k] = (a) < (b);                                                      \
    return;                                                                    \
  case LE:                                                                     \
    for (int64_t k = 0; k < n; k++)                                            \
      out[k] = (a) <= (b);                                                     \
    return;                                                                    \
  case GT:                                                                     \
    for (int64_t k = 0; k < n; k++)                                            \
      out[k] = (a) > (b);                                                      \
    return;                                                                    \
  case GE:                                                                     \
    for (int64_t k = 0; k < n; k++)                                            \
      out[k] = (a) >= (b);                                                     \
    return;                                                                    \
  case AND:                                                                    \
    for (int64_t k = 0; k < n; k++)                                            \
      out[k] = ((a) != 0) & ((b) != 0); /* no branch */                        \
    return;                                                                    \
  case OR:                                                                     \
    for (int64_t k = 0; k < n; k++)                                            \
      out[k] = ((a) != 0) | ((b) != 0);                                        \
    return;                                                                    \
  }

REF_ISA_BODY void tensor_f32_body(float *out, const float *const *in, int64_t n,
                                  const double *p) {
  compare_t kind = (compare_t)p[0];
  const float *x = in[0], *y = in[1];
  COMPARE_LOOP(x[k], y[k])
}
REF_F32_EW(tensor_f32)
REF_ISA_BODY void scalar_f32_body(float *out, const float *const *in, int64_t n,
                                  const double *p) {
  compare_t kind = (compare_t)p[0];
  const float *x = in[0];
  float y = (float)p[1];
  COMPARE_LOOP(x[k], y)
}
REF_F32_EW(scalar_f32)
REF_ISA_BODY void not_f32_body(float *out, const float *const *in, int64_t n,
                               const double *p) {
  (void)p;
  const float *x = in[0];
  for (int64_t k = 0; k < n; k++)
    out[k] = x[k] == 0;
}
REF_F32_EW(not_f32)

/* Logical and, or, not on tensors of one integral or bool dtype. */
REF_ISA_BODY void logical_bits_body(void *out, const void *const *in, int64_t n,
                                    diopiDtype_t dtype, const double *p) {
  compare_t kind = (compare_t)p[0];
#define LOGICAL(type)                                                          \
  {                                                                            \
    type *o = out;                                                             \
    const type *a = in[0], *b = in[1];                                         \
    if (kind == AND)                                                           \
      for (int64_t k = 0; k < n; k++)                                          \
        o[k] = (a[k] != 0) & (b[k] != 0);                                      \
    else                                                                       \
      for (int64_t k = 0; k < n; k++)                                          \
        o[k] = (a[k] != 0) | (b[k] != 0);                                      \
  }
  REF_EW_BY_WIDTH(dtype, LOGICAL)
#undef LOGICAL
}
REF_EW_BITS(logical_bits)
REF_ISA_BODY void not_bits_body(void *out, const void *const *in, int64_t n,
                                diopiDtype_t dtype, const double *p) {
  (void)p;
#define NOT(type)                                                              \
  {                                                                            \
    const type *a = in[0];                                                     \
    for (int64_t k = 0; k < n; k++)                                            \
      ((type *)out)[k] = a[k] == 0;                                            \
  }
  REF_EW_BY_WIDTH(dtype, NOT)
#undef NOT
}
REF_EW_BITS(not_bits)

static diopiError_t tensors(CTX, const char *op, CT out, CT input, CT other,
                            compare_t kind) {
  CT in[2] = {input, other};
  static const char *const names[2] = {"input", "other"};
  ref_ew_t ew = {.nin = 2,
                 .fn = tensor_fn,
                 .f32 = tensor_f32,
                 .int_fn = tensor_int,
                 .bits = kind == AND || kind == OR ? logical_bits : NULL,
                 .params = {kind},
                 .int_params = {kind}};
  return ref_ew_call_with(ctx, op, &ew, out, in, names, REF_OUT_ANY);
}

static diopiError_t scalar(CTX, const char *op, CT out, CT input, S other,
                           compare_t kind) {
  if (!other)
    return ref_fail(op, "other: scalar is NULL");
  static const char *const names[1] = {"input"};
  ref_ew_t ew = {
      .nin = 1,
      .fn = scalar_fn,
      .f32 = scalar_f32,
      .int_fn = ref_scalar_is_integral(other) ? scalar_int : NULL,
      .params = {kind, ref_scalar_operand_for(other, input, 0)},
      .int_params = {kind, ref_scalar_int_operand_for(other, input, 0)}};
  return ref_ew_call_with(ctx, op, &ew, out, &input, names, REF_OUT_ANY);
}

/* diopiName, diopiNameInp, diopiNameScalar and diopiNameInpScalar. */
#define REF_EXPORT_COMPARE(Name, kind)                                         \
  REF_EXPORT diopiError_t diopi##Name(CTX, T out, CT input, CT other) {        \
    return tensors(ctx, "diopi" #Name, out, input, other, kind);               \
  }                                                                            \
  REF_EXPORT diopiError_t diopi##Name##Inp(CTX, T input, CT other) {           \
    return tensors(ctx, "diopi" #Name "Inp", input, input, other, kind);       \
  }                                                                            \
  REF_EXPORT diopiError_t diopi##Name##Scalar(CTX, T out, CT input, S other) { \
    return scalar(ctx, "diopi" #Name "Scalar", out, input, other, kind);       \
  }                                                                            \
  REF_EXPORT diopiError_t diopi##Name##InpScalar(CTX, T input, S other) {      \
    return scalar(ctx, "diopi" #Name "InpScalar", input, input, other, kind);  \
  }

REF_EXPORT_COMPARE(Eq, EQ)
REF_EXPORT_COMPARE(Ne, NE)
REF_EXPORT_COMPARE(Lt, LT)
REF_EXPORT_COMPARE(Le, LE)
REF_EXPORT_COMPARE(Gt, GT)
REF_EXPORT_COMPARE(Ge, GE)

REF_EXPORT diopiError_t diopiLogicalAnd(CTX, T out, CT input, CT other) {
  return tensors(ctx, "diopiLogicalAnd", out, input, other, AND);
}
REF_EXPORT diopiError_t diopiLogicalAndInp(CTX, T input, CT other) {
  return tensors(ctx, "diopiLogicalAndInp", input, input, other, AND);
}
REF_EXPORT diopiError_t diopiLogicalOr(CTX, T out, CT input, CT other) {
  return tensors(ctx, "diopiLogicalOr", out, input, other, OR);
}
REF_EXPORT diopiError_t diopiLogicalOrInp(CTX, T input, CT other) {
  return tensors(ctx, "diopiLogicalOrInp", input, input, other, OR);
}
REF_EXPORT diopiError_t diopiLogicalNot(CTX, T out, CT input) {
  static const char *const names[1] = {"input"};
  ref_ew_t ew = {.nin = 1, .fn = not_fn, .f32 = not_f32, .bits = not_bits};
  return ref_ew_call_with(ctx, "diopiLogicalNot", &ew, out, &input, names,
                          REF_OUT_ANY);
}
REF_EXPORT diopiError_t diopiLogicalNotInp(CTX, T input) {
  static const char *const names[1] = {"input"};
  CT in = input;
  ref_ew_t ew = {.nin = 1, .fn = not_fn, .f32 = not_f32, .bits = not_bits};
  return ref_ew_call_with(ctx, "diopiLogicalNotInp", &ew, input, &in, names,
                          REF_OUT_ANY);
}

REF_EXPORT diopiError_t diopiEqual(CTX, bool *out, CT input, CT other) {
  const char *op = "diopiEqual";
  ref_view_t a, b;
  if (!out)
    return ref_fail(op, "out: NULL");
  diopiError_t err = ref_view(ctx, op, "input", input, &a);
  if (!err)
    err = ref_view(ctx, op, "other", other, &b);
  if (err)
    return err;
  bool same = a.ndim == b.ndim;
  for (int d = 0; same && d < a.ndim; d++)
    same = a.shape[d] == b.shape[d];
  if (same && (err = ref_settle(ctx, op)))
    return err;
  bool exact = ref_is_integral(a.dtype) && ref_is_integral(b.dtype);
  for (int64_t i = 0; same && i < a.numel; i++)
    same = exact ? ref_get_int(&a, i) == ref_get_int(&b, i)
                 : ref_get(&a, i) == ref_get(&b, i);
  *out = same;
  return diopiSuccess;
}
