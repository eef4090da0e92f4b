/* DIOPI's nll_loss v2: diopiNLLLoss's loss (any [N, C, d1, ...] or [C]
 * input, ref_loss.c) plus the total weight PyTorch's nll_loss_forward
 * returns beside it: the summed class weights of the targets not ignored
 * (1 each without weights) for mean and sum, 0 for none, in a one-element
 * tensor. The backward is diopiNLLLossBackward's: its mean divides by the
 * same total, which it sums from target and weight itself. */
#include <string.h>

#include <diopi/functions.h>

#include "ref_enqueue.h"
#include "ref_error.h"
#include "ref_ew_call.h"
#include "ref_tensor.h"

typedef struct total_task {
  ref_view_t total, target, weight;
  bool has_weight, reduced;
  int64_t classes, ignore_index;
} total_task_t;

/* On the worker after the loss: a target out of range (which the loss's
 * own check reports) counts nothing here. */
static void run_total(void *args) {
  const total_task_t *t = args;
  double total = 0;
  for (int64_t i = 0; t->reduced && i < t->target.numel; i++) {
    int64_t cls = ref_get_int(&t->target, i);
    if (cls == t->ignore_index || cls < 0 || cls >= t->classes)
      continue;
    total += t->has_weight ? ref_get(&t->weight, cls) : 1.0;
  }
  ref_set(&t->total, 0, total);
}

/* Views the total weight (one floating element) and what it sums. */
static diopiError_t total_setup(diopiContextHandle_t ctx, const char *op,
                                total_task_t *t, diopiConstTensorHandle_t total,
                                diopiConstTensorHandle_t input,
                                diopiConstTensorHandle_t target,
                                diopiConstTensorHandle_t weight) {
  ref_view_t in;
  memset(t, 0, sizeof *t);
  diopiError_t err = ref_view(ctx, op, "totalWeight", total, &t->total);
  if (!err)
    err = ref_expect_kind(op, "totalWeight", &t->total, REF_OUT_FLOATING);
  if (!err && t->total.numel != 1)
    err = ref_fail(op, "totalWeight: expected one element, got %lld",
                   (long long)t->total.numel);
  if (!err)
    err = ref_view(ctx, op, "input", input, &in);
  if (!err)
    err = ref_view(ctx, op, "target", target, &t->target);
  if (!err && !ref_is_integral(t->target.dtype))
    err = ref_fail(op, "target: expected an integer dtype, got dtype %d",
                   (int)t->target.dtype);
  if (!err)
    err = ref_view_optional(ctx, op, "weight", weight, &t->weight,
                            &t->has_weight);
  t->classes = in.ndim == 1 ? in.shape[0] : in.ndim > 1 ? in.shape[1] : 0;
  return err;
}

REF_EXPORT diopiError_t
diopiNLLLossV2(diopiContextHandle_t ctx, diopiTensorHandle_t out,
               diopiTensorHandle_t totalWeight, diopiConstTensorHandle_t input,
               diopiConstTensorHandle_t target, diopiConstTensorHandle_t weight,
               diopiReduction_t reduction, int64_t ignore_index) {
  const char *op = "diopiNLLLossV2";
  total_task_t t;
  diopiError_t err =
      total_setup(ctx, op, &t, totalWeight, input, target, weight);
  if (err)
    return err;
  t.reduced = reduction != ReductionNone;
  t.ignore_index = ignore_index;
  /* the loss checks (and enqueues) first: nothing enqueued if it refuses */
  err = diopiNLLLoss(ctx, out, input, target, weight, reduction, ignore_index);
  return err ? err : ref_enqueue(ctx, op, run_total, &t, sizeof t);
}

REF_EXPORT diopiError_t diopiNLLLossV2Backward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input,
    diopiConstTensorHandle_t grad_output, diopiConstTensorHandle_t input,
    diopiConstTensorHandle_t target, diopiConstTensorHandle_t weight,
    diopiConstTensorHandle_t totalWeight, diopiReduction_t reduction,
    int64_t ignore_index) {
  total_task_t t;
  diopiError_t err = total_setup(ctx, "diopiNLLLossV2Backward", &t, totalWeight,
                                 input, target, weight);
  return err ? err
             : diopiNLLLossBackward(ctx, grad_input, grad_output, input, target,
                                    weight, reduction, ignore_index);
}
