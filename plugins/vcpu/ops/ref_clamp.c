/* clamp, clamp_min, clamp_max: bounds as scalars or tensors (broadcast),
 * in place or not. out = min(max(input, min), max); a NaN input stays NaN,
 * a missing bound does not apply. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_clamp.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t
#define S const diopiScalar_t *

static double clamp(double x, double lo, double hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

/* Scalar bounds: p[0] lo, p[1] hi (infinite when absent). */
static double scalar_fn(const double *in, const double *p) {
  return clamp(in[0], p[0], p[1]);
}
REF_ISA_BODY void scalar_f32_body(float *out, const float *const *in, int64_t n,
                                  const double *p) {
  const float *x = in[0];
  float lo = (float)p[0], hi = (float)p[1];
  for (int64_t i = 0; i < n; i++) {
    float v = x[i] < lo ? lo : x[i];
    out[i] = v > hi ? hi : v;
  }
}
REF_F32_EW(scalar_f32)

/* The integer forms: scalar bounds p[0] lo, p[1] hi (INT64_MIN, INT64_MAX
 * when absent); tensor bounds as tensor_fn's, p[0], p[1] whether given. */
static int64_t clamp_int(int64_t x, int64_t lo, int64_t hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}
static int64_t scalar_int(const int64_t *in, const int64_t *p) {
  return clamp_int(in[0], p[0], p[1]);
}
static int64_t tensor_int(const int64_t *in, const int64_t *p) {
  int k = 1;
  int64_t lo = p[0] != 0 ? in[k++] : INT64_MIN;
  int64_t hi = p[1] != 0 ? in[k] : INT64_MAX;
  return clamp_int(in[0], lo, hi);
}

/* Tensor bounds: in = {input, lo?, hi?}; p[0], p[1]: whether lo, hi are
 * given. */
static double tensor_fn(const double *in, const double *p) {
  int k = 1;
  double lo = p[0] != 0 ? in[k++] : -INFINITY;
  double hi = p[1] != 0 ? in[k] : INFINITY;
  return clamp(in[0], lo, hi);
}

REF_ISA_BODY void tensor_f32_body(float *out, const float *const *in, int64_t n,
                                  const double *p) {
  const float *x = in[0], *lo = p[0] != 0 ? in[1] : NULL,
              *hi = p[1] != 0 ? in[p[0] != 0 ? 2 : 1] : NULL;
  for (int64_t i = 0; i < n; i++) {
    float v = x[i];
    if (lo)
      v = v < lo[i] ? lo[i] : v;
    if (hi)
      v = v > hi[i] ? hi[i] : v;
    out[i] = v;
  }
}
REF_F32_EW(tensor_f32)

static diopiError_t launch_scalars(CTX, const char *op, CT out, CT input,
                                   ref_ew_t *ew) {
  static const char *const names[1] = {"input"};
  ew->nin = 1;
  ew->fn = scalar_fn;
  ew->f32 = scalar_f32;
  return ref_ew_call_with(ctx, op, ew, out, &input, names, REF_OUT_NUMERIC);
}

diopiError_t ref_clamp_scalars(CTX, const char *op, CT out, CT input, double lo,
                               double hi) {
  ref_ew_t ew = {.params = {lo, hi}};
  return launch_scalars(ctx, op, out, input, &ew);
}

/* Integral bounds of an integral tensor convert to its dtype first, as
 * PyTorch's do (uint8: min -3 is 253), and clamp in int64. */
static diopiError_t by_scalars(CTX, const char *op, CT out, CT input, S min,
                               S max) {
  if (!min && !max)
    return ref_fail(op, "min, max: at least one bound is required");
  ref_ew_t ew = {
      .params = {ref_scalar(min, -INFINITY), ref_scalar(max, INFINITY)}};
  if (ref_scalar_is_integral(min) && ref_scalar_is_integral(max)) {
    ew.int_fn = scalar_int;
    ew.int_params[0] = ref_scalar_int_operand_for(min, input, INT64_MIN);
    ew.int_params[1] = ref_scalar_int_operand_for(max, input, INT64_MAX);
  }
  return launch_scalars(ctx, op, out, input, &ew);
}

static diopiError_t by_tensors(CTX, const char *op, CT out, CT input, CT min,
                               CT max) {
  if (!min && !max)
    return ref_fail(op, "min, max: at least one bound is required");
  CT in[3] = {input};
  const char *names[3] = {"input"};
  int n = 1;
  if (min) {
    names[n] = "min";
    in[n++] = min;
  }
  if (max) {
    names[n] = "max";
    in[n++] = max;
  }
  ref_ew_t ew = {.nin = n,
                 .fn = tensor_fn,
                 .f32 = tensor_f32,
                 .int_fn = tensor_int,
                 .params = {min != NULL, max != NULL},
                 .int_params = {min != NULL, max != NULL}};
  return ref_ew_call_with(ctx, op, &ew, out, in, names, REF_OUT_NUMERIC);
}

REF_EXPORT diopiError_t diopiClampScalar(CTX, T out, CT input, S min, S max) {
  return by_scalars(ctx, "diopiClampScalar", out, input, min, max);
}
REF_EXPORT diopiError_t diopiClampInpScalar(CTX, T input, S min, S max) {
  return by_scalars(ctx, "diopiClampInpScalar", input, input, min, max);
}
REF_EXPORT diopiError_t diopiClamp(CTX, T out, CT input, CT min, CT max) {
  return by_tensors(ctx, "diopiClamp", out, input, min, max);
}
REF_EXPORT diopiError_t diopiClampInp(CTX, T input, CT min, CT max) {
  return by_tensors(ctx, "diopiClampInp", input, input, min, max);
}
REF_EXPORT diopiError_t diopiClampMinScalar(CTX, T out, CT input, S min) {
  return by_scalars(ctx, "diopiClampMinScalar", out, input, min, NULL);
}
REF_EXPORT diopiError_t diopiClampMinInpScalar(CTX, T input, S min) {
  return by_scalars(ctx, "diopiClampMinInpScalar", input, input, min, NULL);
}
REF_EXPORT diopiError_t diopiClampMin(CTX, T out, CT input, CT min) {
  return by_tensors(ctx, "diopiClampMin", out, input, min, NULL);
}
REF_EXPORT diopiError_t diopiClampMinInp(CTX, T input, CT min) {
  return by_tensors(ctx, "diopiClampMinInp", input, input, min, NULL);
}
REF_EXPORT diopiError_t diopiClampMaxScalar(CTX, T out, CT input, S max) {
  return by_scalars(ctx, "diopiClampMaxScalar", out, input, NULL, max);
}
REF_EXPORT diopiError_t diopiClampMaxInpScalar(CTX, T input, S max) {
  return by_scalars(ctx, "diopiClampMaxInpScalar", input, input, NULL, max);
}
REF_EXPORT diopiError_t diopiClampMax(CTX, T out, CT input, CT max) {
  return by_tensors(ctx, "diopiClampMax", out, input, NULL, max);
}
REF_EXPORT diopiError_t diopiClampMaxInp(CTX, T input, CT max) {
  return by_tensors(ctx, "diopiClampMaxInp", input, input, NULL, max);
}
