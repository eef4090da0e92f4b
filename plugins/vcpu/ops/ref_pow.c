/* pow: tensor ** scalar, scalar ** tensor, tensor ** tensor (broadcast), in
 * place or not. Integer results are exact up to 2^53; an integer base to a
 * negative integer power is refused, as PyTorch does. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_pow_f32.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

static double pow_tensors_fn(const double *in, const double *p) {
  (void)p;
  return pow(in[0], in[1]);
}
/* p[0]: the scalar exponent. */
static double pow_exponent_fn(const double *in, const double *p) {
  return pow(in[0], p[0]);
}
/* p[0]: the scalar base. */
static double pow_base_fn(const double *in, const double *p) {
  return pow(p[0], in[0]);
}

static diopiError_t by_exponent(CTX, const char *op, CT out, CT input,
                                S exponent) {
  if (!exponent)
    return ref_fail(op, "exponent: scalar is NULL");
  ref_view_t in;
  diopiError_t err = ref_view(ctx, op, "input", input, &in);
  if (err)
    return err;
  double e = ref_scalar(exponent, 0);
  if (!ref_is_floating(in.dtype) && !ref_is_floating(exponent->stype) && e < 0)
    return ref_fail(op, "exponent: an integer input to the negative power %g",
                    e);
  double params[4] = {e};
  static const char *const names[1] = {"input"};
  return ref_ew_call(ctx, op, out, 1, &input, names, pow_exponent_fn,
                     ref_pow_f32_exponent, params, REF_OUT_NUMERIC);
}

static diopiError_t by_tensors(CTX, const char *op, CT out, CT input,
                               CT exponent) {
  CT in[2] = {input, exponent};
  static const char *const names[2] = {"input", "exponent"};
  return ref_ew_call(ctx, op, out, 2, in, names, pow_tensors_fn,
                     ref_pow_f32_tensors, NULL, REF_OUT_NUMERIC);
}

REF_EXPORT diopiError_t diopiPow(CTX, T out, CT input, S exponent) {
  return by_exponent(ctx, "diopiPow", out, input, exponent);
}
REF_EXPORT diopiError_t diopiPowInp(CTX, T input, S exponent) {
  return by_exponent(ctx, "diopiPowInp", input, input, exponent);
}
REF_EXPORT diopiError_t diopiPowTensor(CTX, T out, CT input, CT exponent) {
  return by_tensors(ctx, "diopiPowTensor", out, input, exponent);
}
REF_EXPORT diopiError_t diopiPowInpTensor(CTX, T input, CT exponent) {
  return by_tensors(ctx, "diopiPowInpTensor", input, input, exponent);
}
REF_EXPORT diopiError_t diopiPowScalar(CTX, T out, S input, CT exponent) {
  const char *op = "diopiPowScalar";
  if (!input)
    return ref_fail(op, "input: scalar is NULL");
  double params[4] = {ref_scalar(input, 0)};
  static const char *const names[1] = {"exponent"};
  return ref_ew_call(ctx, op, out, 1, &exponent, names, pow_base_fn,
                     ref_pow_f32_base, params, REF_OUT_NUMERIC);
}
