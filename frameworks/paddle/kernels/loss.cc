/* cross_entropy_with_softmax and its gradient, in every form Paddle's CPU
 * kernel has: hard labels (class indices; int8/16 and uint8 cast to int64)
 * or soft ones (a distribution shaped as the logits), over any axis, with
 * the softmax or on probabilities given directly (use_softmax false: the
 * Softmax output is the input). The logits are viewed as [n, c, r] (c the
 * classes at `axis`, n and r the dims before and after), the layout the op
 * library's losses take as [N, C, d1]:
 *   loss   softmax: diopiCrossEntropyLoss (from logits, either label kind);
 *          else:    diopiNLLLoss of diopiLog(p) (hard), or -sum(label *
 *                   log p) over c by diopiMul and diopiSum (soft);
 *   grad   softmax: (p - label) * dloss (soft); p * dloss - onehot * dloss
 *                   (hard, diopiNLLLossBackward gives the onehot part);
 *          else:    -label / p * dloss (soft); -dloss / p at the label and
 *                   0 elsewhere (hard).
 * A sample whose hard label is ignore_index has loss 0 and gradient 0. */
#include "kernel_call.h"

namespace bridge {

/* The [n, c, r] view of a cross entropy over `axis`. */
struct Layout {
  int64_t n, c, r;
  int64_t logits[3];  /* {n, c, r} */
  int64_t samples[2]; /* {n, r} */
  int64_t kept[3];    /* {n, 1, r} */
};

static Layout layout_of(KernelCall &call, PD_Tensor *t, int axis) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(t, shape);
  int a = axis < 0 ? axis + ndim : axis;
  if (ndim == 0 || a < 0 || a >= ndim)
    call.fail("axis %d out of range for logits of rank %d", axis, ndim);
  Layout l = {1, shape[a], 1, {0}, {0}, {0}};
  for (int d = 0; d < ndim; d++) {
    if (d < a)
      l.n *= shape[d];
    else if (d > a)
      l.r *= shape[d];
  }
  l.logits[0] = l.kept[0] = l.samples[0] = l.n;
  l.logits[1] = l.c;
  l.kept[1] = 1;
  l.logits[2] = l.kept[2] = l.samples[1] = l.r;
  return l;
}

/* The label as [n, c, r] probabilities (soft) or [n, r] class indices in
 * int32 or int64 (the op library's index dtypes; others cast to int64). */
static diopiTensorHandle_t labels(KernelCall &call, PD_Tensor *label,
                                  const Layout &l, bool soft) {
  int64_t want = soft ? l.n * l.c * l.r : l.n * l.r;
  if (kernel_numel(label) != want)
    call.fail("label: %lld elements, expected %lld (%s)",
              (long long)kernel_numel(label), (long long)want,
              soft ? "the logits' shape" : "the logits' with 1 class");
  if (soft)
    return call.wrap(label, 3, l.logits);
  diopiTensorHandle_t y = call.wrap(label, 2, l.samples);
  PD_DataType dtype = kernel_dtype(label);
  if (dtype == PD_DataType::INT64 || dtype == PD_DataType::INT32)
    return y;
  diopiTensorHandle_t cast = call.temp(diopi_dtype_int64, 2, l.samples);
  call.check(DIOPI(call, diopiCastDtype)(call.diopi(), cast, y),
             "diopiCastDtype");
  return cast;
}

/* A one-element zero of `dtype`, broadcast where an op needs a tensor. */
static diopiTensorHandle_t zero(KernelCall &call, diopiDtype_t dtype) {
  int64_t one = 1;
  diopiTensorHandle_t z = call.temp(dtype, 1, &one);
  diopiScalar_t v = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), z, &v), "diopiFill");
  return z;
}

template <typename T>
void CrossEntropyWithSoftmaxKernel(const phi::Context &dev_ctx,
                                   const phi::DenseTensor &logits,
                                   const phi::DenseTensor &label,
                                   bool soft_label, bool use_softmax,
                                   bool numeric_stable_mode, int ignore_index,
                                   int axis, phi::DenseTensor *softmax,
                                   phi::DenseTensor *loss) {
  KernelCall call(dev_ctx, "cross_entropy_with_softmax", kernel_dtype_of<T>());
  Layout l = layout_of(call, pd(logits), axis);
  diopiTensorHandle_t x = call.wrap(pd(logits), 3, l.logits);
  diopiTensorHandle_t y = labels(call, pd(label), l, soft_label);
  call.alloc(pd(softmax));
  call.alloc(pd(loss));
  diopiTensorHandle_t p = call.wrap(pd(softmax), 3, l.logits);
  if (use_softmax) {
    call.check(DIOPI(call, diopiSoftmax)(call.diopi(), p, x, 1),
               "diopiSoftmax");
    call.check(DIOPI(call, diopiCrossEntropyLoss)(
                   call.diopi(), call.wrap(pd(loss), 2, l.samples), x, y, NULL,
                   ReductionNone, ignore_index, 0.0),
               "diopiCrossEntropyLoss");
    return;
  }
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), x, p), "diopiCopyInp");
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(logits)));
  diopiTensorHandle_t log_p = call.temp(dtype, 3, l.logits);
  call.check(DIOPI(call, diopiLog)(call.diopi(), log_p, x), "diopiLog");
  if (!soft_label) {
    call.check(DIOPI(call, diopiNLLLoss)(
                   call.diopi(), call.wrap(pd(loss), 2, l.samples), log_p, y,
                   NULL, ReductionNone, ignore_index),
               "diopiNLLLoss");
    return;
  }
  call.check(DIOPI(call, diopiMulInp)(call.diopi(), log_p, y), "diopiMulInp");
  int64_t classes = 1;
  diopiTensorHandle_t out = call.wrap(pd(loss), 3, l.kept);
  call.check(DIOPI(call, diopiSum)(call.diopi(), out, log_p, {&classes, 1}),
             "diopiSum");
  diopiScalar_t minus_one = kernel_scalar(-1.0);
  call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), out, &minus_one),
             "diopiMulInpScalar");
}

