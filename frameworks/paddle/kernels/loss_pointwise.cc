/* Losses computed per element (Paddle reduces them with its own mean or
 * sum kernels afterwards): sigmoid_cross_entropy_with_logits
 * (diopiBCEWithLogits(Backward); elements whose label is ignore_index
 * zeroed by diopiMaskedFillInpScalar; refused: normalize, and pos_weight,
 * which for Paddle's kernel is a factor per element of the log term, not
 * PyTorch's per-class weight of positives), bce_loss
 * (diopiBCELoss(Backward)), kldiv_loss (diopiKLDivLoss(Backward) with
 * Paddle's reduction; batchmean: the sum over the batch size), huber_loss
 * (delta * diopiSmoothL1Loss with beta delta; residual = label - input;
 * the gradient clamp(residual, -delta, delta) * dout, negated for
 * input); label_smooth ((1 - epsilon) * label + epsilon * prior_dist, or
 * epsilon / classes without one: diopiMulScalar, diopiAddInp(Scalar)). */
#include "kernel_call.h"

namespace bridge {

/* out = 0 where label == ignore_index, in place. */
static void zero_ignored(KernelCall &call, PD_Tensor *label, int ignore_index,
                         diopiTensorHandle_t out) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(label, shape);
  diopiTensorHandle_t ignored = call.temp(diopi_dtype_bool, ndim, shape);
  diopiScalar_t index = kernel_scalar((double)ignore_index),
                zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiEqScalar)(call.diopi(), ignored, call.wrap(label),
                                        &index),
             "diopiEqScalar");
  call.check(
      DIOPI(call, diopiMaskedFillInpScalar)(call.diopi(), out, ignored, &zero),
      "diopiMaskedFillInpScalar");
}

static void check_attributes(KernelCall &call, PD_Tensor *pos_weight,
                             bool normalize) {
  if (normalize)
    call.fail("normalize: only false is supported (the loss per element)");
  if (pos_weight)
    call.fail("pos_weight: not supported (Paddle's factor of the log term "
              "per element has no DIOPI counterpart)");
}

template <typename T>
void SigmoidCrossEntropyWithLogitsKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const phi::DenseTensor &label,
    const paddle::optional<phi::DenseTensor> &pos_weight, bool normalize,
    int ignore_index, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "sigmoid_cross_entropy_with_logits",
                  kernel_dtype_of<T>());
  check_attributes(call, pd(pos_weight), normalize);
  diopiTensorHandle_t o = call.alloc(pd(out));
  call.check(DIOPI(call, diopiBCEWithLogits)(call.diopi(), o, call.wrap(pd(x)),
                                             call.wrap(pd(label)), NULL, NULL,
                                             ReductionNone),
             "diopiBCEWithLogits");
  zero_ignored(call, pd(label), ignore_index, o);
}

template <typename T>
void SigmoidCrossEntropyWithLogitsGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const phi::DenseTensor &label,
    const paddle::optional<phi::DenseTensor> &pos_weight,
    const phi::DenseTensor &out_grad, bool normalize, int ignore_index,
    phi::DenseTensor *in_grad) {
  KernelCall call(dev_ctx, "sigmoid_cross_entropy_with_logits_grad",
                  kernel_dtype_of<T>());
  check_attributes(call, pd(pos_weight), normalize);
  diopiTensorHandle_t dx = call.alloc(pd(in_grad));
  call.check(DIOPI(call, diopiBCEWithLogitsBackward)(
                 call.diopi(), dx, call.wrap(pd(out_grad)), call.wrap(pd(x)),
                 call.wrap(pd(label)), NULL, NULL, ReductionNone),
             "diopiBCEWithLogitsBackward");
  zero_ignored(call, pd(label), ignore_index, dx);
}

template <typename T>
void BCELossKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                   const phi::DenseTensor &label, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "bce_loss", kernel_dtype_of<T>());
  call.check(DIOPI(call, diopiBCELoss)(
                 call.diopi(), call.alloc(pd(out)), call.wrap(pd(input)),
                 call.wrap(pd(label)), NULL, ReductionNone),
             "diopiBCELoss");
}

