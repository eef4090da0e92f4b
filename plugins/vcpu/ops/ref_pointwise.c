/* Pointwise blends and picks of several tensors: lerp (tensor or scalar
 * weight), addcmul and addcdiv (+ in place), maximum and minimum (NaN
 * propagates), isnan. Inputs broadcast to out. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

/* PyTorch's lerp: from the nearer end, so that weight 1 gives end exactly. */
static double lerp(double start, double end, double weight) {
  return fabs(weight) < 0.5 ? start + weight * (end - start)
                            : end - (end - start) * (1 - weight);
}
static double lerp_tensor_fn(const double *in, const double *p) {
  (void)p;
  return lerp(in[0], in[1], in[2]);
}
static double lerp_scalar_fn(const double *in, const double *p) {
  return lerp(in[0], in[1], p[0]);
}

/* addcmul / addcdiv: in = {input, tensor1, tensor2}, p[0] value. */
static double addcmul_fn(const double *in, const double *p) {
  return in[0] + p[0] * in[1] * in[2];
}
REF_ISA_BODY void addcmul_f32_body(float *out, const float *const *in,
                                   int64_t n, const double *p) {
  const float *a = in[0], *b = in[1], *c = in[2];
  float v = (float)p[0];
  for (int64_t i = 0; i < n; i++)
    out[i] = a[i] + v * b[i] * c[i];
}
REF_F32_EW(addcmul_f32)
/* addcmul of integers into an integral out, wrapping: p[0] the value as
 * out's dtype holds it. */
static int64_t addcmul_int(const int64_t *in, const int64_t *p) {
  return (int64_t)((uint64_t)in[0] +
                   (uint64_t)p[0] * (uint64_t)in[1] * (uint64_t)in[2]);
}
static double addcdiv_fn(const double *in, const double *p) {
  return in[0] + p[0] * in[1] / in[2];
}
REF_ISA_BODY void addcdiv_f32_body(float *out, const float *const *in,
                                   int64_t n, const double *p) {
  const float *a = in[0], *b = in[1], *c = in[2];
  float v = (float)p[0];
  for (int64_t i = 0; i < n; i++)
    out[i] = a[i] + v * b[i] / c[i];
}
REF_F32_EW(addcdiv_f32)

/* p[0]: +1 maximum, -1 minimum. */
static double extremum_fn(const double *in, const double *p) {
  double a = in[0], b = in[1];
  if (isnan(a) || isnan(b))
    return NAN;
  return p[0] > 0 ? (a > b ? a : b) : (a < b ? a : b);
}
static int64_t extremum_int(const int64_t *in, const int64_t *p) {
  int64_t a = in[0], b = in[1];
  return p[0] > 0 ? (a > b ? a : b) : (a < b ? a : b);
}
REF_ISA_BODY void extremum_f32_body(float *out, const float *const *in,
                                    int64_t n, const double *p) {
  const float *a = in[0], *b = in[1];
  if (p[0] > 0)
    for (int64_t i = 0; i < n; i++)
      out[i] = a[i] != a[i]   ? a[i]
               : b[i] != b[i] ? b[i]
               : a[i] > b[i]  ? a[i]
                              : b[i];
  else
    for (int64_t i = 0; i < n; i++)
      out[i] = a[i] != a[i]   ? a[i]
               : b[i] != b[i] ? b[i]
               : a[i] < b[i]  ? a[i]
                              : b[i];
}
REF_F32_EW(extremum_f32)
REF_ISA_BODY void isnan_f32_body(float *out, const float *const *in, int64_t n,
                                 const double *p) {
  (void)p;
  const float *x = in[0];
  for (int64_t i = 0; i < n; i++)
    out[i] = x[i] != x[i];
}
REF_F32_EW(isnan_f32)
/* lerp in float, from the nearer end as lerp() does. */
REF_ISA_BODY void lerp_tensor_f32_body(float *out, const float *const *in,
                                       int64_t n, const double *p) {
  (void)p;
  const float *s = in[0], *e = in[1], *w = in[2];
  for (int64_t i = 0; i < n; i++) {
    float aw = w[i] < 0 ? -w[i] : w[i];
    out[i] = aw < 0.5f ? s[i] + w[i] * (e[i] - s[i])
                       : e[i] - (e[i] - s[i]) * (1.0f - w[i]);
  }
}
REF_F32_EW(lerp_tensor_f32)
REF_ISA_BODY void lerp_scalar_f32_body(float *out, const float *const *in,
                                       int64_t n, const double *p) {
  const float *s = in[0], *e = in[1];
  float w = (float)p[0];
  if ((w < 0 ? -w : w) < 0.5f)
    for (int64_t i = 0; i < n; i++)
      out[i] = s[i] + w * (e[i] - s[i]);
  else
    for (int64_t i = 0; i < n; i++)
      out[i] = e[i] - (e[i] - s[i]) * (1.0f - w);
}
REF_F32_EW(lerp_scalar_f32)
static double isnan_fn(const double *in, const double *p) {
  (void)p;
  return isnan(in[0]);
}

