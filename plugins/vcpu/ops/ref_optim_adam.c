/* adam, in place, as torch.optim.Adam steps one tensor (L2 weight decay
 * added to the gradient), and the fused multi-tensor adamw (decoupled
 * weight decay, maximize, each tensor's step count read from its
 * state_steps tensor on the stream): bias-corrected moments, amsgrad's
 * running maximum of the second moment. Steps are 1-based. Contiguous
 * float32 without amsgrad runs a vectorizable float loop; anything else
 * computes in double. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct adam_task {
  ref_view_t param, grad, m, v, vmax, steps; /* steps: when from_tensor */
  bool amsgrad, f32, decoupled, maximize, from_tensor;
  double lr, beta1, beta2, eps, weight_decay;
  int64_t step;
  double step_size, correction2_sqrt; /* lr / (1 - b1^t), sqrt(1 - b2^t) */
} adam_task_t;

REF_F32_CLONES static void adam_f32(const adam_task_t *t, int64_t begin,
                                    int64_t end) {
  float *restrict p = (float *)t->param.data, *restrict m = (float *)t->m.data,
                  *restrict v = (float *)t->v.data;
  const float *restrict g = (const float *)t->grad.data;
  float b1 = (float)t->beta1, b2 = (float)t->beta2, eps = (float)t->eps,
        l2 = t->decoupled ? 0.0f : (float)t->weight_decay,
        shrink = t->decoupled ? (float)(1.0 - t->lr * t->weight_decay) : 1.0f,
        sign = t->maximize ? -1.0f : 1.0f, step_size = (float)t->step_size,
        c2 = (float)t->correction2_sqrt;
  for (int64_t i = begin; i < end; i++) {
    float grad = sign * g[i] + l2 * p[i];
    p[i] *= shrink;
    m[i] = b1 * m[i] + (1 - b1) * grad;
    v[i] = b2 * v[i] + (1 - b2) * grad * grad;
    p[i] -= step_size * m[i] / (sqrtf(v[i]) / c2 + eps);
  }
}

static void adam_generic(const adam_task_t *t, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i++) {
    double p = ref_get(&t->param, i);
    double g = (t->maximize ? -1 : 1) * ref_get(&t->grad, i);
    if (t->decoupled)
      p *= 1 - t->lr * t->weight_decay;
    else
      g += t->weight_decay * p;
    double m = t->beta1 * ref_get(&t->m, i) + (1 - t->beta1) * g;
    double v = t->beta2 * ref_get(&t->v, i) + (1 - t->beta2) * g * g;
    double denom = v;
    if (t->amsgrad) {
      double vmax = ref_get(&t->vmax, i);
      denom = vmax > v ? vmax : v;
      ref_set(&t->vmax, i, denom);
    }
    p -= t->step_size * m / (sqrt(denom) / t->correction2_sqrt + t->eps);
    ref_set(&t->param, i, p);
    ref_set(&t->m, i, m);
    ref_set(&t->v, i, v);
  }
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const adam_task_t *t = context;
  if (t->f32)
    adam_f32(t, begin, end);
  else
    adam_generic(t, begin, end);
}

/* The bias corrections of step t->step. */
static void corrections(adam_task_t *t) {
  t->step_size = t->lr / (1.0 - pow(t->beta1, (double)t->step));
  t->correction2_sqrt = sqrt(1.0 - pow(t->beta2, (double)t->step));
}

static void run(void *args) {
  adam_task_t *t = args;
  if (t->from_tensor) { /* a step count below 1 counts as 1 */
    double s = ref_get(&t->steps, 0);
    t->step = s >= 1 ? (int64_t)s : 1;
    corrections(t);
  }
  ref_parallel_for(t->param.numel, 1 << 14, run_range, t);
}

/* A floating tensor of param's shape. */
static diopiError_t state(diopiContextHandle_t ctx, const char *op,
                          const char *arg, diopiConstTensorHandle_t h,
                          ref_view_t *v, const ref_view_t *param) {
  diopiError_t err = ref_view(ctx, op, arg, h, v);
  if (!err)
    err = ref_expect_shape(op, arg, v, param->shape, param->ndim);
  if (!err)
    err = ref_expect_kind(op, arg, v, REF_OUT_FLOATING);
  return err;
}

/* Views one tensor's param, grad and state into t (names suffixed by
 * `which`, e.g. "s[2]"), checks the hyperparameters and, if `enqueue`,
 * enqueues the step. */
