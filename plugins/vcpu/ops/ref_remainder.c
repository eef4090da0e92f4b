/* remainder (Python's modulo: the result takes the divisor's sign) of a
 * tensor by a tensor or a scalar, or of a scalar by a tensor. Integer
 * results are exact up to 2^53; an integer division by zero gives 0
 * rather than trapping. */
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

REF_EXPORT diopiError_t diopiRemainderTensor(CTX, T out, CT input, CT other) {
  CT in[2] = {input, other};
  static const char *const names[2] = {"input", "other"};
  return ref_ew_call(ctx, "diopiRemainderTensor", out, 2, in, names, tensors_fn,
                     NULL, NULL, REF_OUT_NUMERIC);
}
REF_EXPORT diopiError_t diopiRemainderScalar(CTX, T out, CT input, S other) {
  if (!other)
    return ref_fail("diopiRemainderScalar", "other: scalar is NULL");
  /* An integral out divides by other as its dtype holds it (-3 is 253 as
   * uint8), as PyTorch does. */
  double params[4] = {ref_scalar_for(other, out, 0)};
  static const char *const names[1] = {"input"};
  return ref_ew_call(ctx, "diopiRemainderScalar", out, 1, &input, names,
                     by_scalar_fn, NULL, params, REF_OUT_NUMERIC);
}
REF_EXPORT diopiError_t diopiRemainder(CTX, T out, S input, CT other) {
  if (!input)
    return ref_fail("diopiRemainder", "input: scalar is NULL");
  double params[4] = {ref_scalar_for(input, out, 0)};
  static const char *const names[1] = {"other"};
  return ref_ew_call(ctx, "diopiRemainder", out, 1, &other, names, of_scalar_fn,
                     NULL, params, REF_OUT_NUMERIC);
}