REF_EXPORT diopiError_t diopiLerpTensor(CTX, T out, CT input, CT end,
                                        CT weight) {
  CT in[3] = {input, end, weight};
  static const char *const names[3] = {"input", "end", "weight"};
  return ref_ew_call(ctx, "diopiLerpTensor", out, 3, in, names, lerp_tensor_fn,
                     lerp_tensor_f32, NULL, REF_OUT_FLOATING);
}
REF_EXPORT diopiError_t diopiLerpScalar(CTX, T out, CT input, CT end,
                                        S weight) {
  if (!weight)
    return ref_fail("diopiLerpScalar", "weight: scalar is NULL");
  CT in[2] = {input, end};
  static const char *const names[2] = {"input", "end"};
  double params[4] = {ref_scalar(weight, 0)};
  return ref_ew_call(ctx, "diopiLerpScalar", out, 2, in, names, lerp_scalar_fn,
                     lerp_scalar_f32, params, REF_OUT_FLOATING);
}

static diopiError_t addc(CTX, const char *op, CT out, CT input, CT tensor1,
                         CT tensor2, S value, bool divide) {
  ref_view_t t1, t2;
  diopiError_t err = ref_view(ctx, op, "tensor1", tensor1, &t1);
  if (!err)
    err = ref_view(ctx, op, "tensor2", tensor2, &t2);
  if (!err && divide && !ref_is_floating(t1.dtype) &&
      !ref_is_floating(t2.dtype))
    err = ref_fail(op,
                   "tensor1, tensor2: integer division is not supported "
                   "(dtypes %d and %d)",
                   (int)t1.dtype, (int)t2.dtype);
  if (err)
    return err;
  CT in[3] = {input, tensor1, tensor2};
  static const char *const names[3] = {"input", "tensor1", "tensor2"};
  /* value as out's dtype holds it (an integral one: 0.5 adds nothing),
   * except bfloat16, whose PyTorch 1.13 CPU kernel takes it as a float. */
  diopiDtype_t out_dtype = diopi_dtype_float64;
  if (out)
    diopiGetTensorDtype(out, &out_dtype);
  ref_ew_t ew = {.nin = 3,
                 .fn = divide ? addcdiv_fn : addcmul_fn,
                 .f32 = divide ? addcdiv_f32 : addcmul_f32,
                 .int_fn = divide ? NULL : addcmul_int,
                 .params = {out_dtype == diopi_dtype_bfloat16
                                ? ref_scalar(value, 1)
                                : ref_scalar_for(value, out, 1)}};
  if (ref_is_integral(out_dtype))
    ew.int_params[0] = ref_int_as(out_dtype, ref_scalar_int(value, 1));
  return ref_ew_call_with(ctx, op, &ew, out, in, names, REF_OUT_NUMERIC);
}

REF_EXPORT diopiError_t diopiAddcmul(CTX, T out, CT input, CT tensor1,
                                     CT tensor2, S value) {
  return addc(ctx, "diopiAddcmul", out, input, tensor1, tensor2, value, false);
}
REF_EXPORT diopiError_t diopiAddcmulInp(CTX, T input, CT tensor1, CT tensor2,
                                        S value) {
  return addc(ctx, "diopiAddcmulInp", input, input, tensor1, tensor2, value,
              false);
}
REF_EXPORT diopiError_t diopiAddcdiv(CTX, T out, CT input, CT tensor1,
                                     CT tensor2, S value) {
  return addc(ctx, "diopiAddcdiv", out, input, tensor1, tensor2, value, true);
}
REF_EXPORT diopiError_t diopiAddcdivInp(CTX, T input, CT tensor1, CT tensor2,
                                        S value) {
  return addc(ctx, "diopiAddcdivInp", input, input, tensor1, tensor2, value,
              true);
}

static diopiError_t extremum(CTX, const char *op, CT out, CT input, CT other,
                             double sign) {
  CT in[2] = {input, other};
  static const char *const names[2] = {"input", "other"};
  ref_ew_t ew = {.nin = 2,
                 .fn = extremum_fn,
                 .f32 = extremum_f32,
                 .int_fn = extremum_int,
                 .params = {sign},
                 .int_params = {(int64_t)sign}};
  return ref_ew_call_with(ctx, op, &ew, out, in, names, REF_OUT_ANY);
}
REF_EXPORT diopiError_t diopiMaximum(CTX, T out, CT input, CT other) {
  return extremum(ctx, "diopiMaximum", out, input, other, 1);
}
REF_EXPORT diopiError_t diopiMinimum(CTX, T out, CT input, CT other) {
  return extremum(ctx, "diopiMinimum", out, input, other, -1);
}

REF_EXPORT diopiError_t diopiIsNan(CTX, T out, CT input) {
  static const char *const names[1] = {"input"};
  return ref_ew_call(ctx, "diopiIsNan", out, 1, &input, names, isnan_fn,
                     isnan_f32, NULL, REF_OUT_ANY);
}