static diopiError_t
launch(diopiContextHandle_t ctx, const char *op, adam_task_t *t,
       const char *which, diopiConstTensorHandle_t param,
       diopiConstTensorHandle_t grad, diopiConstTensorHandle_t exp_avg,
       diopiConstTensorHandle_t exp_avg_sq,
       diopiConstTensorHandle_t max_exp_avg_sq, bool enqueue) {
  char name[5][40];
  static const char *const base[5] = {"param", "grad", "exp_avg", "exp_avg_sq",
                                      "max_exp_avg_sq"};
  for (int k = 0; k < 5; k++)
    snprintf(name[k], sizeof name[k], "%s%s", base[k], which);
  diopiError_t err = ref_view(ctx, op, name[0], param, &t->param);
  if (!err)
    err = ref_expect_kind(op, name[0], &t->param, REF_OUT_FLOATING);
  if (!err)
    err = state(ctx, op, name[1], grad, &t->grad, &t->param);
  if (!err)
    err = state(ctx, op, name[2], exp_avg, &t->m, &t->param);
  if (!err)
    err = state(ctx, op, name[3], exp_avg_sq, &t->v, &t->param);
  if (!err && t->amsgrad)
    err = state(ctx, op, name[4], max_exp_avg_sq, &t->vmax, &t->param);
  if (!err && !t->from_tensor && t->step < 1)
    err = ref_fail(op, "step: expected >= 1, got %lld", (long long)t->step);
  if (!err && !(t->beta1 >= 0 && t->beta1 < 1))
    err = ref_fail(op, "beta1: expected in [0, 1), got %g", t->beta1);
  if (!err && !(t->beta2 >= 0 && t->beta2 < 1))
    err = ref_fail(op, "beta2: expected in [0, 1), got %g", t->beta2);
  if (err)
    return err;
  if (!t->from_tensor)
    corrections(t);
  t->f32 = !t->amsgrad && ref_f32_contiguous(&t->param) &&
           ref_f32_contiguous(&t->grad) && ref_f32_contiguous(&t->m) &&
           ref_f32_contiguous(&t->v);
  if (!enqueue || t->param.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

REF_EXPORT diopiError_t
diopiAdam(diopiContextHandle_t ctx, diopiTensorHandle_t param,
          diopiConstTensorHandle_t grad, diopiTensorHandle_t exp_avg,
          diopiTensorHandle_t exp_avg_sq, diopiTensorHandle_t max_exp_avg_sq,
          float lr, float beta1, float beta2, float eps, float weight_decay,
          int64_t step, bool amsgrad) {
  adam_task_t t;
  memset(&t, 0, sizeof t);
  t.amsgrad = amsgrad;
  t.lr = lr;
  t.beta1 = beta1;
  t.beta2 = beta2;
  t.eps = eps;
  t.weight_decay = weight_decay;
  t.step = step;
  return launch(ctx, "diopiAdam", &t, "", param, grad, exp_avg, exp_avg_sq,
                max_exp_avg_sq, true);
}

/* One adamw step of each of `nums` tensors; state_steps[i] holds tensor
 * i's (already advanced) step count. All tensors are checked before any
 * is enqueued. */
REF_EXPORT diopiError_t diopiFusedAdamW(
    diopiContextHandle_t ctx, diopiTensorHandle_t *params,
    diopiConstTensorHandle_t *grads, diopiTensorHandle_t *exp_avgs,
    diopiTensorHandle_t *exp_avg_sqs, diopiTensorHandle_t *max_exp_avg_sqs,
    diopiConstTensorHandle_t *state_steps, int64_t nums, double lr,
    double beta1, double beta2, double eps, double weight_decay, bool amsgrad,
    bool maximize) {
  const char *op = "diopiFusedAdamW";
  if (nums < 0 || (nums && (!params || !grads || !exp_avgs || !exp_avg_sqs ||
                            !state_steps || (amsgrad && !max_exp_avg_sqs))))
    return ref_fail(op,
                    "params, grads, exp_avgs, exp_avg_sqs, state_steps: "
                    "expected %lld tensors each, got a NULL list",
                    (long long)nums);
  for (int pass = 0; pass < 2; pass++) /* check all, then enqueue all */
    for (int64_t i = 0; i < nums; i++) {
      adam_task_t t;
      memset(&t, 0, sizeof t);
      t.amsgrad = amsgrad;
      t.decoupled = true;
      t.maximize = maximize;
      t.from_tensor = true;
      t.lr = lr;
      t.beta1 = beta1;
      t.beta2 = beta2;
      t.eps = eps;
      t.weight_decay = weight_decay;
      char which[24], steps_name[40];
      snprintf(which, sizeof which, "s[%lld]", (long long)i);
      snprintf(steps_name, sizeof steps_name, "state_steps[%lld]",
               (long long)i);
      diopiError_t err =
          ref_view(ctx, op, steps_name, state_steps[i], &t.steps);
      if (!err && t.steps.numel != 1)
        err = ref_fail(op, "%s: expected one element, got %lld", steps_name,
                       (long long)t.steps.numel);
      if (!err)
        err = launch(ctx, op, &t, which, params[i], grads[i], exp_avgs[i],
                     exp_avg_sqs[i], amsgrad ? max_exp_avg_sqs[i] : NULL,
                     pass == 1);
      if (err)
        return err;
    }
  return diopiSuccess;
}
