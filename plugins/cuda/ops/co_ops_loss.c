/* Cross entropy over class indices (weights, ignore_index, label
 * smoothing) and its backward; input [N, C, d...] or [C], float32 logits,
 * int64 targets. An out-of-range target gives NaN in its loss and
 * gradient rather than an error: the values are only known on the device.
 * Class-probability targets are diopiNoImplement. */
#include <diopi/functions.h>

#include "co_error.h"
#include "co_exec.h"
#include "kernels/co_kernel_args.h"

static const diopiDtype_t F32 = diopi_dtype_float32;

/* The checked views and geometry both directions share. */
typedef struct loss_args {
  co_view_t input, target, weight;
  bool has_weight;
  long long positions, classes, inner;
} loss_args_t;

static diopiError_t check(const char *op, diopiConstTensorHandle_t input_t,
                          diopiConstTensorHandle_t target_t,
                          diopiConstTensorHandle_t weight_t,
                          diopiReduction_t reduction, double smoothing,
                          loss_args_t *l) {
  diopiError_t e;
  diopiDtype_t target_dtype = diopi_dtype_int64;
  if (target_t &&
      diopiGetTensorDtype(target_t, &target_dtype) == diopiSuccess &&
      target_dtype != diopi_dtype_int64 && target_dtype != diopi_dtype_int32)
    return co_unsupported(op,
                          "target: class probabilities (%s); the cuda op "
                          "library takes int64 class indices",
                          bp_ops_dtype_name(target_dtype));
  if ((e = co_view(op, "input", input_t, F32, &l->input)) ||
      (e = co_view(op, "target", target_t, diopi_dtype_int64, &l->target)) ||
      (e = co_view_optional(op, "weight", weight_t, F32, &l->weight,
                            &l->has_weight)) ||
      (e = co_expect_dense(op, &l->input)) ||
      (e = co_expect_dense(op, &l->target)))
    return e;
  if (reduction != ReductionNone && reduction != ReductionMean &&
      reduction != ReductionSum)
    return co_fail(op, "reduction: expected none, mean or sum, got %d",
                   (int)reduction);
  if (!(smoothing >= 0 && smoothing <= 1))
    return co_fail(op, "label_smoothing: expected a value in [0, 1], got %g",
                   smoothing);
  const co_view_t *in = &l->input;
  if (in->ndim < 1)
    return co_fail(op, "input: expected [N, C, ...] or [C], got a 0-d tensor");
  bool batched = in->ndim >= 2;
  l->classes = batched ? in->shape[1] : in->shape[0];
  l->inner = 1;
  for (int d = 2; d < in->ndim; d++)
    l->inner *= in->shape[d];
  l->positions = batched ? in->shape[0] * l->inner : 1;
  int64_t target_shape[CO_MAX_VIEW_DIMS];
  int n = 0;
  for (int d = 0; batched && d < in->ndim; d++)
    if (d != 1)
      target_shape[n++] = in->shape[d];
  if ((e = co_expect_shape(op, &l->target, target_shape, n)))
    return e;
  const int64_t classes = l->classes;
  if (l->has_weight && ((e = co_expect_shape(op, &l->weight, &classes, 1)) ||
                        (e = co_expect_dense(op, &l->weight))))
    return e;
  return diopiSuccess;
}

/* The shape of the loss: the target's (none) or a scalar. */
static diopiError_t expect_loss_shape(const char *op, const co_view_t *v,
                                      const loss_args_t *l,
                                      diopiReduction_t reduction) {
  if (reduction == ReductionNone)
    return co_expect_shape(op, v, l->target.shape, l->target.ndim);
  return v->numel == 1 ? diopiSuccess
                       : co_fail(op,
                                 "%s: expected one element (a reduced "
                                 "loss), got %lld",
                                 v->name, (long long)v->numel);
}

/* The per-position kernel's arguments: each position's loss and target
 * weight into `loss` and `weights` (device scratch). */
static co_cross_entropy_args cross_entropy_args(const loss_args_t *l,
                                                float *loss, float *weights,
                                                int64_t ignore_index,
                                                double smoothing) {
  return (co_cross_entropy_args){.input = l->input.data,
                                 .target = l->target.data,
                                 .weight =
                                     l->has_weight ? l->weight.data : NULL,
                                 .loss = loss,
                                 .weights = weights,
                                 .n = l->positions,
                                 .classes = l->classes,
                                 .inner = l->inner,
                                 .ignore_index = ignore_index,
                                 .smoothing = (float)smoothing};
}

