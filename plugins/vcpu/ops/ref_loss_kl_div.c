/* kl_div loss and its backward on the pointwise loss engine: an extension
 * op (DIOPI 1.0 declares none), as PyTorch's F.kl_div: the loss of an
 * element is target * (log(target) - input) (0 where target is 0), or
 * exp(target) * (target - input) when the target is given as a log
 * (log_target). Reduction mean averages over every element (PyTorch's
 * "batchmean" is the caller's sum / batch). */
#include <math.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_f32.h"
#include "ref_loss_pointwise.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

/* Forward: v = {input, target}; backward: v = {grad_output, input,
 * target}. */
static double kl_div(const double *v, const double *p) {
  (void)p;
  double x = v[0], t = v[1];
  double t_log_t = t == 0 && !isnan(t) ? 0 : t * log(t);
  return t_log_t - t * x;
}
/* kl_div in float32 through the vectorizable log, a block at a time (out
 * may be either input). */
REF_ISA_BODY void kl_div_f32_body(float *out, const float *const *in, int64_t n,
                                  const double *p) {
  (void)p;
  float log_t[REF_F32_BLOCK];
  for (int64_t b = 0; b < n; b += REF_F32_BLOCK) {
    int64_t m = n - b < REF_F32_BLOCK ? n - b : REF_F32_BLOCK;
    const float *x = in[0] + b, *t = in[1] + b;
    ref_f32_log(log_t, t, m);
    for (int64_t i = 0; i < m; i++)
      out[b + i] = (t[i] == 0 ? 0.0f : t[i] * log_t[i]) - t[i] * x[i];
  }
}
REF_F32_EW(kl_div_f32)
static double kl_div_log_target(const double *v, const double *p) {
  (void)p;
  return exp(v[1]) * (v[1] - v[0]);
}
static double kl_div_grad(const double *v, const double *p) {
  (void)p;
  return -v[2] * v[0];
}
static double kl_div_log_target_grad(const double *v, const double *p) {
  (void)p;
  return -exp(v[2]) * v[0];
}

REF_EXPORT diopiError_t diopiKLDivLoss(CTX, T out, CT input, CT target,
                                       diopiReduction_t reduction,
                                       bool log_target) {
  ref_loss_t loss =
      ref_loss_pair(input, target, log_target ? kl_div_log_target : kl_div,
                    log_target ? NULL : kl_div_f32, 0);
  return ref_loss_forward(ctx, "diopiKLDivLoss", out, reduction, &loss);
}

REF_EXPORT diopiError_t diopiKLDivLossBackward(CTX, T grad_input,
                                               CT grad_output, CT input,
                                               CT target,
                                               diopiReduction_t reduction,
                                               bool log_target) {
  ref_loss_t loss =
      ref_loss_pair(input, target,
                    log_target ? kl_div_log_target_grad : kl_div_grad, NULL, 0);
  return ref_loss_backward(ctx, "diopiKLDivLossBackward", grad_input,
                           grad_output, reduction, &loss);
}
