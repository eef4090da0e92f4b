/* Binary cross entropy on probabilities (logs clamped at -100, as PyTorch)
 * and on logits (stable: log(1 + exp(-|x|)) + max(-x, 0)), optional
 * per-element weight and, for logits, a positive-class weight broadcast
 * along the classes; and their backwards. On the pointwise loss engine. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_f32.h"
#include "ref_loss_pointwise.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* The values after input and target: weight if p[0], pos_weight if p[1]. */
static void weights(const double *rest, const double *p, double *w,
                    double *pw) {
  int k = 0;
  *w = p[0] != 0 ? rest[k++] : 1.0;
  *pw = p[1] != 0 ? rest[k] : 1.0;
}

static double clamped_log(double x) {
  double l = log(x);
  return l < -100 ? -100 : l;
}
static double bce(const double *v, const double *p) {
  double w, pw, x = v[0], t = v[1];
  weights(v + 2, p, &w, &pw);
  return -w * (t * clamped_log(x) + (1 - t) * clamped_log(1 - x));
}
static double bce_grad(const double *v, const double *p) {
  double w, pw, x = v[1], t = v[2], d = (1 - x) * x;
  weights(v + 3, p, &w, &pw);
  return v[0] * w * (x - t) / (d > 1e-12 ? d : 1e-12);
}
static double bce_logits(const double *v, const double *p) {
  double w, pw, x = v[0], t = v[1];
  weights(v + 2, p, &w, &pw);
  double softplus_neg = log1p(exp(-fabs(x))) + (x < 0 ? -x : 0);
  return w * ((1 - t) * x + (1 + (pw - 1) * t) * softplus_neg);
}
static double bce_logits_grad(const double *v, const double *p) {
  double w, pw, x = v[1], t = v[2];
  weights(v + 3, p, &w, &pw);
  double s = 1.0 / (1.0 + exp(-x));
  return v[0] * w * (s * (1 - t + pw * t) - pw * t);
}

/* The float32 forwards (no weights: see gather), in blocks through the
 * library's vectorizable log and exp. */
enum { LOSS_BLOCK = 256 };
REF_ISA_BODY void bce_mix_body(float *out, const float *t, const float *lx,
                               const float *l1x, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float a = lx[i] < -100.0f ? -100.0f : lx[i];
    float b = l1x[i] < -100.0f ? -100.0f : l1x[i];
    out[i] = -(t[i] * a + (1.0f - t[i]) * b);
  }
}
REF_ISA_DISPATCH_VOID(static, bce_mix,
                      (float *out, const float *t, const float *lx,
                       const float *l1x, int64_t n),
                      (out, t, lx, l1x, n))
static void bce_f32(float *out, const float *const *in, int64_t n,
                    const double *p) {
  (void)p;
  float lx[LOSS_BLOCK], one_minus[LOSS_BLOCK], l1x[LOSS_BLOCK];
  for (int64_t b = 0; b < n; b += LOSS_BLOCK) {
    int64_t m = n - b < LOSS_BLOCK ? n - b : LOSS_BLOCK;
    for (int64_t i = 0; i < m; i++)
      one_minus[i] = 1.0f - in[0][b + i];
    ref_f32_log(lx, in[0] + b, m);
    ref_f32_log(l1x, one_minus, m);
    bce_mix(out + b, in[1] + b, lx, l1x, m);
  }
}
REF_ISA_BODY void logits_mix_body(float *out, const float *x, const float *t,
                                  const float *e, int64_t n) {
  for (int64_t i = 0; i < n; i++) /* e = log(1 + exp(-|x|)) */
    out[i] = (1.0f - t[i]) * x[i] + e[i] + (x[i] < 0 ? -x[i] : 0.0f);
}
REF_ISA_DISPATCH_VOID(static, logits_mix,
                      (float *out, const float *x, const float *t,
                       const float *e, int64_t n),
                      (out, x, t, e, n))
static void bce_logits_f32(float *out, const float *const *in, int64_t n,
                           const double *p) {
  (void)p;
  float e[LOSS_BLOCK];
  for (int64_t b = 0; b < n; b += LOSS_BLOCK) {
    int64_t m = n - b < LOSS_BLOCK ? n - b : LOSS_BLOCK;
    for (int64_t i = 0; i < m; i++)
      e[i] = -fabsf(in[0][b + i]);
    ref_f32_exp(e, e, m, 0.0f);
    for (int64_t i = 0; i < m; i++)
      e[i] += 1.0f;
    ref_f32_log(e, e, m);
    logits_mix(out + b, in[0] + b, in[1] + b, e, m);
  }
}

/* f32: the forward's float32 loop, taken without weights only. */
static ref_loss_t gather(CT input, CT target, CT weight, CT pos_weight,
                         ref_loss_fn_t fn, ref_ew_f32_fn_t f32) {
  ref_loss_t loss;
  memset(&loss, 0, sizeof loss);
  loss.fn = fn;
  loss.f32 = weight || pos_weight ? NULL : f32;
  CT in[4] = {input, target, weight, pos_weight};
  static const char *const names[4] = {"input", "target", "weight",
                                       "pos_weight"};
  for (int k = 0; k < 4; k++)
    if (k < 2 || in[k]) {
      loss.in[loss.nin] = in[k];
      loss.names[loss.nin++] = names[k];
    }
  loss.params[0] = weight != NULL;
  loss.params[1] = pos_weight != NULL;
  return loss;
}

REF_EXPORT diopiError_t diopiBCELoss(CTX, T out, CT input, CT target, CT weight,
                                     diopiReduction_t reduction) {
  ref_loss_t loss = gather(input, target, weight, NULL, bce, bce_f32);
  return ref_loss_forward(ctx, "diopiBCELoss", out, reduction, &loss);
}
REF_EXPORT diopiError_t diopiBCELossBackward(CTX, T grad_input, CT grad_output,
                                             CT input, CT target, CT weight,
                                             diopiReduction_t reduction) {
  ref_loss_t loss = gather(input, target, weight, NULL, bce_grad, NULL);
  return ref_loss_backward(ctx, "diopiBCELossBackward", grad_input, grad_output,
                           reduction, &loss);
}
REF_EXPORT diopiError_t diopiBCEWithLogits(CTX, T out, CT input, CT target,
                                           CT weight, CT pos_weight,
                                           diopiReduction_t reduction) {
  ref_loss_t loss =
      gather(input, target, weight, pos_weight, bce_logits, bce_logits_f32);
  return ref_loss_forward(ctx, "diopiBCEWithLogits", out, reduction, &loss);
}
REF_EXPORT diopiError_t diopiBCEWithLogitsBackward(CTX, T grad_input,
                                                   CT grad_output, CT input,
                                                   CT target, CT weight,
                                                   CT pos_weight,
                                                   diopiReduction_t reduction) {
  ref_loss_t loss =
      gather(input, target, weight, pos_weight, bce_logits_grad, NULL);
  return ref_loss_backward(ctx, "diopiBCEWithLogitsBackward", grad_input,
                           grad_output, reduction, &loss);
}
