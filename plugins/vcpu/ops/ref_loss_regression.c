/* Regression losses and their backwards on the pointwise loss engine:
 * mse_loss ((input - target)^2) and smooth_l1_loss (quadratic below beta,
 * linear above; beta 0 is the L1 loss). */
#include <math.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_f32.h"
#include "ref_loss_pointwise.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* Forward: v = {input, target}; backward: v = {grad_output, input,
 * target}. p[0]: smooth_l1's beta. */
static double square_error(const double *v, const double *p) {
  (void)p;
  double d = v[0] - v[1];
  return d * d;
}
static double square_error_grad(const double *v, const double *p) {
  (void)p;
  return 2.0 * (v[1] - v[2]) * v[0];
}
static double smooth_l1(const double *v, const double *p) {
  double d = fabs(v[0] - v[1]), beta = p[0];
  return d < beta ? 0.5 * d * d / beta : d - 0.5 * beta;
}
static double smooth_l1_grad(const double *v, const double *p) {
  double d = v[1] - v[2], beta = p[0];
  return v[0] * (fabs(d) < beta ? d / beta : (d > 0) - (d < 0));
}

REF_ISA_BODY void square_error_f32_body(float *out, const float *const *in,
                                        int64_t n, const double *p) {
  (void)p;
  for (int64_t i = 0; i < n; i++) {
    float d = in[0][i] - in[1][i];
    out[i] = d * d;
  }
}
REF_F32_EW(square_error_f32)
REF_ISA_BODY void smooth_l1_f32_body(float *out, const float *const *in,
                                     int64_t n, const double *p) {
  float beta = (float)p[0], half = 0.5f / (beta > 0 ? beta : 1.0f);
  for (int64_t i = 0; i < n; i++) {
    float d = in[0][i] - in[1][i];
    d = d < 0 ? -d : d;
    float quadratic = half * d * d, linear = d - 0.5f * beta;
    out[i] = d < beta ? quadratic : linear;
  }
}
REF_F32_EW(smooth_l1_f32)

REF_EXPORT diopiError_t diopiMSELoss(CTX, T out, CT input, CT target,
                                     diopiReduction_t reduction) {
  ref_loss_t loss =
      ref_loss_pair(input, target, square_error, square_error_f32, 0);
  return ref_loss_forward(ctx, "diopiMSELoss", out, reduction, &loss);
}
REF_EXPORT diopiError_t diopiMSELossBackward(CTX, T grad_input, CT grad_output,
                                             CT input, CT target,
                                             diopiReduction_t reduction) {
  ref_loss_t loss = ref_loss_pair(input, target, square_error_grad, NULL, 0);
  return ref_loss_backward(ctx, "diopiMSELossBackward", grad_input, grad_output,
                           reduction, &loss);
}

REF_EXPORT diopiError_t diopiSmoothL1Loss(CTX, T out, CT input, CT target,
                                          diopiReduction_t reduction,
                                          double beta) {
  if (!(beta >= 0))
    return ref_fail("diopiSmoothL1Loss", "beta: expected >= 0, got %g", beta);
  ref_loss_t loss =
      ref_loss_pair(input, target, smooth_l1, smooth_l1_f32, beta);
  return ref_loss_forward(ctx, "diopiSmoothL1Loss", out, reduction, &loss);
}
REF_EXPORT diopiError_t diopiSmoothL1LossBackward(CTX, T grad_input,
                                                  CT grad_output, CT input,
                                                  CT target,
                                                  diopiReduction_t reduction,
                                                  double beta) {
  if (!(beta >= 0))
    return ref_fail("diopiSmoothL1LossBackward", "beta: expected >= 0, got %g",
                    beta);
  ref_loss_t loss = ref_loss_pair(input, target, smooth_l1_grad, NULL, beta);
  return ref_loss_backward(ctx, "diopiSmoothL1LossBackward", grad_input,
                           grad_output, reduction, &loss);
}
