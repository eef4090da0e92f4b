/* remainder (Python's modulo: the result takes the divisor's sign) of a
 * tensor by a tensor or a scalar, or of a scalar by a tensor. Integer
 * operands of an integral out compute in int64 (exact); an integer division
 * by zero gives 0 rather than trapping (PyTorch raises). */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_ew_call.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

static double remainder_of(double a, double b) {
  double r = fmod(a, b);
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}
static double tensors_fn(const double *in, const double *p) {
  (void)p;
  return remainder_of(in[0], in[1]);
}
/* p[0]: the scalar divisor. */
static double by_scalar_fn(const double *in, const double *p) {
  return remainder_of(in[0], p[0]);
}
/* p[0]: the scalar dividend. */
static double of_scalar_fn(const double *in, const double *p) {
  return remainder_of(p[0], in[0]);
}

static int64_t remainder_int(int64_t a, int64_t b) {
  if (b == 0 || b == -1) /* -1 divides all; INT64_MIN % -1 would trap */
    return 0;
  int64_t r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}
static int64_t tensors_int(const int64_t *in, const int64_t *p) {
  (void)p;
  return remainder_int(in[0], in[1]);
}
static int64_t by_scalar_int(const int64_t *in, const int64_t *p) {
  return remainder_int(in[0], p[0]);
}
static int64_t of_scalar_int(const int64_t *in, const int64_t *p) {
  return remainder_int(p[0], in[0]);
}

/* One tensor operand and a scalar one: value (and its int64 form, for an
 * integral scalar) as out's dtype holds it. */
static diopiError_t with_scalar(CTX, const char *op, CT out, CT tensor,
                                const char *name, S value, ref_ew_fn_t fn,
                                ref_ew_int_fn_t int_fn) {
  diopiDtype_t dtype = diopi_dtype_float64;
  if (out)
    diopiGetTensorDtype(out, &dtype);
  ref_ew_t ew = {.nin = 1, .fn = fn, .params = {ref_scalar_for(value, out, 0)}};
  if (ref_scalar_is_integral(value) && ref_is_integral(dtype)) {
    ew.int_fn = int_fn;
    ew.int_params[0] = ref_int_as(dtype, ref_scalar_int(value, 0));
  }
  const char *names[1] = {name};
  return ref_ew_call_with(ctx, op, &ew, out, &tensor, names, REF_OUT_NUMERIC);
}

REF_EXPORT diopiError_t diopiRemainderTensor(CTX, T out, CT input, CT other) {
  CT in[2] = {input, other};
  static const char *const names[2] = {"input", "other"};
  ref_ew_t ew = {.nin = 2, .fn = tensors_fn, .int_fn = tensors_int};
  return ref_ew_call_with(ctx, "diopiRemainderTensor", &ew, out, in, names,
                          REF_OUT_NUMERIC);
}
/* An integral out divides by other as its dtype holds it (-3 is 253 as
 * uint8), as PyTorch does. */
REF_EXPORT diopiError_t diopiRemainderScalar(CTX, T out, CT input, S other) {
  if (!other)
    return ref_fail("diopiRemainderScalar", "other: scalar is NULL");
  return with_scalar(ctx, "diopiRemainderScalar", out, input, "input", other,
                     by_scalar_fn, by_scalar_int);
}
REF_EXPORT diopiError_t diopiRemainder(CTX, T out, S input, CT other) {
  if (!input)
    return ref_fail("diopiRemainder", "input: scalar is NULL");
  return with_scalar(ctx, "diopiRemainder", out, other, "other", input,
                     of_scalar_fn, of_scalar_int);
}
