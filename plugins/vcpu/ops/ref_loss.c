/* nll_loss and cross_entropy (class-index targets, optional class weights,
 * ignore_index, label smoothing) over input [N, C] or [C], and their
 * backwards. cross_entropy = nll_loss(log_softmax(input)) computed in one
 * pass per sample. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_tensor.h"

typedef struct loss_task {
  ref_view_t out, input, target, weight, grad_output;
  bool has_weight, backward, from_logits;
  int64_t n, c, ignore_index;
  diopiReduction_t reduction;
  double smoothing;
} loss_task_t;

static double weight_of(const loss_task_t *t, int64_t cls) {
  return t->has_weight ? ref_get(&t->weight, cls) : 1.0;
}

/* log-probabilities of sample i into lp[c] (from logits: log_softmax). */
static void log_probs(const loss_task_t *t, int64_t i, double *lp) {
  double max = -INFINITY, sum = 0;
  for (int64_t k = 0; k < t->c; k++) {
    lp[k] = ref_get(&t->input, i * t->c + k);
    max = lp[k] > max ? lp[k] : max;
  }
  if (!t->from_logits)
    return;
  for (int64_t k = 0; k < t->c; k++)
    sum += exp(lp[k] - max);
  double log_sum = max + log(sum);
  for (int64_t k = 0; k < t->c; k++)
    lp[k] -= log_sum;
}

/* PyTorch's normalizer for mean: the summed weights of counted samples. */
static double total_weight(const loss_task_t *t) {
  double total = 0;
  for (int64_t i = 0; i < t->n; i++) {
    int64_t y = (int64_t)ref_get(&t->target, i);
    if (y != t->ignore_index && y >= 0 && y < t->c)
      total += weight_of(t, y);
  }
  return total;
}

/* A class index outside [0, C): the sample's results are NaN (the target
 * is only readable on the stream, after the op was accepted). */
static void bad_sample(const loss_task_t *t, int64_t i) {
  if (t->backward)
    for (int64_t k = 0; k < t->c; k++)
      ref_set(&t->out, i * t->c + k, NAN);
  else
    ref_set(&t->out, i, NAN);
}

static void run(void *args) {
  loss_task_t *t = args;
  double lp[t->c > 0 ? t->c : 1];
  double total = t->reduction == ReductionMean ? total_weight(t) : 1.0;
  double eps = t->smoothing, sum = 0;
  double go_all = t->backward && t->reduction != ReductionNone
                      ? ref_get(&t->grad_output, 0)
                      : 0;
  for (int64_t i = 0; i < t->n; i++) {
    int64_t y = (int64_t)ref_get(&t->target, i);
    bool ignored = y == t->ignore_index;
    if (!ignored && (y < 0 || y >= t->c)) {
      if (!t->backward && t->reduction != ReductionNone)
        sum = NAN;
      else
        bad_sample(t, i);
      continue;
    }
    log_probs(t, i, lp);
    double w = ignored ? 0 : weight_of(t, y);
    if (!t->backward) {
      double loss = ignored ? 0 : -(1 - eps) * w * lp[y];
      if (eps > 0 && !ignored)
        for (int64_t k = 0; k < t->c; k++)
          loss -= eps / (double)t->c * weight_of(t, k) * lp[k];
      if (t->reduction == ReductionNone)
        ref_set(&t->out, i, loss);
      else
        sum += loss;
      continue;
    }
    double go = t->reduction == ReductionNone ? ref_get(&t->grad_output, i)
                                              : go_all / total;
    double target_sum = (1 - eps) * w;
    for (int64_t k = 0; eps > 0 && k < t->c; k++)
      target_sum += eps / (double)t->c * weight_of(t, k);
    for (int64_t k = 0; k < t->c; k++) {
      /* d/dz_k of -sum_j target_j lp_j; through log_softmax when from
       * logits. */
      double target_k = (1 - eps) * w * (k == y) +
                        (eps > 0 ? eps / (double)t->c * weight_of(t, k) : 0);
      double g = ignored          ? 0
                 : t->from_logits ? exp(lp[k]) * target_sum - target_k
                                  : -target_k;
      ref_set(&t->out, i * t->c + k, g * go);
    }
  }
  if (!t->backward && t->reduction != ReductionNone)
    ref_set(&t->out, 0, t->reduction == ReductionMean ? sum / total : sum);
}

