/* nll_loss and cross_entropy (class-index targets, optional class weights,
 * ignore_index, label smoothing; cross_entropy also class-probability
 * targets shaped as input) over input [N, C, d1, ...] or [C], and their
 * backwards. cross_entropy = nll_loss(log_softmax(input)) computed in one
 * pass per sample. A class-index target outside [0, C) that is not
 * ignore_index is an error, as in PyTorch: checked on the stream before the
 * work runs, it skips the work and leaves a sticky stream error naming the
 * op (ref_enqueue_checked). */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_f32.h"
#include "ref_pool.h"
#include "ref_tensor.h"

enum { PARTS = 64 }; /* the fast forward's partial sums, one per chunk */

typedef struct loss_task {
  ref_view_t out, input, target, weight, grad_output;
  bool has_weight, backward, from_logits;
  bool probabilities; /* cross_entropy: target holds class probabilities */
  /* input [N, C, d1, ...] (or [C]): m = N * S samples, S = d1 * ..., each a
   * C-vector of stride S. */
  int64_t n, c, s, m, ignore_index;
  diopiReduction_t reduction;
  double smoothing;
  const char *op;                    /* for the target check's message */
  double parts[PARTS], norms[PARTS]; /* the fast forward's partial sums */
} loss_task_t;

static double weight_of(const loss_task_t *t, int64_t cls) {
  return t->has_weight ? ref_get(&t->weight, cls) : 1.0;
}

/* The linear index in input (and grad_input) of class k of sample i. */
static int64_t at(const loss_task_t *t, int64_t i, int64_t k) {
  return (i / t->s * t->c + k) * t->s + i % t->s;
}

