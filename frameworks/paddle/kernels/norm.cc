/* batch_norm and batch_norm_grad (NCHW or NC): diopiBatchNorm(Backward);
 * layer_norm and layer_norm_grad: diopiLayerNorm(Backward); group_norm and
 * group_norm_grad (channels first): diopiGroupNorm(Backward); instance_norm and
 * instance_norm_grad: diopiInstanceNorm(Backward), the saved statistics
 * (per image and channel: the mean and the inverse standard deviation, as
 * Paddle saves them) by diopiMean, diopiVar, diopiAddInpScalar and
 * diopiRsqrtInp.
 * Paddle's batch_norm momentum keeps that share of the running statistics;
 * DIOPI's (PyTorch's) momentum is the share of the new batch: 1 - Paddle's.
 * Paddle's saved_variance is the inverse standard deviation, as DIOPI's
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

/* variance = 1 / invstd^2 - epsilon, in place. */
static void variance_from_invstd(KernelCall &call, diopiTensorHandle_t var,
                                 double epsilon) {
  diopiScalar_t minus_eps = kernel_scalar(-epsilon), one = kernel_scalar(1.0);
  call.check(DIOPI(call, diopiMulInp)(call.diopi(), var, var), "diopiMulInp");
  call.check(DIOPI(call, diopiReciprocalInp)(call.diopi(), var),
             "diopiReciprocalInp");
  call.check(
      DIOPI(call, diopiAddInpScalar)(call.diopi(), var, &minus_eps, &one),
      "diopiAddInpScalar");
}

/* Scratch invstd = rsqrt(variance + epsilon), of variance's shape. */
static diopiTensorHandle_t
invstd_from_variance(KernelCall &call, PD_Tensor *variance, double epsilon) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(variance, shape);
  diopiTensorHandle_t invstd =
      call.temp(kernel_diopi_dtype(kernel_dtype(variance)), ndim, shape);
  diopiScalar_t eps = kernel_scalar(epsilon), one = kernel_scalar(1.0);
  call.check(DIOPI(call, diopiAddScalar)(call.diopi(), invstd,
                                         call.wrap(variance), &eps, &one),
             "diopiAddScalar");
  call.check(DIOPI(call, diopiRsqrtInp)(call.diopi(), invstd), "diopiRsqrtInp");
  return invstd;
}

/* Paddle normalizes over the dims from begin_norm_axis on; its scale and
 * bias hold one element per normalized element (flattened), mean and
 * variance one per row. DIOPI saves the inverse standard deviation where
 * Paddle saves the variance: variance = 1 / invstd^2 - epsilon, and back,
 * invstd = rsqrt(variance + epsilon). */
static int normalized_shape(KernelCall &call, PD_Tensor *x, int begin_norm_axis,
                            int64_t *shape) {
  int64_t dims[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, dims);
  if (begin_norm_axis < 0)
    begin_norm_axis += ndim;
  if (begin_norm_axis < 0 || begin_norm_axis >= ndim)
    call.fail("begin_norm_axis %d out of range for rank %d", begin_norm_axis,
              ndim);
  for (int d = begin_norm_axis; d < ndim; d++)
    shape[d - begin_norm_axis] = dims[d];
  return ndim - begin_norm_axis;
}

/* A per-element parameter (scale, bias or their gradients) viewed with the
 * normalized shape. */
static diopiTensorHandle_t per_element(KernelCall &call, PD_Tensor *t,
                                       bool output, int n,
                                       const int64_t *shape) {
  if (t == NULL)
    return NULL;
  if (output)
    call.alloc(t);
  return call.wrap(t, n, shape);
}

template <typename T>
void LayerNormKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const paddle::optional<phi::DenseTensor> &scale,
                     const paddle::optional<phi::DenseTensor> &bias,
                     float epsilon, int begin_norm_axis, phi::DenseTensor *out,
                     phi::DenseTensor *mean, phi::DenseTensor *variance) {
  KernelCall call(dev_ctx, "layer_norm");
  int64_t shape[BP_OPS_MAX_DIMS];
  int n = normalized_shape(call, pd(x), begin_norm_axis, shape);
  diopiSize_t normalized = {shape, n};
  diopiTensorHandle_t var = call.alloc(pd(variance));
  call.check(
      DIOPI(call, diopiLayerNorm)(
          call.diopi(), call.alloc(pd(out)), call.alloc(pd(mean)), var,
          call.wrap(pd(x)), per_element(call, pd(scale), false, n, shape),
          per_element(call, pd(bias), false, n, shape), normalized, epsilon),
      "diopiLayerNorm");
  variance_from_invstd(call, var, epsilon);
}

