/* rmsprop (centered, momentum) and adadelta steps, in place, as
 * torch.optim defines them, L2 weight decay added to the gradient. Each
 * element's update reads and writes its state in double. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"

enum { STATE_MAX = 3 };

typedef struct optim_step {
  ref_view_t param, grad, state[STATE_MAX];
  bool has_state[STATE_MAX];
  bool adadelta;
  double lr, rho, eps, weight_decay, momentum;
  bool centered;
} optim_step_t;

/* rmsprop state: square_avg, grad_avg (centered), momentum_buf. */
static void rmsprop_one(const optim_step_t *t, int64_t i) {
  double p = ref_get(&t->param, i);
  double g = ref_get(&t->grad, i) + t->weight_decay * p;
  double sq = t->rho * ref_get(&t->state[0], i) + (1 - t->rho) * g * g;
  ref_set(&t->state[0], i, sq);
  double avg = sq;
  if (t->centered) {
    double ga = t->rho * ref_get(&t->state[1], i) + (1 - t->rho) * g;
    ref_set(&t->state[1], i, ga);
    avg -= ga * ga;
  }
  avg = sqrt(avg) + t->eps;
  if (t->momentum > 0) {
    double buf = t->momentum * ref_get(&t->state[2], i) + g / avg;
    ref_set(&t->state[2], i, buf);
    p -= t->lr * buf;
  } else {
    p -= t->lr * g / avg;
  }
  ref_set(&t->param, i, p);
}

/* adadelta state: square_avg, acc_delta. */
static void adadelta_one(const optim_step_t *t, int64_t i) {
  double p = ref_get(&t->param, i);
  double g = ref_get(&t->grad, i) + t->weight_decay * p;
  double sq = t->rho * ref_get(&t->state[0], i) + (1 - t->rho) * g * g;
  double acc = ref_get(&t->state[1], i);
  double delta = sqrt(acc + t->eps) / sqrt(sq + t->eps) * g;
  ref_set(&t->state[0], i, sq);
  ref_set(&t->state[1], i, t->rho * acc + (1 - t->rho) * delta * delta);
  ref_set(&t->param, i, p - t->lr * delta);
}

/* rmsprop_one over float32 contiguous tensors, in float. */
static void rmsprop_f32(const optim_step_t *t, int64_t begin, int64_t end) {
  float *p = (float *)t->param.data, *sq = (float *)t->state[0].data,
        *ga = (float *)t->state[1].data, *buf = (float *)t->state[2].data;
  const float *g = (const float *)t->grad.data;
  float rho = (float)t->rho, lr = (float)t->lr, eps = (float)t->eps,
        decay = (float)t->weight_decay, mom = (float)t->momentum;
  for (int64_t i = begin; i < end; i++) {
    float d = g[i] + decay * p[i];
    float s = rho * sq[i] + (1.0f - rho) * d * d;
    sq[i] = s;
    if (t->centered) {
      float a = rho * ga[i] + (1.0f - rho) * d;
      ga[i] = a;
      s -= a * a;
    }
    float step = d / (sqrtf(s) + eps);
    if (mom > 0.0f) {
      step += mom * buf[i];
      buf[i] = step;
    }
    p[i] -= lr * step;
  }
}

/* Whether rmsprop's tensors in use are all float32 and contiguous. */
static bool rmsprop_all_f32(const optim_step_t *t) {
  if (t->adadelta || !ref_f32_contiguous(&t->param) ||
      !ref_f32_contiguous(&t->grad) || !ref_f32_contiguous(&t->state[0]) ||
      (t->centered && !ref_f32_contiguous(&t->state[1])))
    return false;
  return !(t->momentum > 0) || ref_f32_contiguous(&t->state[2]);
}

static void run_range(void *context, int64_t begin, int64_t end) {
  const optim_step_t *t = context;
  if (rmsprop_all_f32(t)) {
    rmsprop_f32(t, begin, end);
    return;
  }
  for (int64_t i = begin; i < end; i++) {
    if (t->adadelta)
      adadelta_one(t, i);
    else
      rmsprop_one(t, i);
  }
}

static void run(void *args) {
  optim_step_t *t = args;
  ref_parallel_for(t->param.numel, 1 << 14, run_range, t);
}

/* Views param, grad and the state tensors named in `names` (NULL: not
 * used by this step), each floating and of param's shape, and enqueues. */
static diopiError_t launch(diopiContextHandle_t ctx, const char *op,
                           optim_step_t *t, diopiConstTensorHandle_t param,
                           diopiConstTensorHandle_t grad,
                           const diopiConstTensorHandle_t *state,
                           const char *const *names) {
  diopiError_t err = ref_view(ctx, op, "param", param, &t->param);
  if (!err)
    err = ref_expect_kind(op, "param", &t->param, REF_OUT_FLOATING);
  if (!err)
    err = ref_view(ctx, op, "grad", grad, &t->grad);
  if (!err)
    err = ref_expect_shape(op, "grad", &t->grad, t->param.shape, t->param.ndim);
  for (int k = 0; !err && k < STATE_MAX; k++) {
    if (!names[k])
      continue;
    t->has_state[k] = true;
    err = ref_view(ctx, op, names[k], state[k], &t->state[k]);
    if (!err)
      err = ref_expect_shape(op, names[k], &t->state[k], t->param.shape,
                             t->param.ndim);
    if (!err)
      err = ref_expect_kind(op, names[k], &t->state[k], REF_OUT_FLOATING);
  }
  if (!err && !(t->lr >= 0))
    err = ref_fail(op, "lr: expected >= 0, got %g", t->lr);
  if (!err && !(t->eps >= 0))
    err = ref_fail(op, "eps: expected >= 0, got %g", t->eps);
  if (err || t->param.numel == 0)
    return err;
  return ref_enqueue(ctx, op, run, t, sizeof *t);
}

REF_EXPORT diopiError_t diopiRmsprop(
    diopiContextHandle_t ctx, diopiTensorHandle_t param,
    diopiConstTensorHandle_t grad, diopiTensorHandle_t square_avg,
    diopiTensorHandle_t grad_avg, diopiTensorHandle_t momentum_buf, float lr,
    float alpha, float eps, float weight_decay, float momentum, bool centered) {
  optim_step_t t;
  memset(&t, 0, sizeof t);
  t.lr = lr;
  t.rho = alpha;
  t.eps = eps;
  t.weight_decay = weight_decay;
  t.momentum = momentum;
  t.centered = centered;
  diopiConstTensorHandle_t state[STATE_MAX] = {square_avg, grad_avg,
                                               momentum_buf};
  const char *names[STATE_MAX] = {"square_avg", centered ? "grad_avg" : NULL,
                                  momentum > 0 ? "momentum_buf" : NULL};
  return launch(ctx, "diopiRmsprop", &t, param, grad, state, names);
}

REF_EXPORT diopiError_t diopiAdadelta(diopiContextHandle_t ctx,
                                      diopiTensorHandle_t param,
                                      diopiConstTensorHandle_t grad,
                                      diopiTensorHandle_t square_avg,
                                      diopiTensorHandle_t acc_delta, float lr,
                                      float rho, float eps,
                                      float weight_decay) {
  optim_step_t t;
  memset(&t, 0, sizeof t);
  t.adadelta = true;
  t.lr = lr;
  t.rho = rho;
  t.eps = eps;
  t.weight_decay = weight_decay;
  diopiConstTensorHandle_t state[STATE_MAX] = {square_avg, acc_delta};
  const char *names[STATE_MAX] = {"square_avg", "acc_delta", NULL};
  return launch(ctx, "diopiAdadelta", &t, param, grad, state, names);
}
