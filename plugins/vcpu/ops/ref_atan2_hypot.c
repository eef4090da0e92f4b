/* atan2 (the angle of the point (other, input), in [-pi, pi]) and hypot
 * (sqrt(input^2 + other^2) without overflow; +inf when either is infinite,
 * even beside a NaN), as torch.atan2 and torch.hypot: tensors broadcast,
 * out is floating (integral inputs give a floating out, as PyTorch's
 * promotion), computed in double. */
#include <math.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_ew_call.h"
#include "ref_f32.h"

/* in = {input, other}. */
static double atan2_fn(const double *in, const double *p) {
  (void)p;
  return atan2(in[0], in[1]);
}
static double hypot_fn(const double *in, const double *p) {
  (void)p;
  return hypot(in[0], in[1]);
}

REF_ISA_BODY void atan2_f32_body(float *out, const float *const *in, int64_t n,
                                 const double *p) {
  (void)p;
  const float *y = in[0], *x = in[1];
  for (int64_t i = 0; i < n; i++)
    out[i] = (float)atan2(y[i], x[i]);
}
REF_F32_EW(atan2_f32)
/* A float's square is exact in double and a sum of two cannot overflow
 * there, so the plain formula is hypot rounded once to float. */
REF_ISA_BODY void hypot_f32_body(float *out, const float *const *in, int64_t n,
                                 const double *p) {
  (void)p;
  const float *a = in[0], *b = in[1];
  for (int64_t i = 0; i < n; i++) {
    double x = a[i], y = b[i];
    out[i] = isinf(x) || isinf(y) ? INFINITY : (float)sqrt(x * x + y * y);
  }
}
REF_F32_EW(hypot_f32)

static const char *const both[2] = {"input", "other"};

static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           diopiConstTensorHandle_t out,
                           diopiConstTensorHandle_t input,
                           diopiConstTensorHandle_t other, ref_ew_fn_t fn,
                           ref_ew_f32_fn_t f32) {
  diopiConstTensorHandle_t in[2] = {input, other};
  return ref_ew_call(ctx, op, out, 2, in, both, fn, f32, NULL,
                     REF_OUT_FLOATING);
}

REF_EXPORT diopiError_t diopiAtan2(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t input,
                                   diopiConstTensorHandle_t other) {
  return launch(ctx, "diopiAtan2", out, input, other, atan2_fn, atan2_f32);
}
REF_EXPORT diopiError_t diopiAtan2Inp(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t input,
                                      diopiConstTensorHandle_t other) {
  return launch(ctx, "diopiAtan2Inp", input, input, other, atan2_fn, atan2_f32);
}
REF_EXPORT diopiError_t diopiHypot(diopiContextHandle_t ctx,
                                   diopiTensorHandle_t out,
                                   diopiConstTensorHandle_t input,
                                   diopiConstTensorHandle_t other) {
  return launch(ctx, "diopiHypot", out, input, other, hypot_fn, hypot_f32);
}
REF_EXPORT diopiError_t diopiHypotInp(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t input,
                                      diopiConstTensorHandle_t other) {
  return launch(ctx, "diopiHypotInp", input, input, other, hypot_fn, hypot_f32);
}