template <typename T>
void LayerNormGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                         const paddle::optional<phi::DenseTensor> &scale,
                         const paddle::optional<phi::DenseTensor> &bias,
                         const phi::DenseTensor &mean,
                         const phi::DenseTensor &variance,
                         const phi::DenseTensor &out_grad, float epsilon,
                         int begin_norm_axis, phi::DenseTensor *x_grad,
                         phi::DenseTensor *scale_grad,
                         phi::DenseTensor *bias_grad) {
  /* bias is Paddle's no-need-buffer input here (dims, no memory), and
   * the gradient does not depend on it. */
  KernelCall call(dev_ctx, "layer_norm_grad");
  int64_t shape[BP_OPS_MAX_DIMS];
  int n = normalized_shape(call, pd(x), begin_norm_axis, shape);
  diopiSize_t normalized = {shape, n};
  diopiTensorHandle_t invstd =
      invstd_from_variance(call, pd(variance), (double)epsilon);
  call.check(DIOPI(call, diopiLayerNormBackward)(
                 call.diopi(), call.alloc(pd(x_grad)),
                 per_element(call, pd(scale_grad), true, n, shape),
                 per_element(call, pd(bias_grad), true, n, shape),
                 call.wrap(pd(out_grad)), call.wrap(pd(x)),
                 per_element(call, pd(scale), false, n, shape), NULL,
                 call.wrap(pd(mean)), invstd, normalized),
             "diopiLayerNormBackward");
}

/* group_norm takes channels first at any rank (NCL, NCHW, NCDHW). */
static void check_channels_first(KernelCall &call, const std::string &layout) {
  if (layout.compare(0, 2, "NC") != 0 && layout != "AnyLayout")
    call.fail("data_layout %s: only channels first (NCL, NCHW, NCDHW) is "
              "supported",
              layout.c_str());
}

/* Paddle's mean and variance of group_norm are [N, groups]; DIOPI's
 * statistics are the same values, invstd for variance. */
template <typename T>
void GroupNormKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const paddle::optional<phi::DenseTensor> &scale,
                     const paddle::optional<phi::DenseTensor> &bias,
                     double epsilon, int groups, const std::string &data_layout,
                     phi::DenseTensor *y, phi::DenseTensor *mean,
                     phi::DenseTensor *variance) {
  KernelCall call(dev_ctx, "group_norm", kernel_dtype_of<T>());
  check_channels_first(call, data_layout);
  diopiTensorHandle_t var = call.alloc(pd(variance));
  call.check(DIOPI(call, diopiGroupNorm)(call.diopi(), call.alloc(pd(y)),
                                         call.alloc(pd(mean)), var,
                                         call.wrap(pd(x)), call.wrap(pd(scale)),
                                         call.wrap(pd(bias)), groups, epsilon),
             "diopiGroupNorm");
  variance_from_invstd(call, var, epsilon);
}

template <typename T>
void GroupNormGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                         const paddle::optional<phi::DenseTensor> &scale,
                         const paddle::optional<phi::DenseTensor> &bias,
                         const phi::DenseTensor &y,
                         const phi::DenseTensor &mean,
                         const phi::DenseTensor &variance,
                         const phi::DenseTensor &d_y, double epsilon,
                         int groups, const std::string &data_layout,
                         phi::DenseTensor *d_x, phi::DenseTensor *d_scale,
                         phi::DenseTensor *d_bias) {
  KernelCall call(dev_ctx, "group_norm_grad", kernel_dtype_of<T>());
  check_channels_first(call, data_layout);
  diopiTensorHandle_t invstd =
      invstd_from_variance(call, pd(variance), epsilon);
  /* Paddle computes group_norm's x gradient in place of y's (d_x shares
   * d_y's memory): the op writes scratch then, as it must not write the
   * gradient it still reads. */
  PD_Status status = C_SUCCESS;
  diopiTensorHandle_t dx = call.alloc(pd(d_x));
  bool in_place = d_x == NULL || PD_TensorGetDataPointer(pd(d_x), &status) ==
                                     PD_TensorGetDataPointer(pd(d_y), &status);
  diopiTensorHandle_t target = dx;
  if (in_place) {
    int64_t shape[BP_OPS_MAX_DIMS];
    int ndim = kernel_dims(pd(x), shape);
    target = call.temp(kernel_diopi_dtype(kernel_dtype(pd(x))), ndim, shape);
  }
  call.check(DIOPI(call, diopiGroupNormBackward)(
                 call.diopi(), target, call.alloc(pd(d_scale)),
                 call.alloc(pd(d_bias)), call.wrap(pd(d_y)), call.wrap(pd(x)),
                 call.wrap(pd(scale)), call.wrap(pd(mean)), invstd, groups),
             "diopiGroupNormBackward");
  if (in_place && dx)
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), target, dx),
               "diopiCopyInp");
}