template <typename T>
void BCELossGradKernel(const phi::Context &dev_ctx,
                       const phi::DenseTensor &input,
                       const phi::DenseTensor &label,
                       const phi::DenseTensor &out_grad,
                       phi::DenseTensor *input_grad) {
  KernelCall call(dev_ctx, "bce_loss_grad", kernel_dtype_of<T>());
  call.check(DIOPI(call, diopiBCELossBackward)(
                 call.diopi(), call.alloc(pd(input_grad)),
                 call.wrap(pd(out_grad)), call.wrap(pd(input)),
                 call.wrap(pd(label)), NULL, ReductionNone),
             "diopiBCELossBackward");
}

/* Paddle's kldiv reduction as DIOPI's, and the factor batchmean adds
 * (1 / x's first dim; else 1). */
static diopiReduction_t kldiv_reduction(KernelCall &call, PD_Tensor *x,
                                        const std::string &reduction,
                                        double *scale) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape);
  *scale = 1.0;
  if (reduction == "none")
    return ReductionNone;
  if (reduction == "mean")
    return ReductionMean;
  if (reduction == "sum")
    return ReductionSum;
  if (reduction == "batchmean") {
    if (ndim > 0 && shape[0] > 0)
      *scale = 1.0 / (double)shape[0];
    return ReductionSum;
  }
  call.fail("reduction %s: expected none, batchmean, mean or sum",
            reduction.c_str());
}

static void scale_by(KernelCall &call, diopiTensorHandle_t t, double scale) {
  if (scale == 1.0)
    return;
  diopiScalar_t s = kernel_scalar(scale);
  call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), t, &s),
             "diopiMulInpScalar");
}

template <typename T>
void KLDivLossKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const phi::DenseTensor &label,
                     const std::string &reduction, bool log_target,
                     phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "kldiv_loss", kernel_dtype_of<T>());
  double scale;
  diopiReduction_t r = kldiv_reduction(call, pd(x), reduction, &scale);
  diopiTensorHandle_t o = call.alloc(pd(out));
  int64_t one = 1;
  if (r != ReductionNone)
    o = call.wrap(pd(out), 0, &one);
  call.check(DIOPI(call, diopiKLDivLoss)(call.diopi(), o, call.wrap(pd(x)),
                                         call.wrap(pd(label)), r, log_target),
             "diopiKLDivLoss");
  scale_by(call, o, scale);
}

template <typename T>
void KLDivLossGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                         const phi::DenseTensor &label,
                         const phi::DenseTensor &d_out,
                         const std::string &reduction, bool log_target,
                         phi::DenseTensor *d_x) {
  KernelCall call(dev_ctx, "kldiv_loss_grad", kernel_dtype_of<T>());
  double scale;
  diopiReduction_t r = kldiv_reduction(call, pd(x), reduction, &scale);
  int64_t one = 1;
  diopiTensorHandle_t g =
      r == ReductionNone ? call.wrap(pd(d_out)) : call.wrap(pd(d_out), 0, &one);
  /* x is Paddle's no-need-buffer input (dims, no memory), and the
   * gradient does not depend on it: zeros of its shape stand in. */
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(x), shape);
  diopiTensorHandle_t in =
      call.temp(kernel_diopi_dtype(kernel_dtype(pd(x))), ndim, shape);
  diopiScalar_t zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), in, &zero), "diopiFill");
  diopiTensorHandle_t dx = call.alloc(pd(d_x));
  call.check(DIOPI(call, diopiKLDivLossBackward)(
                 call.diopi(), dx, g, in, call.wrap(pd(label)), r, log_target),
             "diopiKLDivLossBackward");
  scale_by(call, dx, scale);
}

template <typename T>
void HuberLossKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                     const phi::DenseTensor &label, float delta,
                     phi::DenseTensor *out, phi::DenseTensor *residual) {
  KernelCall call(dev_ctx, "huber_loss", kernel_dtype_of<T>());
  if (!(delta > 0))
    call.fail("delta %g: expected > 0", (double)delta);
  diopiTensorHandle_t in = call.wrap(pd(input)), y = call.wrap(pd(label));
  diopiTensorHandle_t o = call.alloc(pd(out));
  call.check(DIOPI(call, diopiSmoothL1Loss)(call.diopi(), o, in, y,
                                            ReductionNone, (double)delta),
             "diopiSmoothL1Loss");
  scale_by(call, o, (double)delta);
  if (residual) {
    diopiScalar_t one = kernel_scalar(1.0);
    call.check(DIOPI(call, diopiSub)(call.diopi(), call.alloc(pd(residual)), y,
                                     in, &one),
               "diopiSub");
  }
}

