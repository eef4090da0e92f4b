/* mse_loss and its backward: (input - target)^2, per element (reduction
 * none) or summed or averaged over every element. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_fold.h"

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

static double square_error_fn(const double *in, const double *p) {
  (void)p;
  double d = in[0] - in[1];
  return d * d;
}
static void sum_step(ref_fold_state_t *s, double v, int64_t r,
                     const double *p) {
  (void)r;
  (void)p;
  s->a += v;
}
/* params[0]: 1 to average. */
static double sum_finish(const ref_fold_state_t *s, int64_t count,
                         const double *p) {
  return p[0] != 0 ? s->a / (double)count : s->a;
}
/* grad_input = scale * 2 (input - target) grad_output: in = {grad_output,
 * input, target}, p[0] the scale. */
static double square_error_grad_fn(const double *in, const double *p) {
  return 2.0 * p[0] * (in[1] - in[2]) * in[0];
}

static diopiError_t expect_reduction(const char *op,
                                     diopiReduction_t reduction) {
  if (reduction == ReductionNone || reduction == ReductionMean ||
      reduction == ReductionSum)
    return diopiSuccess;
  return ref_fail(op, "reduction: expected none, mean or sum (0-2), got %d",
                  (int)reduction);
}

REF_EXPORT diopiError_t diopiMSELoss(CTX, T out, CT input, CT target,
                                     diopiReduction_t reduction) {
  const char *op = "diopiMSELoss";
  diopiError_t err = expect_reduction(op, reduction);
  if (err)
    return err;
  CT in[2] = {input, target};
  static const char *const names[2] = {"input", "target"};
  if (reduction == ReductionNone)
    return ref_ew_call(ctx, op, out, 2, in, names, square_error_fn, NULL, NULL,
                       REF_OUT_FLOATING);
  ref_fold_t f;
  memset(&f, 0, sizeof f);
  f.nin = 2;
  f.map = square_error_fn;
  f.step = sum_step;
  f.finish = sum_finish;
  f.params[0] = reduction == ReductionMean;
  err = ref_view(ctx, op, "out", out, &f.out);
  for (int k = 0; !err && k < 2; k++)
    err = ref_view(ctx, op, names[k], in[k], &f.in[k]);
  if (!err)
    err = ref_expect_kind(op, "out", &f.out, REF_OUT_FLOATING);
  if (!err)
    err = ref_fold_dims(op, "input", &f, NULL, 0);
  return err ? err : ref_fold_launch(ctx, op, &f);
}

REF_EXPORT diopiError_t diopiMSELossBackward(CTX, T grad_input, CT grad_output,
                                             CT input, CT target,
                                             diopiReduction_t reduction) {
  const char *op = "diopiMSELossBackward";
  ref_view_t x;
  diopiError_t err = expect_reduction(op, reduction);
  if (!err)
    err = ref_view(ctx, op, "input", input, &x);
  if (err)
    return err;
  double params[4] = {
      reduction == ReductionMean && x.numel ? 1.0 / (double)x.numel : 1.0};
  CT in[3] = {grad_output, input, target};
  static const char *const names[3] = {"grad_output", "input", "target"};
  return ref_ew_call(ctx, op, grad_input, 3, in, names, square_error_grad_fn,
                     NULL, params, REF_OUT_FLOATING);
}
