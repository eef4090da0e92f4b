/* Piecewise activations and their backwards: leaky_relu, hardtanh,
 * hardswish, threshold (PyTorch's definitions; the gradient at a kink is the
 * one PyTorch takes). */
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

/* leaky_relu: p[0] the negative slope. */
static double leaky_fn(const double *in, const double *p) {
  return in[0] > 0 ? in[0] : in[0] * p[0];
}
REF_ISA_BODY void leaky_f32_body(float *out, const float *const *in, int64_t n,
                                 const double *p) {
  const float *x = in[0];
  float slope = (float)p[0];
  for (int64_t i = 0; i < n; i++)
    out[i] = x[i] > 0.0f ? x[i] : x[i] * slope;
}
REF_F32_EW(leaky_f32)
static double leaky_grad_fn(const double *in, const double *p) {
  return in[1] > 0 ? in[0] : in[0] * p[0];
}

/* hardtanh: clamp to [p[0], p[1]]; the gradient passes strictly inside. */
static double hardtanh_grad_fn(const double *in, const double *p) {
  return in[1] <= p[0] || in[1] >= p[1] ? 0 : in[0];
}

/* hardswish: x * relu6(x + 3) / 6, computed as written (as PyTorch does):
 * -0 below -3, NaN at -inf. */
static double hardswish_fn(const double *in, const double *p) {
  (void)p;
  double x = in[0], r = x + 3;
  r = r < 0 ? 0 : r > 6 ? 6 : r;
  return x * r / 6;
}
REF_ISA_BODY void hardswish_f32_body(float *out, const float *const *in,
                                     int64_t n, const double *p) {
  (void)p;
  const float *x = in[0];
  for (int64_t i = 0; i < n; i++) {
    float r = x[i] + 3.0f;
    r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r;
    out[i] = x[i] * r / 6.0f;
  }
}
REF_F32_EW(hardswish_f32)
/* The gradient at the kinks is PyTorch 1.13's vectorized CPU kernel's, the
 * one nearly every element of a tensor takes: g * (x/3 + 1/2) at -3
 * (-g/2), g at 3 (its scalar tail alone gives 3g/2 there). */
static double hardswish_grad_fn(const double *in, const double *p) {
  (void)p;
  double g = in[0], x = in[1];
  return x < -3 ? 0 : x < 3 ? g * (x / 3 + 0.5) : g;
}

/* threshold: p[0] threshold, p[1] value. */
static double threshold_fn(const double *in, const double *p) {
  return in[0] > p[0] ? in[0] : p[1];
}

REF_ISA_BODY void threshold_f32_body(float *out, const float *const *in,
                                     int64_t n, const double *p) {
  const float *x = in[0];
  float t = (float)p[0], v = (float)p[1];
  for (int64_t i = 0; i < n; i++)
    out[i] = x[i] > t ? x[i] : v;
}
REF_F32_EW(threshold_f32)

static diopiError_t forward(CTX, const char *op, CT out, CT input,
                            ref_ew_fn_t fn, ref_ew_f32_fn_t f32,
                            const double *params) {
  static const char *const names[1] = {"input"};
  return ref_ew_call(ctx, op, out, 1, &input, names, fn, f32, params,
                     REF_OUT_NUMERIC);
}
/* grad_input = fn(grad_output, input). */
static diopiError_t backward(CTX, const char *op, CT grad_input, CT grad_output,
                             CT input, ref_ew_fn_t fn, const double *params) {
  CT in[2] = {grad_output, input};
  static const char *const names[2] = {"grad_output", "input"};
  return ref_ew_call(ctx, op, grad_input, 2, in, names, fn, NULL, params,
                     REF_OUT_FLOATING);
}

/* The scalar attributes into params[0] and params[1]; name_b NULL: b is
 * not an attribute of the op. */
static diopiError_t scalars(const char *op, const char *name_a, S a,
                            const char *name_b, S b, double *params) {
  if (!a)
    return ref_fail(op, "%s: scalar is NULL", name_a);
  if (name_b && !b)
    return ref_fail(op, "%s: scalar is NULL", name_b);
  params[0] = ref_scalar(a, 0);
  params[1] = ref_scalar(b, 0);
  return diopiSuccess;
}

