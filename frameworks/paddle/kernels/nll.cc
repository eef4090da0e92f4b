/* log_softmax and nll_loss (class-index labels) and their gradients:
 * diopiLogSoftmax(Backward), diopiNLLLoss(Backward). */
#include <string.h>

#include <string>

#include "kernel_call.h"

namespace bridge {

template <typename T>
void LogSoftmaxKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      int axis, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "log_softmax", kernel_dtype_of<T>());
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(
      DIOPI(call, diopiLogSoftmax)(call.diopi(), call.alloc(pd(out)), in, axis),
      "diopiLogSoftmax");
}

template <typename T>
void LogSoftmaxGradKernel(const phi::Context &dev_ctx,
                          const phi::DenseTensor &out,
                          const phi::DenseTensor &out_grad, int axis,
                          phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "log_softmax_grad", kernel_dtype_of<T>());
  diopiTensorHandle_t y = call.wrap(pd(out)), g = call.wrap(pd(out_grad));
  call.check(DIOPI(call, diopiLogSoftmaxBackward)(
                 call.diopi(), call.alloc(pd(x_grad)), g, y, axis),
             "diopiLogSoftmaxBackward");
}

static diopiReduction_t reduction_of(KernelCall &call,
                                     const std::string &reduction) {
  if (reduction == "none")
    return ReductionNone;
  if (reduction == "mean")
    return ReductionMean;
  if (reduction == "sum")
    return ReductionSum;
  call.fail("reduction: expected none, mean or sum, got %s", reduction.c_str());
}

/* out = the loss; total_weight = the summed weight of the labels that are
 * not ignore_index (their count without weights): the summed loss of an
 * input of -1 everywhere, a one-element scratch broadcast by zero strides. */
template <typename T>
void NllLossKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                   const phi::DenseTensor &label,
                   const paddle::optional<phi::DenseTensor> &weight,
                   int64_t ignore_index, const std::string &reduction,
                   phi::DenseTensor *out, phi::DenseTensor *total_weight) {
  KernelCall call(dev_ctx, "nll_loss", kernel_dtype_of<T>());
  diopiReduction_t mode = reduction_of(call, reduction);
  diopiTensorHandle_t x = call.wrap(pd(input)), y = call.wrap(pd(label));
  diopiTensorHandle_t w = call.wrap(pd(weight));
  call.check(DIOPI(call, diopiNLLLoss)(call.diopi(), call.alloc(pd(out)), x, y,
                                       w, mode, ignore_index),
             "diopiNLLLoss");
  if (pd(total_weight) == NULL)
    return;
  int64_t shape[BP_OPS_MAX_DIMS], zeros[BP_OPS_MAX_DIMS] = {0}, one = 1;
  int ndim = kernel_dims(pd(input), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(input)));
  diopiTensorHandle_t minus_one = call.temp(dtype, 1, &one);
  diopiScalar_t v = kernel_scalar(-1.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), minus_one, &v), "diopiFill");
  void *data = NULL;
  diopiGetTensorData(minus_one, &data);
  diopiTensorHandle_t filled = call.wrap_data(data, dtype, ndim, shape, zeros);
  call.check(DIOPI(call, diopiNLLLoss)(call.diopi(),
                                       call.alloc(pd(total_weight)), filled, y,
                                       w, ReductionSum, ignore_index),
             "diopiNLLLoss");
}

template <typename T>
void NllLossGradKernel(const phi::Context &dev_ctx,
                       const phi::DenseTensor &input,
                       const phi::DenseTensor &label,
                       const paddle::optional<phi::DenseTensor> &weight,
                       const phi::DenseTensor &total_weight,
                       const phi::DenseTensor &d_out, int64_t ignore_index,
                       const std::string &reduction, phi::DenseTensor *d_x) {
  KernelCall call(dev_ctx, "nll_loss_grad", kernel_dtype_of<T>());
  diopiReduction_t mode = reduction_of(call, reduction);
  diopiTensorHandle_t x = call.wrap(pd(input)), y = call.wrap(pd(label));
  diopiTensorHandle_t w = call.wrap(pd(weight)), g = call.wrap(pd(d_out));
  call.check(DIOPI(call, diopiNLLLossBackward)(call.diopi(),
                                               call.alloc(pd(d_x)), g, x, y, w,
                                               mode, ignore_index),
             "diopiNLLLossBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(log_softmax, backplane, ALL_LAYOUT,
                    bridge::LogSoftmaxKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(log_softmax_grad, backplane, ALL_LAYOUT,
                    bridge::LogSoftmaxGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(nll_loss, backplane, ALL_LAYOUT, bridge::NllLossKernel,
                    float, double) {}
PD_BUILD_PHI_KERNEL(nll_loss_grad, backplane, ALL_LAYOUT,
                    bridge::NllLossGradKernel, float, double) {}