/* log-probabilities of sample i into lp[c] (from logits: log_softmax). */
static void log_probs(const loss_task_t *t, int64_t i, double *lp) {
  double max = -INFINITY, sum = 0;
  for (int64_t k = 0; k < t->c; k++) {
    lp[k] = ref_get(&t->input, at(t, i, k));
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

/* Sample i's target distribution, weights and smoothing folded in (the loss
 * is -sum_k target[k] * lp[k]); false when the sample is ignored. Its share
 * of mean's normalizer goes to *norm: the class weight of a class-index
 * target (PyTorch's), 1 for a probability target. */
static bool target_of(const loss_task_t *t, int64_t i, double *target,
                      double *norm) {
  double eps = t->smoothing, spread = eps / (double)t->c;
  if (t->probabilities) {
    for (int64_t k = 0; k < t->c; k++)
      target[k] = weight_of(t, k) *
                  ((1 - eps) * ref_get(&t->target, at(t, i, k)) + spread);
    *norm = 1;
    return true;
  }
  int64_t y = ref_get_int(&t->target, i);
  if (y == t->ignore_index || y < 0 || y >= t->c) /* range checked at call */
    return false;
  for (int64_t k = 0; k < t->c; k++)
    target[k] = spread * weight_of(t, k);
  target[y] += (1 - eps) * weight_of(t, y);
  *norm = weight_of(t, y);
  return true;
}

/* The forward of class-index targets without smoothing: sample i's loss is
 * -w[y] lp[y], lp from one log-sum-exp over its classes when from logits
 * (in float through the vectorizable exp for contiguous float32 rows). */
static double sample_loss(const loss_task_t *t, int64_t i, float *row,
                          double *norm) {
  int64_t y = ref_get_int(&t->target, i);
  *norm = 0;
  if (y == t->ignore_index || y < 0 || y >= t->c)
    return 0;
  double w = weight_of(t, y), lp = ref_get(&t->input, at(t, i, y));
  if (t->from_logits) {
    double log_sum;
    if (t->s == 1 && ref_f32_contiguous(&t->input)) {
      const float *x = (const float *)t->input.data + i * t->c;
      float max = ref_f32_max(x, t->c);
      ref_f32_exp(row, x, t->c, max);
      log_sum = max + log(ref_f32_sum(row, t->c));
    } else {
      double max = -INFINITY, sum = 0;
      for (int64_t k = 0; k < t->c; k++) {
        double v = ref_get(&t->input, at(t, i, k));
        max = v > max ? v : max;
      }
      for (int64_t k = 0; k < t->c; k++)
        sum += exp(ref_get(&t->input, at(t, i, k)) - max);
      log_sum = max + log(sum);
    }
    lp -= log_sum;
  }
  *norm = w;
  return -w * lp;
}

/* nll_loss of samples [lo, hi) over contiguous float32 log-probabilities,
 * int64 targets and float32 weights (or none): sample_loss's sums, with the
 * sample's (batch, position) stepped instead of divided out per sample. */
static void nll_f32_range(const loss_task_t *t, int64_t lo, int64_t hi,
                          double *sum, double *norms) {
  const float *x = (const float *)t->input.data;
  const float *w = t->has_weight ? (const float *)t->weight.data : NULL;
  const int64_t *y = (const int64_t *)t->target.data;
  int64_t batch = lo / t->s, at = lo % t->s;
  double total = 0, weights = 0;
  for (int64_t i = lo; i < hi; i++) {
    int64_t cls = y[i];
    double loss = 0, weight = 0;
    if (cls != t->ignore_index && cls >= 0 && cls < t->c) {
      weight = w ? (double)w[cls] : 1.0;
      loss = -weight * (double)x[(batch * t->c + cls) * t->s + at];
    }
    if (t->reduction == ReductionNone)
      ref_set(&t->out, i, loss);
    total += loss;
    weights += weight;
    if (++at == t->s) {
      at = 0;
      batch++;
    }
  }
  *sum = total;
  *norms = weights;
}

static bool nll_f32(const loss_task_t *t) {
  return !t->from_logits && ref_f32_contiguous(&t->input) &&
         ref_contiguous(&t->target) && t->target.dtype == diopi_dtype_int64 &&
         (!t->has_weight || ref_f32_contiguous(&t->weight));
}

static void forward_parts(void *context, int64_t begin, int64_t end) {
  loss_task_t *t = context;
  float row[t->c > 0 ? t->c : 1];
  for (int64_t part = begin; part < end; part++) {
    int64_t lo = t->m * part / PARTS, hi = t->m * (part + 1) / PARTS;
    double sum = 0, norms = 0, norm;
    if (nll_f32(t)) {
      nll_f32_range(t, lo, hi, &t->parts[part], &t->norms[part]);
      continue;
    }
    for (int64_t i = lo; i < hi; i++) {
      double loss = sample_loss(t, i, row, &norm);
      if (t->reduction == ReductionNone)
        ref_set(&t->out, i, loss);
      sum += loss;
      norms += norm;
    }
    t->parts[part] = sum;
    t->norms[part] = norms;
  }
}

static void forward_fast(loss_task_t *t) {
  /* Work to share: every class of a sample from logits, else one each. */
  int64_t work = t->from_logits ? t->m * t->c : t->m;
  ref_parallel_for(PARTS, work >= (1 << 15) ? 1 : PARTS, forward_parts, t);
  if (t->reduction == ReductionNone)
    return;
  double sum = 0, norms = 0;
  for (int part = 0; part < PARTS; part++) {
    sum += t->parts[part];
    norms += t->norms[part];
  }
  ref_set(&t->out, 0, t->reduction == ReductionMean ? sum / norms : sum);
}

static void run(void *args) {
  loss_task_t *t = args;
  if (!t->backward && !t->probabilities && t->smoothing == 0) {
    forward_fast(t);
    return;
  }
  int64_t c = t->c > 0 ? t->c : 1;
  double lp[c], target[c];
  double total = 0, sum = 0, norm;
  for (int64_t i = 0; i < t->m; i++)
    if (t->reduction == ReductionMean && target_of(t, i, target, &norm))
      total += norm;
  if (t->reduction != ReductionMean)
    total = 1;
  double go_all = t->backward && t->reduction != ReductionNone
                      ? ref_get(&t->grad_output, 0)
                      : 0;
  for (int64_t i = 0; i < t->m; i++) {
    bool counted = target_of(t, i, target, &norm);
    if (!t->backward) {
      double loss = 0;
      if (counted) {
        log_probs(t, i, lp);
        for (int64_t k = 0; k < t->c; k++)
          loss -= target[k] * lp[k];
      }
      if (t->reduction == ReductionNone)
        ref_set(&t->out, i, loss);
      else
        sum += loss;
      continue;
    }
    double go = t->reduction == ReductionNone ? ref_get(&t->grad_output, i)
                                              : go_all / total;
    double target_sum = 0;
    if (counted) {
      log_probs(t, i, lp);
      for (int64_t k = 0; k < t->c; k++)
        target_sum += target[k];
    }
    for (int64_t k = 0; k < t->c; k++) {
      /* d/dz_k of -sum_j target_j lp_j; through log_softmax when from
       * logits. */
      double g = !counted         ? 0
                 : t->from_logits ? exp(lp[k]) * target_sum - target[k]
                                  : -target[k];
      ref_set(&t->out, at(t, i, k), g * go);
    }
  }
  if (!t->backward && t->reduction != ReductionNone)
    ref_set(&t->out, 0, sum / total);
}

/* Class-index targets: an integer dtype (checked now); their values are
 * checked on the stream (check_target_values). */
static diopiError_t expect_class_target_dtype(const char *op,
                                              const loss_task_t *t) {
  if (t->target.dtype == diopi_dtype_int64 ||
      t->target.dtype == diopi_dtype_int32)
    return diopiSuccess;
  return ref_fail(op,
                  "target: dtype %d, expected class indices (int64 or "
                  "int32)%s",
                  (int)t->target.dtype,
                  t->from_logits ? " or class probabilities shaped as input"
                                 : "");
}

static diopiError_t check_target_values(const void *args) {
  const loss_task_t *t = args;
  return ref_expect_indices_below(t->op, "target", &t->target, t->c, true,
                                  t->ignore_index);
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
      ref_view(ctx, op, t.backward ? "grad_input" : "out", out, &t.out);
  if (!err)
    err = ref_view(ctx, op, "input", input, &t.input);
  if (!err)
    err = ref_view(ctx, op, "target", target, &t.target);
  if (!err)
    err =
        ref_view_optional(ctx, op, "weight", weight, &t.weight, &t.has_weight);
  if (!err && t.backward)
    err = ref_view(ctx, op, "grad_output", grad_output, &t.grad_output);
  if (err)
    return err;
  if (reduction < ReductionNone || reduction >= ReductionEND)
    return ref_fail(op, "reduction: %d is not a diopiReduction_t",
                    (int)reduction);
  if (!(smoothing >= 0 && smoothing <= 1))
    return ref_fail(op, "label_smoothing: %g, expected a value in [0, 1]",
                    smoothing);
  if (t.input.ndim < 1)
    return ref_fail(op, "input: expected [N, C, d1, ...] or [C], got 0 dims");
  /* [C] is one sample; else N = shape[0], C = shape[1], S = the rest. */
  bool batched = t.input.ndim >= 2;
  t.n = batched ? t.input.shape[0] : 1;
  t.c = t.input.shape[batched ? 1 : 0];
  t.s = 1;
  for (int d = 2; d < t.input.ndim; d++)
    t.s *= t.input.shape[d];
  t.m = t.n * t.s;
  /* Per-sample shape: input's without the class dim. */
  int64_t samples[REF_MAX_DIMS];
  int nsamples = 0;
  for (int d = 0; d < t.input.ndim; d++)
    if (d != (batched ? 1 : 0))
      samples[nsamples++] = t.input.shape[d];
  t.probabilities = from_logits && ref_is_floating(t.target.dtype);
  if (t.probabilities)
    err =
        ref_expect_shape(op, "target", &t.target, t.input.shape, t.input.ndim);
  else
    err = ref_expect_shape(op, "target", &t.target, samples, nsamples);
  if (!err && t.has_weight)
    err = ref_expect_shape(op, "weight", &t.weight, &t.c, 1);
  if (!err && t.backward)
    err =
        ref_expect_shape(op, "grad_input", &t.out, t.input.shape, t.input.ndim);
  else if (!err && reduction == ReductionNone)
    err = ref_expect_shape(op, "out", &t.out, samples, nsamples);
  else if (!err)
    err = ref_expect_shape(op, "out", &t.out, NULL, 0);
  if (!err && t.backward && reduction == ReductionNone)
    err =
        ref_expect_shape(op, "grad_output", &t.grad_output, samples, nsamples);
  if (!err && !t.probabilities)
    err = expect_class_target_dtype(op, &t);
  if (err)
    return err;
  t.op = op;
  bool check = !t.probabilities && t.target.numel > 0;
  return ref_enqueue_checked(ctx, op, check ? check_target_values : NULL, run,
                             &t, sizeof t);
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
