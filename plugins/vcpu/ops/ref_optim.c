/* Optimizer steps, in place: sgd (momentum, dampening, weight decay,
 * nesterov) and adamw (decoupled weight decay, amsgrad), as PyTorch's
 * torch.optim defines them. `step` is the 1-based step count. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_pool.h"
#include "ref_tensor.h"

typedef struct optim_task {
  ref_view_t param, grad, m, v, vmax; /* sgd: m is the momentum buffer */
  bool adamw, has_m, amsgrad;
  double lr, beta1, beta2, eps, weight_decay, momentum, dampening;
  bool nesterov;
  int64_t step;
} optim_task_t;

static void adamw_f32(const optim_task_t *t, int64_t begin, int64_t end) {
  float *p = (float *)t->param.data, *g = (float *)t->grad.data,
        *m = (float *)t->m.data, *v = (float *)t->v.data;
  float lr = (float)t->lr, b1 = (float)t->beta1, b2 = (float)t->beta2,
        eps = (float)t->eps, decay = (float)(1.0 - t->lr * t->weight_decay);
  float c1 = (float)(1.0 - pow(t->beta1, (double)t->step));
  float c2 = (float)sqrt(1.0 - pow(t->beta2, (double)t->step));
  float step_size = lr / c1;
  for (int64_t i = begin; i < end; i++) {
    p[i] *= decay;
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    p[i] -= step_size * m[i] / (sqrtf(v[i]) / c2 + eps);
  }
}

static void adamw_generic(const optim_task_t *t, int64_t i) {
  double p = ref_get(&t->param, i), g = ref_get(&t->grad, i);
  double m = ref_get(&t->m, i), v = ref_get(&t->v, i);
  p *= 1.0 - t->lr * t->weight_decay;
  m = t->beta1 * m + (1 - t->beta1) * g;
  v = t->beta2 * v + (1 - t->beta2) * g * g;
  double denom_v = v;
  if (t->amsgrad) {
    double vmax = ref_get(&t->vmax, i);
    vmax = vmax > v ? vmax : v;
    ref_set(&t->vmax, i, vmax);
    denom_v = vmax;
  }
  double c1 = 1.0 - pow(t->beta1, (double)t->step);
  double c2 = 1.0 - pow(t->beta2, (double)t->step);
  p -= t->lr / c1 * m / (sqrt(denom_v) / sqrt(c2) + t->eps);
  ref_set(&t->param, i, p);
  ref_set(&t->m, i, m);
  ref_set(&t->v, i, v);
}

static void sgd_one(const optim_task_t *t, int64_t i) {
  double p = ref_get(&t->param, i), g = ref_get(&t->grad, i);
  g += t->weight_decay * p;
  if (t->momentum != 0) {
    double b = g; /* no buffer: the first step's, as torch.optim.SGD */
    if (t->has_m) {
      b = t->momentum * ref_get(&t->m, i) + (1 - t->dampening) * g;
      ref_set(&t->m, i, b);
    }
    g = t->nesterov ? g + t->momentum * b : b;
  }
  ref_set(&t->param, i, p - t->lr * g);
}

/* sgd_one over float32 contiguous tensors, in float. */
static void sgd_f32(const optim_task_t *t, int64_t begin, int64_t end) {
  float *p = (float *)t->param.data, *b = (float *)t->m.data;
  const float *g = (const float *)t->grad.data;
  float lr = (float)t->lr, decay = (float)t->weight_decay,
        mom = (float)t->momentum, damp = (float)(1.0 - t->dampening);
  if (mom == 0.0f || !t->has_m) {
    for (int64_t i = begin; i < end; i++) {
      float d = g[i] + decay * p[i];
      p[i] -= lr * (mom != 0.0f && t->nesterov ? d + mom * d : d);
    }
    return;
  }
  for (int64_t i = begin; i < end; i++) {
    float d = g[i] + decay * p[i];
    float buf = mom * b[i] + damp * d;
    b[i] = buf;
    p[i] -= lr * (t->nesterov ? d + mom * buf : buf);
  }
}

