/* cross_entropy_with_softmax and its gradient, for hard labels over the
 * last axis: softmax by diopiSoftmax, per-sample loss by
 * diopiCrossEntropyLoss (no reduction), and the gradient
 * softmax * dloss - onehot(label) * dloss as diopiMul plus
 * diopiNLLLossBackward (its gradient with respect to log-probabilities is
 * the -onehot part). Integer labels other than int32/int64 are cast to
 * int64. */
#include "kernel_call.h"

namespace bridge {

/* logits [.., C] -> rows and classes; fails on unsupported modes. */
static void rows_and_classes(KernelCall &call, PD_Tensor *t, bool soft_label,
                             bool use_softmax, int axis, int64_t *rows,
                             int64_t *classes) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(t, shape);
  if (soft_label || !use_softmax)
    call.fail("soft_label=%d use_softmax=%d: only hard labels with softmax "
              "are supported",
              (int)soft_label, (int)use_softmax);
  if (axis != -1 && axis != ndim - 1)
    call.fail("axis %d: only the last axis is supported", axis);
  *classes = shape[ndim - 1];
  *rows = kernel_numel(t) / (*classes ? *classes : 1);
}

/* The `n` hard labels as int32 or int64 (the op library's label dtypes):
 * other integer labels are cast to int64 first. */
static diopiTensorHandle_t labels(KernelCall &call, PD_Tensor *label,
                                  int64_t n) {
  diopiTensorHandle_t y = call.wrap(label, 1, &n);
  PD_DataType dtype = kernel_dtype(label);
  if (dtype == PD_DataType::INT64 || dtype == PD_DataType::INT32)
    return y;
  diopiTensorHandle_t cast = call.temp(diopi_dtype_int64, 1, &n);
  call.check(DIOPI(call, diopiCastDtype)(call.diopi(), cast, y),
             "diopiCastDtype");
  return cast;
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
  int64_t n, c;
  rows_and_classes(call, pd(logits), soft_label, use_softmax, axis, &n, &c);
  int64_t matrix[2] = {n, c};
  diopiTensorHandle_t x = call.wrap(pd(logits), 2, matrix);
  diopiTensorHandle_t y = labels(call, pd(label), n);
  call.alloc(pd(softmax));
  call.alloc(pd(loss));
  call.check(DIOPI(call, diopiSoftmax)(call.diopi(),
                                       call.wrap(pd(softmax), 2, matrix), x, 1),
             "diopiSoftmax");
  call.check(DIOPI(call, diopiCrossEntropyLoss)(
                 call.diopi(), call.wrap(pd(loss), 1, &n), x, y, NULL,
                 ReductionNone, ignore_index, 0.0),
             "diopiCrossEntropyLoss");
}

template <typename T>
void CrossEntropyWithSoftmaxGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &label,
    const phi::DenseTensor &softmax, const phi::DenseTensor &loss_grad,
    bool soft_label, bool use_softmax, bool numeric_stable_mode,
    int ignore_index, int axis, phi::DenseTensor *logits_grad) {
  KernelCall call(dev_ctx, "cross_entropy_with_softmax_grad",
                  kernel_dtype_of<T>());
  int64_t n, c;
  rows_and_classes(call, pd(softmax), soft_label, use_softmax, axis, &n, &c);
  int64_t matrix[2] = {n, c}, column[2] = {n, 1};
  diopiTensorHandle_t y = labels(call, pd(label), n);
  diopiTensorHandle_t p = call.wrap(pd(softmax), 2, matrix);
  call.alloc(pd(logits_grad));
  diopiTensorHandle_t dx = call.wrap(pd(logits_grad), 2, matrix);
  diopiTensorHandle_t onehot =
      call.temp(kernel_diopi_dtype(kernel_dtype(pd(softmax))), 2, matrix);
  call.check(DIOPI(call, diopiNLLLossBackward)(
                 call.diopi(), onehot, call.wrap(pd(loss_grad), 1, &n), p, y,
                 NULL, ReductionNone, ignore_index),
             "diopiNLLLossBackward");
  call.check(DIOPI(call, diopiMul)(call.diopi(), dx, p,
                                   call.wrap(pd(loss_grad), 2, column)),
             "diopiMul");
  diopiScalar_t one = kernel_scalar(1.0);
  call.check(DIOPI(call, diopiAddInp)(call.diopi(), dx, onehot, &one),
             "diopiAddInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(cross_entropy_with_softmax, backplane, ALL_LAYOUT,
                    bridge::CrossEntropyWithSoftmaxKernel, float, double) {}
PD_BUILD_PHI_KERNEL(cross_entropy_with_softmax_grad, backplane, ALL_LAYOUT,
                    bridge::CrossEntropyWithSoftmaxGradKernel, float, double) {}
