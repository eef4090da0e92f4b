/* adam, in place, as torch.optim.Adam steps one tensor: L2 weight decay
 * added to the gradient, bias-corrected moments, amsgrad's running maximum
 * of the second moment. `step` is the 1-based step count. Contiguous float32
 * without amsgrad runs a vectorizable float loop; anything else computes in
 * double. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct adam_task {
  ref_view_t param, grad, m, v, vmax;
  bool amsgrad, f32;
  double lr, beta1, beta2, eps, weight_decay;
  double step_size, correction2_sqrt; /* lr / (1 - b1^t), sqrt(1 - b2^t) */
} adam_task_t;

REF_F32_CLONES static void adam_f32(const adam_task_t *t, int64_t begin,
                                    int64_t end) {
  float *restrict p = (float *)t->param.data, *restrict m = (float *)t->m.data,
                  *restrict v = (float *)t->v.data;
  const float *restrict g = (const float *)t->grad.data;
  float b1 = (float)t->beta1, b2 = (float)t->beta2, eps = (float)t->eps,
        decay = (float)t->weight_decay, step_size = (float)t->step_size,
        c2 = (float)t->correction2_sqrt;
  for (int64_t i = begin; i < end; i++) {
    float grad = g[i] + decay * p[i];
    m[i] = b1 * m[i] + (1 - b1) * grad;
    v[i] = b2 * v[i] + (1 - b2) * grad * grad;
    p[i] -= step_size * m[i] / (sqrtf(v[i]) / c2 + eps);
  }
}

static void adam_generic(const adam_task_t *t, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i++) {
    double p = ref_get(&t->param, i);
    double g = ref_get(&t->grad, i) + t->weight_decay * p;
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

static void run(void *args) {
  adam_task_t *t = args;
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

REF_EXPORT diopiError_t
diopiAdam(diopiContextHandle_t ctx, diopiTensorHandle_t param,
          diopiConstTensorHandle_t grad, diopiTensorHandle_t exp_avg,
          diopiTensorHandle_t exp_avg_sq, diopiTensorHandle_t max_exp_avg_sq,
          float lr, float beta1, float beta2, float eps, float weight_decay,
          int64_t step, bool amsgrad) {
  const char *op = "diopiAdam";
  adam_task_t t;
  memset(&t, 0, sizeof t);
  t.amsgrad = amsgrad;
  diopiError_t err = ref_view(ctx, op, "param", param, &t.param);
  if (!err)
    err = ref_expect_kind(op, "param", &t.param, REF_OUT_FLOATING);
  if (!err)
    err = state(ctx, op, "grad", grad, &t.grad, &t.param);
  if (!err)
    err = state(ctx, op, "exp_avg", exp_avg, &t.m, &t.param);
  if (!err)
    err = state(ctx, op, "exp_avg_sq", exp_avg_sq, &t.v, &t.param);
  if (!err && amsgrad)
    err = state(ctx, op, "max_exp_avg_sq", max_exp_avg_sq, &t.vmax, &t.param);
  if (!err && step < 1)
    err = ref_fail(op, "step: expected >= 1, got %lld", (long long)step);
  if (!err && !(beta1 >= 0 && beta1 < 1))
    err = ref_fail(op, "beta1: expected in [0, 1), got %g", (double)beta1);
  if (!err && !(beta2 >= 0 && beta2 < 1))
    err = ref_fail(op, "beta2: expected in [0, 1), got %g", (double)beta2);
  if (err)
    return err;
  t.lr = lr;
  t.beta1 = beta1;
  t.beta2 = beta2;
  t.eps = eps;
  t.weight_decay = weight_decay;
  t.step_size = lr / (1.0 - pow(beta1, (double)step));
  t.correction2_sqrt = sqrt(1.0 - pow(beta2, (double)step));
  t.f32 = !amsgrad && ref_f32_contiguous(&t.param) &&
          ref_f32_contiguous(&t.grad) && ref_f32_contiguous(&t.m) &&
          ref_f32_contiguous(&t.v);
  if (t.param.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