REF_EXPORT diopiError_t diopiLeakyRelu(CTX, T out, CT input, S negative_slope) {
  double p[4] = {0};
  diopiError_t err = scalars("diopiLeakyRelu", "negative_slope", negative_slope,
                             NULL, NULL, p);
  return err ? err
             : forward(ctx, "diopiLeakyRelu", out, input, leaky_fn, leaky_f32,
                       p);
}
REF_EXPORT diopiError_t diopiLeakyReluInp(CTX, T input, S negative_slope) {
  double p[4] = {0};
  diopiError_t err = scalars("diopiLeakyReluInp", "negative_slope",
                             negative_slope, NULL, NULL, p);
  return err ? err
             : forward(ctx, "diopiLeakyReluInp", input, input, leaky_fn,
                       leaky_f32, p);
}
/* With input_is_result, `input` is the forward output: its sign is the
 * input's for a positive slope, which PyTorch requires then. */
REF_EXPORT diopiError_t diopiLeakyReluBackward(CTX, T grad_input,
                                               CT grad_output, CT input,
                                               S negative_slope,
                                               bool input_is_result) {
  const char *op = "diopiLeakyReluBackward";
  double p[4] = {0};
  diopiError_t err =
      scalars(op, "negative_slope", negative_slope, NULL, NULL, p);
  if (!err && input_is_result && p[0] < 0)
    err = ref_fail(op,
                   "negative_slope: %g must be >= 0 when the input is "
                   "the result",
                   p[0]);
  return err ? err
             : backward(ctx, op, grad_input, grad_output, input, leaky_grad_fn,
                        p);
}

REF_EXPORT diopiError_t diopiHardtanh(CTX, T out, CT input, S min_val,
                                      S max_val) {
  double p[4] = {0};
  diopiError_t err =
      scalars("diopiHardtanh", "min_val", min_val, "max_val", max_val, p);
  return err ? err
             : ref_clamp_scalars(ctx, "diopiHardtanh", out, input, p[0], p[1]);
}
REF_EXPORT diopiError_t diopiHardtanhInp(CTX, T input, S min_val, S max_val) {
  double p[4] = {0};
  diopiError_t err =
      scalars("diopiHardtanhInp", "min_val", min_val, "max_val", max_val, p);
  return err ? err
             : ref_clamp_scalars(ctx, "diopiHardtanhInp", input, input, p[0],
                                 p[1]);
}
REF_EXPORT diopiError_t diopiHardtanhBackward(CTX, T grad_input, CT grad_output,
                                              CT input, S min_val, S max_val) {
  const char *op = "diopiHardtanhBackward";
  double p[4] = {0};
  diopiError_t err = scalars(op, "min_val", min_val, "max_val", max_val, p);
  return err ? err
             : backward(ctx, op, grad_input, grad_output, input,
                        hardtanh_grad_fn, p);
}

REF_EXPORT diopiError_t diopiHardswish(CTX, T out, CT input) {
  return forward(ctx, "diopiHardswish", out, input, hardswish_fn, hardswish_f32,
                 NULL);
}
REF_EXPORT diopiError_t diopiHardswishInp(CTX, T input) {
  return forward(ctx, "diopiHardswishInp", input, input, hardswish_fn,
                 hardswish_f32, NULL);
}
REF_EXPORT diopiError_t diopiHardswishBackward(CTX, T grad_input,
                                               CT grad_output, CT input) {
  return backward(ctx, "diopiHardswishBackward", grad_input, grad_output, input,
                  hardswish_grad_fn, NULL);
}

/* threshold and value as input's dtype holds them, as PyTorch converts
 * them: on uint8, threshold -1 is 255. */
static diopiError_t threshold_scalars(const char *op, CT input, S threshold,
                                      S value, double *params) {
  diopiError_t err =
      scalars(op, "threshold", threshold, "value", value, params);
  if (!err) {
    params[0] = ref_scalar_for(threshold, input, 0);
    params[1] = ref_scalar_for(value, input, 0);
  }
  return err;
}
REF_EXPORT diopiError_t diopiThreshold(CTX, T out, CT input, S threshold,
                                       S value) {
  double p[4] = {0};
  diopiError_t err =
      threshold_scalars("diopiThreshold", input, threshold, value, p);
  return err ? err
             : forward(ctx, "diopiThreshold", out, input, threshold_fn,
                       threshold_f32, p);
}
REF_EXPORT diopiError_t diopiThresholdInp(CTX, T input, S threshold, S value) {
  double p[4] = {0};
  diopiError_t err =
      threshold_scalars("diopiThresholdInp", input, threshold, value, p);
  return err ? err
             : forward(ctx, "diopiThresholdInp", input, input, threshold_fn,
                       threshold_f32, p);
}
