/* multi_margin_loss (the multi-class hinge loss) and its backward, as
 * PyTorch's: for a sample x of C classes with target y,
 *   loss = sum over j != y of w[y] * max(0, margin - x[y] + x[j])^p / C
 * (w: the class weights, 1 without), p 1 or 2; input [N, C] or [C] (one
 * sample), target N class indices in at most one dim; reduction none gives
 * one loss per sample (target's shape), mean
 * averages them, sum adds them. The backward gives each term's derivative
 * (p * z^(p-1) * w[y] / C, with z the clamped term) to x[j] and minus it to
 * x[y], times grad_output (per sample for none, over N for mean). Target
 * values are checked on the stream (ref_enqueue_checked). Any floating
 * dtypes and strides; computed in double. */
#include <math.h>
#include <string.h>

#include <diopi/functions.h>
#include <diopi/functions_backplane.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_tensor.h"

typedef struct margin_task {
  const char *op;
  ref_view_t out, input, target, weight, grad_output;
  bool has_weight, backward;
  int64_t n, c, p;
  double margin;
  diopiReduction_t reduction;
} margin_task_t;

static void run(void *args) {
  const margin_task_t *t = args;
  double total = 0;
  for (int64_t i = 0; i < t->n; i++) {
    int64_t y = ref_get_int(&t->target, i);
    double xy = ref_get(&t->input, i * t->c + y);
    double w = t->has_weight ? ref_get(&t->weight, y) : 1;
    double go = 0;
    if (t->backward)
      go = t->reduction == ReductionNone ? ref_get(&t->grad_output, i)
                                         : ref_get(&t->grad_output, 0);
    if (t->backward && t->reduction == ReductionMean)
      go /= (double)t->n;
    double loss = 0, grad_y = 0;
    for (int64_t k = 0; k < t->c; k++) {
      if (k == y)
        continue;
      double z = t->margin - xy + ref_get(&t->input, i * t->c + k);
      double term = z > 0 ? (t->p == 1 ? z : z * z) * w / (double)t->c : 0;
      double slope = z > 0 ? (t->p == 1 ? 1 : 2 * z) * w / (double)t->c : 0;
      loss += term;
      if (t->backward) {
        ref_set(&t->out, i * t->c + k, slope * go);
        grad_y -= slope * go;
      }
    }
    if (t->backward)
      ref_set(&t->out, i * t->c + y, grad_y);
    else if (t->reduction == ReductionNone)
      ref_set(&t->out, i, loss);
    else
      total += loss;
  }
  if (!t->backward && t->reduction != ReductionNone)
    ref_set(&t->out, 0,
            t->reduction == ReductionMean ? total / (double)t->n : total);
}

static diopiError_t check_target_values(const void *args) {
  const margin_task_t *t = args;
  return ref_expect_indices_below(t->op, "target", &t->target, t->c, false, 0);
}

static diopiError_t
launch(diopiContextHandle_t ctx, const char *op, diopiConstTensorHandle_t out,
       diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
       diopiConstTensorHandle_t target, diopiConstTensorHandle_t weight,
       int64_t p, double margin, diopiReduction_t reduction) {
  margin_task_t t;
  memset(&t, 0, sizeof t);
  t.op = op;
  t.backward = grad_output != NULL;
  t.p = p;
  t.margin = margin;
  t.reduction = reduction;
  const char *out_name = t.backward ? "grad_input" : "out";
  diopiError_t err = ref_view(ctx, op, out_name, out, &t.out);
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
  if (p != 1 && p != 2)
    return ref_fail(op, "p: expected 1 or 2, got %lld", (long long)p);
  if (t.input.ndim < 1 || t.input.ndim > 2)
    return ref_fail(op, "input: expected [N, C] or [C], got %d dims",
                    t.input.ndim);
  bool batched = t.input.ndim == 2;
  t.n = batched ? t.input.shape[0] : 1;
  t.c = t.input.shape[batched ? 1 : 0];
  if (t.target.ndim > 1 || t.target.numel != t.n)
    err = ref_fail(op,
                   "target: expected %lld class indices in at most 1 dim, "
                   "got %lld in %d",
                   (long long)t.n, (long long)t.target.numel, t.target.ndim);
  if (!err && t.has_weight)
    err = ref_expect_shape(op, "weight", &t.weight, &t.c, 1);
  if (!err && t.backward)
    err =
        ref_expect_shape(op, "grad_input", &t.out, t.input.shape, t.input.ndim);
  else if (!err)
    err =
        reduction == ReductionNone
            ? ref_expect_shape(op, "out", &t.out, t.target.shape, t.target.ndim)
            : ref_expect_shape(op, "out", &t.out, NULL, 0);
  if (!err && t.backward && reduction == ReductionNone)
    err = ref_expect_shape(op, "grad_output", &t.grad_output, t.target.shape,
                           t.target.ndim);
  if (!err)
    err = ref_expect_kind(op, "input", &t.input, REF_OUT_FLOATING);
  if (!err && !ref_is_integral(t.target.dtype))
    err = ref_fail(op,
                   "target: expected class indices (an integer dtype), "
                   "got dtype %d",
                   (int)t.target.dtype);
  if (err || t.n == 0 || t.c == 0)
    return err;
  return ref_enqueue_checked(ctx, op, check_target_values, run, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiMultiMarginLoss(diopiContextHandle_t ctx,
                                             diopiTensorHandle_t out,
                                             diopiConstTensorHandle_t input,
                                             diopiConstTensorHandle_t target,
                                             diopiConstTensorHandle_t weight,
                                             int64_t p, double margin,
                                             diopiReduction_t reduction) {
  return launch(ctx, "diopiMultiMarginLoss", out, NULL, input, target, weight,
                p, margin, reduction);
}
REF_EXPORT diopiError_t diopiMultiMarginLossBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t target, diopiConstTensorHandle_t weight, int64_t p,
    double margin, diopiReduction_t reduction) {
  return launch(ctx, "diopiMultiMarginLossBackward", grad_input, grad_output,
                input, target, weight, p, margin, reduction);
}
