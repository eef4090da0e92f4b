/* adagrad step in place, as torch.optim.Adagrad defines it: an extension
 * op (DIOPI 1.0 declares none). With clr = lr / (1 + (step - 1) lr_decay)
 * and g = grad + weight_decay * param: state_sum += g^2; param -= clr * g /
 * (sqrt(state_sum) + eps). Each element reads and writes its state in
 * double; contiguous float32 tensors take a float loop. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct adagrad_step {
  ref_view_t param, grad, state_sum;
  double clr, eps, weight_decay;
  bool all_f32;
} adagrad_step_t;

static void run_range(void *context, int64_t begin, int64_t end) {
  const adagrad_step_t *t = context;
  if (t->all_f32) {
    float *p = (float *)t->param.data, *sum = (float *)t->state_sum.data;
    const float *g = (const float *)t->grad.data;
    float clr = (float)t->clr, eps = (float)t->eps,
          decay = (float)t->weight_decay;
    for (int64_t i = begin; i < end; i++) {
      float d = g[i] + decay * p[i];
      float s = sum[i] + d * d;
      sum[i] = s;
      p[i] -= clr * d / (sqrtf(s) + eps);
    }
    return;
  }
  for (int64_t i = begin; i < end; i++) {
    double p = ref_get(&t->param, i);
    double g = ref_get(&t->grad, i) + t->weight_decay * p;
    double s = ref_get(&t->state_sum, i) + g * g;
    ref_set(&t->state_sum, i, s);
    ref_set(&t->param, i, p - t->clr * g / (sqrt(s) + t->eps));
  }
}

static void run(void *args) {
  adagrad_step_t *t = args;
  ref_parallel_for(t->param.numel, 1 << 14, run_range, t);
}

REF_EXPORT diopiError_t diopiAdagrad(diopiContextHandle_t ctx,
                                     diopiTensorHandle_t param,
                                     diopiConstTensorHandle_t grad,
                                     diopiTensorHandle_t state_sum, float lr,
                                     float lr_decay, float weight_decay,
                                     float eps, int64_t step) {
  const char *op = "diopiAdagrad";
  adagrad_step_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_view(ctx, op, "param", param, &t.param);
  if (!err)
    err = ref_expect_kind(op, "param", &t.param, REF_OUT_FLOATING);
  if (!err)
    err = ref_view(ctx, op, "grad", grad, &t.grad);
  if (!err)
    err = ref_expect_shape(op, "grad", &t.grad, t.param.shape, t.param.ndim);
  if (!err)
    err = ref_view(ctx, op, "state_sum", state_sum, &t.state_sum);
  if (!err)
    err = ref_expect_shape(op, "state_sum", &t.state_sum, t.param.shape,
                           t.param.ndim);
  if (!err)
    err = ref_expect_kind(op, "state_sum", &t.state_sum, REF_OUT_FLOATING);
  if (!err)
    err =
        ref_expect_no_partial_overlap(op, "state_sum", &t.param, &t.state_sum);
  if (!err && !(lr >= 0))
    err = ref_fail(op, "lr: expected >= 0, got %g", lr);
  if (!err && !(lr_decay >= 0))
    err = ref_fail(op, "lr_decay: expected >= 0, got %g", lr_decay);
  if (!err && !(eps >= 0))
    err = ref_fail(op, "eps: expected >= 0, got %g", eps);
  if (!err && step < 1)
    err = ref_fail(op, "step: expected >= 1 (the step being taken), got %lld",
                   (long long)step);
  if (err || t.param.numel == 0)
    return err;
  t.clr = lr / (1.0 + (double)(step - 1) * lr_decay);
  t.eps = eps;
  t.weight_decay = weight_decay;
  t.all_f32 = ref_f32_contiguous(&t.param) && ref_f32_contiguous(&t.grad) &&
              ref_f32_contiguous(&t.state_sum);
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