template <typename T>
void HuberLossGradKernel(const phi::Context &dev_ctx,
                         const phi::DenseTensor &residual,
                         const phi::DenseTensor &out_grad, float delta,
                         phi::DenseTensor *input_grad,
                         phi::DenseTensor *label_grad) {
  KernelCall call(dev_ctx, "huber_loss_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(residual), shape);
  diopiTensorHandle_t grad =
      call.temp(kernel_diopi_dtype(kernel_dtype(pd(residual))), ndim, shape);
  diopiScalar_t lo = kernel_scalar(-(double)delta),
                hi = kernel_scalar((double)delta);
  call.check(DIOPI(call, diopiClampScalar)(call.diopi(), grad,
                                           call.wrap(pd(residual)), &lo, &hi),
             "diopiClampScalar");
  call.check(
      DIOPI(call, diopiMulInp)(call.diopi(), grad, call.wrap(pd(out_grad))),
      "diopiMulInp");
  PD_Tensor *grads[2] = {pd(label_grad), pd(input_grad)};
  for (int i = 0; i < 2; i++) {
    if (grads[i] == NULL)
      continue;
    diopiTensorHandle_t g = call.alloc(grads[i]);
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), grad, g),
               "diopiCopyInp");
    scale_by(call, g, i == 0 ? 1.0 : -1.0);
  }
}

template <typename T>
void LabelSmoothKernel(const phi::Context &dev_ctx,
                       const phi::DenseTensor &label,
                       const paddle::optional<phi::DenseTensor> &prior_dist,
                       float epsilon, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "label_smooth", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(label), shape);
  if (ndim == 0 || shape[ndim - 1] == 0)
    call.fail("label: expected classes in its last dim");
  diopiTensorHandle_t o = call.alloc(pd(out));
  diopiScalar_t keep = kernel_scalar(1.0 - (double)epsilon),
                eps = kernel_scalar(epsilon), one = kernel_scalar(1.0);
  call.check(
      DIOPI(call, diopiMulScalar)(call.diopi(), o, call.wrap(pd(label)), &keep),
      "diopiMulScalar");
  if (prior_dist) {
    call.check(DIOPI(call, diopiAddInp)(call.diopi(), o,
                                        call.wrap(pd(prior_dist)), &eps),
               "diopiAddInp");
  } else {
    diopiScalar_t share = kernel_scalar((double)epsilon / shape[ndim - 1]);
    call.check(DIOPI(call, diopiAddInpScalar)(call.diopi(), o, &share, &one),
               "diopiAddInpScalar");
  }
}

template <typename T>
void LabelSmoothGradKernel(const phi::Context &dev_ctx,
                           const phi::DenseTensor &out_grad, float epsilon,
                           phi::DenseTensor *label_grad) {
  KernelCall call(dev_ctx, "label_smooth_grad", kernel_dtype_of<T>());
  diopiScalar_t keep = kernel_scalar(1.0 - (double)epsilon);
  call.check(DIOPI(call, diopiMulScalar)(call.diopi(),
                                         call.alloc(pd(label_grad)),
                                         call.wrap(pd(out_grad)), &keep),
             "diopiMulScalar");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(sigmoid_cross_entropy_with_logits, backplane, ALL_LAYOUT,
                    bridge::SigmoidCrossEntropyWithLogitsKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sigmoid_cross_entropy_with_logits_grad, backplane,
                    ALL_LAYOUT, bridge::SigmoidCrossEntropyWithLogitsGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(bce_loss, backplane, ALL_LAYOUT, bridge::BCELossKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(bce_loss_grad, backplane, ALL_LAYOUT,
                    bridge::BCELossGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(kldiv_loss, backplane, ALL_LAYOUT, bridge::KLDivLossKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(kldiv_loss_grad, backplane, ALL_LAYOUT,
                    bridge::KLDivLossGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(huber_loss, backplane, ALL_LAYOUT, bridge::HuberLossKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(huber_loss_grad, backplane, ALL_LAYOUT,
                    bridge::HuberLossGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(label_smooth, backplane, ALL_LAYOUT,
                    bridge::LabelSmoothKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(label_smooth_grad, backplane, ALL_LAYOUT,
                    bridge::LabelSmoothGradKernel, BRIDGE_FLOAT_DTYPES) {}