static bool all_f32(const optim_task_t *t) {
  const ref_view_t *v[4] = {&t->param, &t->grad, &t->m, &t->v};
  int n = t->adamw ? 4 : t->has_m ? 3 : 2;
  for (int k = 0; k < n; k++)
    if (v[k]->dtype != diopi_dtype_float32 || !ref_contiguous(v[k]))
      return false;
  return !t->amsgrad;
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const optim_task_t *t = context;
  if (all_f32(t)) {
    if (t->adamw)
      adamw_f32(t, begin, end);
    else
      sgd_f32(t, begin, end);
    return;
  }
  for (int64_t i = begin; i < end; i++) {
    if (t->adamw)
      adamw_generic(t, i);
    else
      sgd_one(t, i);
  }
}

static void run(void *args) {
  optim_task_t *t = args;
  ref_parallel_for(t->param.numel, 1 << 15, run_range, t);
}

static diopiError_t same_shape(diopiContextHandle_t ctx, const char *op,
                               const char *arg, diopiConstTensorHandle_t h,
                               ref_view_t *v, const ref_view_t *param) {
  diopiError_t err = ref_view(ctx, op, arg, h, v);
  return err ? err : ref_expect_shape(op, arg, v, param->shape, param->ndim);
}

REF_EXPORT diopiError_t
diopiAdamW(diopiContextHandle_t ctx, diopiTensorHandle_t param,
           diopiConstTensorHandle_t grad, diopiTensorHandle_t exp_avg,
           diopiTensorHandle_t exp_avg_sq, diopiTensorHandle_t max_exp_avg_sq,
           float lr, float beta1, float beta2, float eps, float weight_decay,
           int64_t step, bool amsgrad) {
  const char *op = "diopiAdamW";
  optim_task_t t;
  memset(&t, 0, sizeof t);
  t.adamw = true;
  t.amsgrad = amsgrad;
  diopiError_t err = ref_view(ctx, op, "param", param, &t.param);
  if (!err)
    err = same_shape(ctx, op, "grad", grad, &t.grad, &t.param);
  if (!err)
    err = same_shape(ctx, op, "exp_avg", exp_avg, &t.m, &t.param);
  if (!err)
    err = same_shape(ctx, op, "exp_avg_sq", exp_avg_sq, &t.v, &t.param);
  if (!err && amsgrad)
    err = same_shape(ctx, op, "max_exp_avg_sq", max_exp_avg_sq, &t.vmax,
                     &t.param);
  if (!err && step < 1)
    err = ref_fail(op, "step: expected >= 1, got %lld", (long long)step);
  if (err)
    return err;
  t.lr = lr;
  t.beta1 = beta1;
  t.beta2 = beta2;
  t.eps = eps;
  t.weight_decay = weight_decay;
  t.step = step;
  if (t.param.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

/* sgd: with momentum and a buffer, buf = momentum * buf + (1 - dampening) *
 * (grad + weight_decay * param), every step (the caller initializes buf);
 * with momentum and no buffer (NULL), the step is a first step's, whose
 * buffer is the gradient itself (DIOPI's contract, torch.optim.SGD's first
 * step): nesterov then steps by grad + momentum * grad. */
REF_EXPORT diopiError_t diopiSgd(diopiContextHandle_t ctx,
                                 diopiTensorHandle_t param,
                                 diopiTensorHandle_t grad,
                                 diopiTensorHandle_t buf, double lr,
                                 double momentum, double dampening,
                                 double weight_decay, bool nesterov) {
  const char *op = "diopiSgd";
  optim_task_t t;
  memset(&t, 0, sizeof t);
  diopiError_t err = ref_view(ctx, op, "param", param, &t.param);
  if (!err)
    err = same_shape(ctx, op, "grad", grad, &t.grad, &t.param);
  t.has_m = buf != NULL;
  if (!err && buf)
    err = same_shape(ctx, op, "buf", buf, &t.m, &t.param);
  if (err)
    return err;
  t.lr = lr;
  t.momentum = momentum;
  t.dampening = dampening;
  t.weight_decay = weight_decay;
  t.nesterov = nesterov;
  if (t.param.numel == 0)
    return diopiSuccess;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}
