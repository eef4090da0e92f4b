/* batch_norm and batch_norm_grad (NCHW or NC): diopiBatchNorm(Backward).
 * Paddle's momentum keeps that share of the running statistics; DIOPI's
 * (PyTorch's) momentum is the share of the new batch: 1 - Paddle's. Paddle's
 * saved_variance is the inverse standard deviation, as DIOPI's
 * save_invstd. reserve_space (cuDNN's) stays empty. */
#include "kernel_call.h"

namespace bridge {

/* The running statistic Paddle updates: `out` shares `in`'s memory, or
 * starts as a copy of it. */
static diopiTensorHandle_t running(KernelCall &call, PD_Tensor *in,
                                   PD_Tensor *out) {
  diopiTensorHandle_t source = call.wrap(in);
  if (out == NULL)
    return source;
  diopiTensorHandle_t target = call.alloc(out);
  PD_Status status = C_SUCCESS;
  if (PD_TensorGetDataPointer(in, &status) !=
      PD_TensorGetDataPointer(out, &status))
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), source, target),
               "diopiCopyInp");
  return target;
}

static void check_layout(KernelCall &call, const std::string &layout) {
  if (layout != "NCHW" && layout != "AnyLayout")
    call.fail("data_layout %s: only NCHW is supported", layout.c_str());
}

template <typename T>
void BatchNormKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const phi::DenseTensor &mean,
                     const phi::DenseTensor &variance,
                     const paddle::optional<phi::DenseTensor> &scale,
                     const paddle::optional<phi::DenseTensor> &bias,
                     bool is_test, float momentum, float epsilon,
                     const std::string &data_layout, bool use_global_stats,
                     bool trainable_statistics, phi::DenseTensor *y,
                     phi::DenseTensor *mean_out, phi::DenseTensor *variance_out,
                     phi::DenseTensor *saved_mean,
                     phi::DenseTensor *saved_variance,
                     phi::DenseTensor *reserve_space) {
  KernelCall call(dev_ctx, "batch_norm");
  check_layout(call, data_layout);
  bool training = !is_test && !use_global_stats;
  diopiTensorHandle_t in = call.wrap(pd(x));
  diopiTensorHandle_t rm = running(call, pd(mean), pd(mean_out));
  diopiTensorHandle_t rv = running(call, pd(variance), pd(variance_out));
  diopiTensorHandle_t sm = call.alloc(pd(saved_mean));
  diopiTensorHandle_t sv = call.alloc(pd(saved_variance));
  call.check(DIOPI(call, diopiBatchNorm)(call.diopi(), call.alloc(pd(y)), sm,
                                         sv, in, call.wrap(pd(scale)),
                                         call.wrap(pd(bias)), rm, rv, training,
                                         1.0 - momentum, epsilon),
             "diopiBatchNorm");
}

template <typename T>
void BatchNormGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const paddle::optional<phi::DenseTensor> &scale,
    const paddle::optional<phi::DenseTensor> &bias,
    const paddle::optional<phi::DenseTensor> &mean,
    const paddle::optional<phi::DenseTensor> &variance,
    const phi::DenseTensor &saved_mean, const phi::DenseTensor &saved_variance,
    const paddle::optional<phi::DenseTensor> &reserve_space,
    const phi::DenseTensor &y_grad, float momentum, float epsilon,
    const std::string &data_layout, bool is_test, bool use_global_stats,
    bool trainable_statistics, phi::DenseTensor *x_grad,
    phi::DenseTensor *scale_grad, phi::DenseTensor *bias_grad) {
  KernelCall call(dev_ctx, "batch_norm_grad");
  check_layout(call, data_layout);
  bool training = !is_test && !use_global_stats;
  call.check(DIOPI(call, diopiBatchNormBackward)(
                 call.diopi(), call.alloc(pd(x_grad)),
                 call.alloc(pd(scale_grad)), call.alloc(pd(bias_grad)),
                 call.wrap(pd(y_grad)), call.wrap(pd(x)), call.wrap(pd(scale)),
                 call.wrap(pd(mean)), call.wrap(pd(variance)),
                 call.wrap(pd(saved_mean)), call.wrap(pd(saved_variance)),
                 training, epsilon),
             "diopiBatchNormBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(batch_norm, backplane, ALL_LAYOUT, bridge::BatchNormKernel,
                    float) {}
PD_BUILD_PHI_KERNEL(batch_norm_grad, backplane, ALL_LAYOUT,
                    bridge::BatchNormGradKernel, float) {}