static diopiError_t
launch(diopiContextHandle_t ctx, const char *op, diopiConstTensorHandle_t out,
       diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
       diopiConstTensorHandle_t target, diopiConstTensorHandle_t weight,
       diopiReduction_t reduction, int64_t ignore_index, double smoothing,
       bool from_logits) {
  loss_task_t t;
  memset(&t, 0, sizeof t);
  t.backward = grad_output != NULL;
  t.from_logits = from_logits;
  t.reduction = reduction;
  t.ignore_index = ignore_index;
  t.smoothing = smoothing;
  diopiError_t err =
      ref_view(op, t.backward ? "grad_input" : "out", out, &t.out);
  if (!err)
    err = ref_view(op, "input", input, &t.input);
  if (!err)
    err = ref_view(op, "target", target, &t.target);
  if (!err)
    err = ref_view_optional(op, "weight", weight, &t.weight, &t.has_weight);
  if (!err && t.backward)
    err = ref_view(op, "grad_output", grad_output, &t.grad_output);
  if (err)
    return err;
  if (reduction < ReductionNone || reduction >= ReductionEND)
    return ref_fail(op, "reduction: %d is not a diopiReduction_t",
                    (int)reduction);
  if (t.input.ndim != 2 && t.input.ndim != 1)
    return ref_fail(op, "input: expected [N, C] or [C], got %d dims",
                    t.input.ndim);
  t.n = t.input.ndim == 2 ? t.input.shape[0] : 1;
  t.c = t.input.shape[t.input.ndim - 1];
  int64_t n_shape[1] = {t.n};
  if ((err = ref_expect_shape(op, "target", &t.target, n_shape,
                              t.input.ndim - 1)) ||
      (t.has_weight &&
       (err = ref_expect_shape(op, "weight", &t.weight, &t.c, 1))))
    return err;
  if (t.backward)
    err =
        ref_expect_shape(op, "grad_input", &t.out, t.input.shape, t.input.ndim);
  else if (reduction == ReductionNone)
    err = ref_expect_shape(op, "out", &t.out, n_shape, t.input.ndim - 1);
  else
    err = ref_expect_shape(op, "out", &t.out, NULL, 0);
  if (err)
    return err;
  if (t.backward && reduction == ReductionNone &&
      (err = ref_expect_shape(op, "grad_output", &t.grad_output, n_shape,
                              t.input.ndim - 1)))
    return err;
  return ref_enqueue(ctx, op, run, &t, sizeof t);
}

#define CTX diopiContextHandle_t ctx
#define T diopiTensorHandle_t
#define CT diopiConstTensorHandle_t

REF_EXPORT diopiError_t diopiNLLLoss(CTX, T out, CT input, CT target, CT weight,
                                     diopiReduction_t reduction,
                                     int64_t ignore_index) {
  return launch(ctx, "diopiNLLLoss", out, NULL, input, target, weight,
                reduction, ignore_index, 0, false);
}
REF_EXPORT diopiError_t diopiNLLLossBackward(CTX, T grad_input, CT grad_output,
                                             CT input, CT target, CT weight,
                                             diopiReduction_t reduction,
                                             int64_t ignore_index) {
  return launch(ctx, "diopiNLLLossBackward", grad_input, grad_output, input,
                target, weight, reduction, ignore_index, 0, false);
}
REF_EXPORT diopiError_t diopiCrossEntropyLoss(CTX, T out, CT input, CT target,
                                              CT weight,
                                              diopiReduction_t reduction,
                                              int64_t ignore_index,
                                              double label_smoothing) {
  return launch(ctx, "diopiCrossEntropyLoss", out, NULL, input, target, weight,
                reduction, ignore_index, label_smoothing, true);
}
REF_EXPORT diopiError_t diopiCrossEntropyLossBackward(
    CTX, T grad_input, CT grad_output, CT input, CT target, CT weight,
    diopiReduction_t reduction, int64_t ignore_index, double label_smoothing) {
  return launch(ctx, "diopiCrossEntropyLossBackward", grad_input, grad_output,
                input, target, weight, reduction, ignore_index, label_smoothing,
                true);
}
