/* Binary cross entropy on probabilities (logs clamped at -100, as PyTorch)
 * and on logits (stable: log(1 + exp(-|x|)) + max(-x, 0)), optional
 * per-element weight and, for logits, a positive-class weight broadcast
 * along the classes; and their backwards. On the pointwise loss engine. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
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

static ref_loss_t gather(CT input, CT target, CT weight, CT pos_weight,
                         ref_loss_fn_t fn) {
  ref_loss_t loss;
  memset(&loss, 0, sizeof loss);
  loss.fn = fn;
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
  ref_loss_t loss = gather(input, target, weight, NULL, bce);
  return ref_loss_forward(ctx, "diopiBCELoss", out, reduction, &loss);
}
REF_EXPORT diopiError_t diopiBCELossBackward(CTX, T grad_input, CT grad_output,
                                             CT input, CT target, CT weight,
                                             diopiReduction_t reduction) {
  ref_loss_t loss = gather(input, target, weight, NULL, bce_grad);
  return ref_loss_backward(ctx, "diopiBCELossBackward", grad_input, grad_output,
                           reduction, &loss);
}
REF_EXPORT diopiError_t diopiBCEWithLogits(CTX, T out, CT input, CT target,
                                           CT weight, CT pos_weight,
                                           diopiReduction_t reduction) {
  ref_loss_t loss = gather(input, target, weight, pos_weight, bce_logits);
  return ref_loss_forward(ctx, "diopiBCEWithLogits", out, reduction, &loss);
}
REF_EXPORT diopiError_t diopiBCEWithLogitsBackward(CTX, T grad_input,
                                                   CT grad_output, CT input,
                                                   CT target, CT weight,
                                                   CT pos_weight,
                                                   diopiReduction_t reduction) {
  ref_loss_t loss = gather(input, target, weight, pos_weight, bce_logits_grad);
  return ref_loss_backward(ctx, "diopiBCEWithLogitsBackward", grad_input,
                           grad_output, reduction, &loss);
}