CO_EXPORT diopiError_t diopiCrossEntropyLoss(
    diopiContextHandle_t ctx, diopiTensorHandle_t out_t,
    diopiConstTensorHandle_t input_t, diopiConstTensorHandle_t target_t,
    diopiConstTensorHandle_t weight_t, diopiReduction_t reduction,
    int64_t ignore_index, double label_smoothing) {
  const char *op = "diopiCrossEntropyLoss";
  loss_args_t l;
  co_view_t out;
  diopiError_t e;
  if ((e = check(op, input_t, target_t, weight_t, reduction, label_smoothing,
                 &l)) ||
      (e = co_view(op, "out", out_t, F32, &out)) ||
      (e = expect_loss_shape(op, &out, &l, reduction)) ||
      (e = co_expect_dense(op, &out)))
    return e;
  co_exec_t x;
  const co_view_t *views[] = {&out, &l.input, &l.target,
                              l.has_weight ? &l.weight : NULL};
  if ((e = co_begin(ctx, op, views, 4, &x)))
    return e;
  float *loss = out.data, *weights = NULL;
  size_t bytes = sizeof(float) * (size_t)l.positions;
  if ((reduction != ReductionNone &&
       (e = co_scratch(&x, bytes, (void **)&loss))) ||
      (e = co_scratch(&x, bytes, (void **)&weights)))
    return e;
  co_cross_entropy_args a =
      cross_entropy_args(&l, loss, weights, ignore_index, label_smoothing);
  if ((e = co_launch(&x, CO_K_CROSS_ENTROPY, a.n, &a)) ||
      reduction == ReductionNone)
    return e;
  co_loss_reduce_args r = {.out = out.data,
                           .loss = loss,
                           .weights = weights,
                           .n = l.positions,
                           .mean = reduction == ReductionMean};
  return co_launch_blocks(&x, CO_K_LOSS_REDUCE, 1, &r);
}

CO_EXPORT diopiError_t diopiCrossEntropyLossBackward(
    diopiContextHandle_t ctx, diopiTensorHandle_t grad_input_t,
    diopiConstTensorHandle_t grad_output_t, diopiConstTensorHandle_t input_t,
    diopiConstTensorHandle_t target_t, diopiConstTensorHandle_t weight_t,
    diopiReduction_t reduction, int64_t ignore_index, double label_smoothing) {
  const char *op = "diopiCrossEntropyLossBackward";
  loss_args_t l;
  co_view_t grad_input, grad_output;
  diopiError_t e;
  if ((e = check(op, input_t, target_t, weight_t, reduction, label_smoothing,
                 &l)) ||
      (e = co_view(op, "grad_output", grad_output_t, F32, &grad_output)) ||
      (e = expect_loss_shape(op, &grad_output, &l, reduction)) ||
      (e = co_expect_dense(op, &grad_output)) ||
      (e = co_view(op, "grad_input", grad_input_t, F32, &grad_input)) ||
      (e = co_expect_shape(op, &grad_input, l.input.shape, l.input.ndim)) ||
      (e = co_expect_dense(op, &grad_input)))
    return e;
  co_exec_t x;
  const co_view_t *views[] = {&grad_input, &grad_output, &l.input, &l.target,
                              l.has_weight ? &l.weight : NULL};
  if ((e = co_begin(ctx, op, views, 5, &x)))
    return e;
  float *weight_sum = NULL;
  if (reduction == ReductionMean) {
    /* The mean's divisor: the targets' weights, from the forward kernel. */
    float *loss, *weights;
    size_t bytes = sizeof(float) * (size_t)l.positions;
    if ((e = co_scratch(&x, bytes, (void **)&loss)) ||
        (e = co_scratch(&x, bytes, (void **)&weights)) ||
        (e = co_scratch(&x, sizeof(float), (void **)&weight_sum)))
      return e;
    co_cross_entropy_args f =
        cross_entropy_args(&l, loss, weights, ignore_index, 0);
    co_loss_reduce_args r = {.out = weight_sum,
                             .loss = weights,
                             .weights = weights,
                             .n = l.positions,
                             .mean = 0};
    if ((e = co_launch(&x, CO_K_CROSS_ENTROPY, f.n, &f)) ||
        (e = co_launch_blocks(&x, CO_K_LOSS_REDUCE, 1, &r)))
      return e;
  }
  co_cross_entropy_backward_args a = {
      .grad_input = grad_input.data,
      .grad_output = grad_output.data,
      .input = l.input.data,
      .target = l.target.data,
      .weight = l.has_weight ? l.weight.data : NULL,
      .weight_sum = weight_sum,
      .n = l.positions,
      .classes = l.classes,
      .inner = l.inner,
      .ignore_index = ignore_index,
      .smoothing = (float)label_smoothing,
      .reduction = reduction == ReductionNone   ? 0
                   : reduction == ReductionMean ? 1
                                                : 2};
  return co_launch(&x, CO_K_CROSS_ENTROPY_BACKWARD, a.n, &a);
}