template <typename T>
void InstanceNormKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        const paddle::optional<phi::DenseTensor> &scale,
                        const paddle::optional<phi::DenseTensor> &bias,
                        float epsilon, phi::DenseTensor *y,
                        phi::DenseTensor *saved_mean,
                        phi::DenseTensor *saved_variance) {
  KernelCall call(dev_ctx, "instance_norm", kernel_dtype_of<T>());
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiInstanceNorm)(call.diopi(), call.alloc(pd(y)), in,
                                            1, call.wrap(pd(scale)),
                                            call.wrap(pd(bias)), epsilon),
             "diopiInstanceNorm");
  if (saved_mean == NULL && saved_variance == NULL)
    return;
  int64_t shape[BP_OPS_MAX_DIMS];
  kernel_dims(pd(x), shape);
  int64_t rows = shape[0] * shape[1];
  int64_t planes[2] = {rows, rows ? kernel_numel(pd(x)) / rows : 0};
  int64_t spatial = 1;
  diopiSize_t dim = {&spatial, 1};
  diopiTensorHandle_t flat = call.wrap(pd(x), 2, planes);
  if (saved_mean)
    call.check(DIOPI(call, diopiMean)(call.diopi(), call.alloc(pd(saved_mean)),
                                      flat, dim),
               "diopiMean");
  if (saved_variance) {
    diopiTensorHandle_t var = call.alloc(pd(saved_variance));
    diopiScalar_t none = kernel_scalar(0.0), eps = kernel_scalar(epsilon),
                  one = kernel_scalar(1.0);
    call.check(DIOPI(call, diopiVar)(call.diopi(), var, flat, dim, &none),
               "diopiVar");
    call.check(DIOPI(call, diopiAddInpScalar)(call.diopi(), var, &eps, &one),
               "diopiAddInpScalar");
    call.check(DIOPI(call, diopiRsqrtInp)(call.diopi(), var), "diopiRsqrtInp");
  }
}

/* The op library recomputes the statistics from x. */
template <typename T>
void InstanceNormGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const paddle::optional<phi::DenseTensor> &scale,
    const paddle::optional<phi::DenseTensor> &bias,
    const phi::DenseTensor &saved_mean, const phi::DenseTensor &saved_variance,
    const phi::DenseTensor &y_grad, float epsilon, phi::DenseTensor *x_grad,
    phi::DenseTensor *scale_grad, phi::DenseTensor *bias_grad) {
  KernelCall call(dev_ctx, "instance_norm_grad", kernel_dtype_of<T>());
  call.check(DIOPI(call, diopiInstanceNormBackward)(
                 call.diopi(), call.alloc(pd(x_grad)),
                 call.alloc(pd(scale_grad)), call.alloc(pd(bias_grad)),
                 call.wrap(pd(y_grad)), call.wrap(pd(x)), call.wrap(pd(scale)),
                 NULL, 1, epsilon),
             "diopiInstanceNormBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(layer_norm, backplane, ALL_LAYOUT, bridge::LayerNormKernel,
                    float) {}
PD_BUILD_PHI_KERNEL(layer_norm_grad, backplane, ALL_LAYOUT,
                    bridge::LayerNormGradKernel, float) {}
PD_BUILD_PHI_KERNEL(batch_norm, backplane, ALL_LAYOUT, bridge::BatchNormKernel,
                    float) {}
PD_BUILD_PHI_KERNEL(batch_norm_grad, backplane, ALL_LAYOUT,
                    bridge::BatchNormGradKernel, float) {}
PD_BUILD_PHI_KERNEL(group_norm, backplane, ALL_LAYOUT, bridge::GroupNormKernel,
                    float, double) {}
PD_BUILD_PHI_KERNEL(group_norm_grad, backplane, ALL_LAYOUT,
                    bridge::GroupNormGradKernel, float, double) {}
PD_BUILD_PHI_KERNEL(instance_norm, backplane, ALL_LAYOUT,
                    bridge::InstanceNormKernel, float, double) {}
PD_BUILD_PHI_KERNEL(instance_norm_grad, backplane, ALL_LAYOUT,
                    bridge::InstanceNormGradKernel, float, double) {}