template <typename T>
void CrossEntropyWithSoftmaxGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &label,
    const phi::DenseTensor &softmax, const phi::DenseTensor &loss_grad,
    bool soft_label, bool use_softmax, bool numeric_stable_mode,
    int ignore_index, int axis, phi::DenseTensor *logits_grad) {
  KernelCall call(dev_ctx, "cross_entropy_with_softmax_grad",
                  kernel_dtype_of<T>());
  Layout l = layout_of(call, pd(softmax), axis);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(softmax)));
  diopiTensorHandle_t y = labels(call, pd(label), l, soft_label);
  diopiTensorHandle_t p = call.wrap(pd(softmax), 3, l.logits);
  diopiTensorHandle_t g = call.wrap(pd(loss_grad), 3, l.kept);
  call.alloc(pd(logits_grad));
  diopiTensorHandle_t dx = call.wrap(pd(logits_grad), 3, l.logits);
  if (soft_label) {
    if (use_softmax) { /* (p - label) * dloss */
      diopiScalar_t one = kernel_scalar(1.0);
      call.check(DIOPI(call, diopiSub)(call.diopi(), dx, p, y, &one),
                 "diopiSub");
    } else { /* -label / p * dloss */
      call.check(DIOPI(call, diopiDiv)(call.diopi(), dx, y, p, RoundModeNone),
                 "diopiDiv");
      diopiScalar_t minus_one = kernel_scalar(-1.0);
      call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), dx, &minus_one),
                 "diopiMulInpScalar");
    }
    call.check(DIOPI(call, diopiMulInp)(call.diopi(), dx, g), "diopiMulInp");
    return;
  }
  diopiTensorHandle_t g2 = call.wrap(pd(loss_grad), 2, l.samples);
  diopiTensorHandle_t onehot = call.temp(dtype, 3, l.logits);
  if (!use_softmax) { /* -dloss / p at the label, 0 elsewhere */
    call.check(DIOPI(call, diopiNLLLossBackward)(call.diopi(), onehot, g2, p, y,
                                                 NULL, ReductionNone,
                                                 ignore_index),
               "diopiNLLLossBackward");
    diopiTensorHandle_t at_label = call.temp(diopi_dtype_bool, 3, l.logits);
    diopiScalar_t z = kernel_scalar(0.0);
    call.check(DIOPI(call, diopiNeScalar)(call.diopi(), at_label, onehot, &z),
               "diopiNeScalar");
    call.check(DIOPI(call, diopiDivInp)(call.diopi(), onehot, p, RoundModeNone),
               "diopiDivInp");
    call.check(DIOPI(call, diopiWhere)(call.diopi(), dx, at_label, onehot,
                                       zero(call, dtype)),
               "diopiWhere");
    return;
  }
  /* p * dloss - onehot * dloss, dloss zeroed where the label is ignored */
  diopiTensorHandle_t kept = call.temp(diopi_dtype_bool, 2, l.samples);
  diopiScalar_t ignored = kernel_scalar((double)ignore_index);
  call.check(DIOPI(call, diopiNeScalar)(call.diopi(), kept, y, &ignored),
             "diopiNeScalar");
  diopiTensorHandle_t masked = call.temp(dtype, 2, l.samples);
  call.check(DIOPI(call, diopiWhere)(call.diopi(), masked, kept, g2,
                                     zero(call, dtype)),
             "diopiWhere");
  call.check(DIOPI(call, diopiNLLLossBackward)(call.diopi(), onehot, masked, p,
                                               y, NULL, ReductionNone,
                                               ignore_index),
             "diopiNLLLossBackward");
  void *data = NULL;
  diopiGetTensorData(masked, &data);
  diopiTensorHandle_t column = call.wrap_data(data, dtype, 3, l.kept, NULL);
  call.check(DIOPI(call, diopiMul)(call.diopi(), dx, p, column), "diopiMul");
  diopiScalar_t one = kernel_scalar(1.0);
  call.check(DIOPI(call, diopiAddInp)(call.diopi(), dx, onehot, &one),
             "diopiAddInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(cross_entropy_with_softmax, backplane, ALL_LAYOUT,
                    bridge::CrossEntropyWithSoftmaxKernel, float, double) {}
PD_BUILD_PHI_KERNEL(cross_entropy_with_softmax_grad, backplane, ALL_LAYOUT,
                    bridge::CrossEntropyWithSoftmaxGradKernel, float, double) {}
