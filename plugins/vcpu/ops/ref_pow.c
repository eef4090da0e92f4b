/* pow: tensor ** scalar, scalar ** tensor, tensor ** tensor (broadcast), in
 * place or not. Integer results are exact, wrapping as the dtype's own
 * multiplication does (PyTorch's powi); an integer base to a negative
 * integer scalar power is refused, as PyTorch does. */
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

/* a ** b in integers as PyTorch's powi computes them: by squaring, wrapping
 * (int64 arithmetic stored to a narrower dtype wraps as that dtype's would);
 * a negative exponent gives 1 for a base of 1, +-1 for -1, else 0. */
static int64_t powi(int64_t a, int64_t b) {
  if (b < 0)
    return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
  uint64_t result = 1, base = (uint64_t)a;
  for (uint64_t e = (uint64_t)b; e; e >>= 1, base *= base)
    if (e & 1)
      result *= base;
  return (int64_t)result;
}
static int64_t pow_tensors_int(const int64_t *in, const int64_t *p) {
  (void)p;
  return powi(in[0], in[1]);
}
/* p[0]: the scalar exponent, or the scalar base. */
static int64_t pow_exponent_int(const int64_t *in, const int64_t *p) {
  return powi(in[0], p[0]);
}
static int64_t pow_base_int(const int64_t *in, const int64_t *p) {
  return powi(p[0], in[0]);
}

/* out = pow over one or two inputs with the loops given; int_fn only for an
 * integral scalar (or none). */
static diopiError_t launch(CTX, const char *op, CT out, int nin, CT *in,
                           const char *const *names, ref_ew_fn_t fn,
                           ref_ew_f32_fn_t f32, ref_ew_int_fn_t int_fn,
                           S scalar) {
  ref_ew_t ew;
  memset(&ew, 0, sizeof ew);
  ew.nin = nin;
  ew.fn = fn;
  ew.f32 = f32;
  ew.params[0] = ref_scalar(scalar, 0);
  if (ref_scalar_is_integral(scalar)) {
    ew.int_fn = int_fn;
    ew.int_params[0] = ref_scalar_int(scalar, 0);
  }
  return ref_ew_call_with(ctx, op, &ew, out, in, names, REF_OUT_NUMERIC);
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
  static const char *const names[1] = {"input"};
  return launch(ctx, op, out, 1, &input, names, pow_exponent_fn,
                ref_pow_f32_exponent, pow_exponent_int, exponent);
}

static diopiError_t by_tensors(CTX, const char *op, CT out, CT input,
                               CT exponent) {
  CT in[2] = {input, exponent};
  static const char *const names[2] = {"input", "exponent"};
  return launch(ctx, op, out, 2, in, names, pow_tensors_fn, ref_pow_f32_tensors,
                pow_tensors_int, NULL);
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
  static const char *const names[1] = {"exponent"};
  return launch(ctx, op, out, 1, &exponent, names, pow_base_fn,
                ref_pow_f32_base, pow_base_int, input);
}
