/* sgd and momentum, in place on the parameter, with the learning rate as
 * Paddle keeps it: a one-element device tensor, so no step waits for the
 * device (rmsprop too, composed of elementwise ops); adam, adamw and
 * adagrad, whose DIOPI ops take the rate as a number, read it back (one
 * wait per parameter and step). */

#include <math.h>

#include "kernel_call.h"

namespace bridge {

/* param_out = param - lr * update, as one matrix product with the learning
 * rate read on the device: [1, n] = 1 * param[1, n] - lr[1, 1] x
 * update[1, n] (diopiAddmm). (lr * update as an elementwise product broadcasts
 * the one-element tensor, which the op library serves by its slow general
 * path: about 100 ns an element.) `update` is contiguous with param's
 * element count. */
static void descend(KernelCall &call, PD_Tensor *param, PD_Tensor *lr,
                    diopiConstTensorHandle_t update, PD_Tensor *param_out) {
  int64_t row[2] = {1, kernel_numel(param)}, one_by_one[2] = {1, 1};
  const void *update_data = NULL;
  if (diopiGetTensorDataConst(update, &update_data) != diopiSuccess)
    call.fail("the update has no data");
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(param));
  diopiTensorHandle_t u =
      call.wrap_data(const_cast<void *>(update_data), dtype, 2, row, NULL);
  call.alloc(param_out);
  diopiScalar_t one = kernel_scalar(1.0), minus_one = kernel_scalar(-1.0);
  call.check(DIOPI(call, diopiAddmm)(call.diopi(), call.wrap(param_out, 2, row),
                                     call.wrap(param, 2, row),
                                     call.wrap(lr, 2, one_by_one), u, &one,
                                     &minus_one),
             "diopiAddmm");
}

static void reject_multi_precision(KernelCall &call, bool multi_precision,
                                   PD_Tensor *master_param) {
  if (multi_precision || master_param)
    call.fail("multi_precision (a master parameter) is not supported");
}

template <typename T>
void SgdKernel(const phi::Context &dev_ctx, const phi::DenseTensor &param,
               const phi::DenseTensor &learning_rate,
               const phi::DenseTensor &grad,
               const paddle::optional<phi::DenseTensor> &master_param,
               bool multi_precision, phi::DenseTensor *param_out,
               phi::DenseTensor *master_param_out) {
  KernelCall call(dev_ctx, "sgd");
  reject_multi_precision(call, multi_precision, pd(master_param));
  descend(call, pd(param), pd(learning_rate), call.wrap(pd(grad)),
          pd(param_out));
}

/*   g = rescale_grad * grad (+ coeff * param for "l2_decay");
 *   v = mu * v + g;  param -= lr * (nesterov ? g + mu * v : v). */
template <typename T>
void MomentumKernel(const phi::Context &dev_ctx, const phi::DenseTensor &param,
                    const phi::DenseTensor &grad,
                    const phi::DenseTensor &velocity,
                    const phi::DenseTensor &learning_rate,
                    const paddle::optional<phi::DenseTensor> &master_param,
                    float mu, bool use_nesterov,
                    const std::string &regularization_method,
                    float regularization_coeff, bool multi_precision,
                    float rescale_grad, phi::DenseTensor *param_out,
                    phi::DenseTensor *velocity_out,
                    phi::DenseTensor *master_param_out) {
  KernelCall call(dev_ctx, "momentum");
  reject_multi_precision(call, multi_precision, pd(master_param));
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(param), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(param)));
  diopiTensorHandle_t g = call.temp(dtype, ndim, shape);
  diopiScalar_t r = kernel_scalar(rescale_grad);
  call.check(
      DIOPI(call, diopiMulScalar)(call.diopi(), g, call.wrap(pd(grad)), &r),
      "diopiMulScalar");
  if (regularization_method == "l2_decay") {
    diopiScalar_t c = kernel_scalar(regularization_coeff);
    call.check(
        DIOPI(call, diopiAddInp)(call.diopi(), g, call.wrap(pd(param)), &c),
        "diopiAddInp");
  }
  diopiScalar_t m = kernel_scalar(mu), one = kernel_scalar(1.0);
  diopiTensorHandle_t v = call.wrap(pd(velocity));
  diopiTensorHandle_t v_out = call.alloc(pd(velocity_out));
  call.check(DIOPI(call, diopiMulScalar)(call.diopi(), v_out, v, &m),
             "diopiMulScalar");
  call.check(DIOPI(call, diopiAddInp)(call.diopi(), v_out, g, &one),
             "diopiAddInp");
  diopiTensorHandle_t update = v_out;
  if (use_nesterov) {
    update = call.temp(dtype, ndim, shape);
    call.check(DIOPI(call, diopiAdd)(call.diopi(), update, g, v_out, &m),
               "diopiAdd");
  }
  descend(call, pd(param), pd(learning_rate), update, pd(param_out));
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(sgd, backplane, ALL_LAYOUT, bridge::SgdKernel, float) {}
PD_BUILD_PHI_KERNEL(momentum, backplane, ALL_LAYOUT, bridge::MomentumKernel,
                    float) {}

namespace bridge {

/* `n` one-element float32 device tensors (a learning rate, beta1's power)
 * read together: every copy queued on the kernel's stream, then one wait. */
static void read_scalars(KernelCall &call, PD_Tensor *const *from, float **to,
                         int n) {
  bp_stream_t *stream = bp_ops_context_stream(call.diopi());
  PD_Status status = C_SUCCESS;
  for (int i = 0; i < n; i++) {
    if (kernel_numel(from[i]) != 1 ||
        kernel_dtype(from[i]) != PD_DataType::FLOAT32)
      call.fail("a learning rate or beta power must be one float32");
    bp_status_t st = bp_copy_async_unsafe(
        NULL, to[i], call.device(), PD_TensorGetDataPointer(from[i], &status),
        sizeof(float), stream);
    if (st != BP_OK)
      call.fail("reading a scalar: %s", bp_last_error());
  }
  if (bp_stream_synchronize(stream) != BP_OK)
    call.fail("reading the learning rate: %s", bp_last_error());
}

/* `out` updated in place: shares `in`'s memory, or starts as its copy. */
static diopiTensorHandle_t in_place(KernelCall &call, PD_Tensor *in,
                                    PD_Tensor *out) {
  diopiTensorHandle_t source = call.wrap(in);
  diopiTensorHandle_t target = call.alloc(out);
  PD_Status status = C_SUCCESS;
  if (PD_TensorGetDataPointer(in, &status) !=
      PD_TensorGetDataPointer(out, &status))
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), source, target),
               "diopiCopyInp");
  return target;
}

/* Adam and AdamW as DIOPI's (PyTorch's) update, which equals Paddle's when
 * the step is the one whose beta1 power Paddle keeps: step = log(beta1_pow)
 * / log(beta1). The learning rate and beta1's power are read from the device
 * (one wait per parameter and step); the powers advance on the device. */
static void adam_step(KernelCall &call, bool decoupled, float weight_decay,
                      PD_Tensor *param, PD_Tensor *grad, PD_Tensor *lr,
                      PD_Tensor *m1, PD_Tensor *m2, PD_Tensor *b1p,
                      PD_Tensor *b2p, const phi::Scalar &beta1,
                      const phi::Scalar &beta2, const phi::Scalar &epsilon,
                      bool use_global_beta_pow, bool amsgrad,
                      PD_Tensor *param_out, PD_Tensor *m1_out,
                      PD_Tensor *m2_out, PD_Tensor *b1p_out,
                      PD_Tensor *b2p_out) {
  if (amsgrad)
    call.fail("amsgrad is not supported");
  double b1 = beta1.to<double>(), b2 = beta2.to<double>();
  float rate = 0, power = 0;
  PD_Tensor *from[2] = {lr, b1p};
  float *to[2] = {&rate, &power};
  read_scalars(call, from, to, 2);
  if (!(b1 > 0 && b1 < 1) || !(power > 0 && power < 1))
    call.fail("beta1 %g and its power %g give no step", b1, (double)power);
  int64_t step = llround(log((double)power) / log(b1));
  diopiTensorHandle_t p = in_place(call, param, param_out);
  diopiTensorHandle_t exp_avg = in_place(call, m1, m1_out);
  diopiTensorHandle_t exp_avg_sq = in_place(call, m2, m2_out);
  diopiTensorHandle_t g = call.wrap(grad);
  float eps = epsilon.to<float>();
  diopiError_t err =
      decoupled
          ? DIOPI(call, diopiAdamW)(call.diopi(), p, g, exp_avg, exp_avg_sq,
                                    NULL, rate, (float)b1, (float)b2, eps,
                                    weight_decay, step, false)
          : DIOPI(call, diopiAdam)(call.diopi(), p, g, exp_avg, exp_avg_sq,
                                   NULL, rate, (float)b1, (float)b2, eps, 0.0f,
                                   step, false);
  call.check(err, decoupled ? "diopiAdamW" : "diopiAdam");
  PD_Tensor *powers[2] = {b1p, b2p}, *outs[2] = {b1p_out, b2p_out};
  double betas[2] = {b1, b2};
  for (int i = 0; i < 2 && !use_global_beta_pow; i++) {
    diopiScalar_t s = kernel_scalar(betas[i]);
    diopiTensorHandle_t o = in_place(call, powers[i], outs[i]);
    call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), o, &s),
               "diopiMulInpScalar");
  }
}

template <typename T>
void AdamKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &param,
    const phi::DenseTensor &grad, const phi::DenseTensor &learning_rate,
    const phi::DenseTensor &moment1, const phi::DenseTensor &moment2,
    const paddle::optional<phi::DenseTensor> &moment2_max,
    const phi::DenseTensor &beta1_pow, const phi::DenseTensor &beta2_pow,
    const paddle::optional<phi::DenseTensor> &master_param,
    const paddle::optional<phi::DenseTensor> &skip_update,
    const phi::Scalar &beta1, const phi::Scalar &beta2,
    const phi::Scalar &epsilon, bool lazy_mode,
    int64_t min_row_size_to_use_multithread, bool multi_precision,
    bool use_global_beta_pow, bool amsgrad, phi::DenseTensor *param_out,
    phi::DenseTensor *moment1_out, phi::DenseTensor *moment2_out,
    phi::DenseTensor *moment2_max_out, phi::DenseTensor *beta1_pow_out,
    phi::DenseTensor *beta2_pow_out, phi::DenseTensor *master_param_outs) {
  KernelCall call(dev_ctx, "adam");
  reject_multi_precision(call, multi_precision, pd(master_param));
  if (skip_update)
    call.fail("skip_update is not supported");
  adam_step(call, false, 0.0f, pd(param), pd(grad), pd(learning_rate),
            pd(moment1), pd(moment2), pd(beta1_pow), pd(beta2_pow), beta1,
            beta2, epsilon, use_global_beta_pow, amsgrad, pd(param_out),
            pd(moment1_out), pd(moment2_out), pd(beta1_pow_out),
            pd(beta2_pow_out));
}

template <typename T>
void AdamwKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &param,
    const phi::DenseTensor &grad, const phi::DenseTensor &learning_rate,
    const phi::DenseTensor &moment1, const phi::DenseTensor &moment2,
    const paddle::optional<phi::DenseTensor> &moment2_max,
    const phi::DenseTensor &beta1_pow, const phi::DenseTensor &beta2_pow,
    const paddle::optional<phi::DenseTensor> &master_param,
    const paddle::optional<phi::DenseTensor> &skip_update,
    const phi::Scalar &beta1, const phi::Scalar &beta2,
    const phi::Scalar &epsilon, float lr_ratio, float coeff, bool with_decay,
    bool lazy_mode, int64_t min_row_size_to_use_multithread,
    bool multi_precision, bool use_global_beta_pow, bool amsgrad,
    phi::DenseTensor *param_out, phi::DenseTensor *moment1_out,
    phi::DenseTensor *moment2_out, phi::DenseTensor *moment2_max_out,
    phi::DenseTensor *beta1_pow_out, phi::DenseTensor *beta2_pow_out,
    phi::DenseTensor *master_param_outs) {
  KernelCall call(dev_ctx, "adamw");
  reject_multi_precision(call, multi_precision, pd(master_param));
  if (skip_update)
    call.fail("skip_update is not supported");
  if (lr_ratio != 1.0f)
    call.fail("lr_ratio %g: only 1 is supported", (double)lr_ratio);
  adam_step(call, true, with_decay ? coeff : 0.0f, pd(param), pd(grad),
            pd(learning_rate), pd(moment1), pd(moment2), pd(beta1_pow),
            pd(beta2_pow), beta1, beta2, epsilon, use_global_beta_pow, amsgrad,
            pd(param_out), pd(moment1_out), pd(moment2_out), pd(beta1_pow_out),
            pd(beta2_pow_out));
}

/* Adagrad as DIOPI's (PyTorch's) step 1 with no decay, which is Paddle's:
 * moment += grad^2; param -= lr * grad / (sqrt(moment) + epsilon). The
 * learning rate is read from the device. */
template <typename T>
void AdagradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &param,
                   const phi::DenseTensor &grad, const phi::DenseTensor &moment,
                   const phi::DenseTensor &learning_rate,
                   const paddle::optional<phi::DenseTensor> &master_param,
                   float epsilon, bool multi_precision,
                   phi::DenseTensor *param_out, phi::DenseTensor *moment_out,
                   phi::DenseTensor *master_param_outs) {
  KernelCall call(dev_ctx, "adagrad");
  reject_multi_precision(call, multi_precision, pd(master_param));
  float rate = 0;
  PD_Tensor *from[1] = {pd(learning_rate)};
  float *to[1] = {&rate};
  read_scalars(call, from, to, 1);
  diopiTensorHandle_t p = in_place(call, pd(param), pd(param_out));
  diopiTensorHandle_t sum = in_place(call, pd(moment), pd(moment_out));
  call.check(DIOPI(call, diopiAdagrad)(call.diopi(), p, call.wrap(pd(grad)),
                                       sum, rate, 0.0f, 0.0f, epsilon, 1),
             "diopiAdagrad");
}

/* RMSProp as Paddle defines it (epsilon inside the square root and the
 * learning rate inside the momentum, unlike diopiRmsprop's PyTorch form),
 * composed of elementwise ops with the rate broadcast from the device:
 *   ms  = decay * ms + (1 - decay) * g^2
 *   mg  = decay * mg + (1 - decay) * g            (centered)
 *   mom = momentum * mom + lr * g / sqrt(ms [- mg^2] + epsilon)
 *   param -= mom */
template <typename T>
void RmspropKernel(const phi::Context &dev_ctx, const phi::DenseTensor &param,
                   const phi::DenseTensor &mean_square,
                   const phi::DenseTensor &grad, const phi::DenseTensor &moment,
                   const phi::DenseTensor &learning_rate,
                   const paddle::optional<phi::DenseTensor> &mean_grad,
                   const paddle::optional<phi::DenseTensor> &master_param,
                   float epsilon, float decay, float momentum, bool centered,
                   bool multi_precision, phi::DenseTensor *param_out,
                   phi::DenseTensor *moment_out,
                   phi::DenseTensor *mean_square_out,
                   phi::DenseTensor *mean_grad_out,
                   phi::DenseTensor *master_param_outs) {
  KernelCall call(dev_ctx, "rmsprop", kernel_dtype_of<T>());
  reject_multi_precision(call, multi_precision, pd(master_param));
  if (centered && (!mean_grad || mean_grad_out == NULL))
    call.fail("centered: mean_grad and its output are required");
  int64_t shape[BP_OPS_MAX_DIMS], one = 1;
  int ndim = kernel_dims(pd(grad), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(grad)));
  diopiTensorHandle_t g = call.wrap(pd(grad));
  diopiTensorHandle_t step = call.temp(dtype, ndim, shape);
  diopiScalar_t keep = kernel_scalar(decay), add = kernel_scalar(1.0 - decay),
                eps = kernel_scalar(epsilon), mu = kernel_scalar(momentum),
                unit = kernel_scalar(1.0);
  diopiTensorHandle_t ms = in_place(call, pd(mean_square), pd(mean_square_out));
  call.check(DIOPI(call, diopiMul)(call.diopi(), step, g, g), "diopiMul");
  call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), ms, &keep),
             "diopiMulInpScalar");
  call.check(DIOPI(call, diopiAddInp)(call.diopi(), ms, step, &add),
             "diopiAddInp");
  /* step = the denominator's square: ms, less mg^2 when centered. */
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), ms, step), "diopiCopyInp");
  if (centered) {
    diopiTensorHandle_t mg = in_place(call, pd(mean_grad), pd(mean_grad_out));
    diopiTensorHandle_t square = call.temp(dtype, ndim, shape);
    call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), mg, &keep),
               "diopiMulInpScalar");
    call.check(DIOPI(call, diopiAddInp)(call.diopi(), mg, g, &add),
               "diopiAddInp");
    call.check(DIOPI(call, diopiMul)(call.diopi(), square, mg, mg), "diopiMul");
    call.check(DIOPI(call, diopiSubInp)(call.diopi(), step, square, &unit),
               "diopiSubInp");
  }
  call.check(DIOPI(call, diopiAddInpScalar)(call.diopi(), step, &eps, &unit),
             "diopiAddInpScalar");
  call.check(DIOPI(call, diopiSqrtInp)(call.diopi(), step), "diopiSqrtInp");
  /* step = lr * g / step */
  call.check(DIOPI(call, diopiDiv)(call.diopi(), step, g, step, RoundModeNone),
             "diopiDiv");
  call.check(DIOPI(call, diopiMulInp)(call.diopi(), step,
                                      call.wrap(pd(learning_rate), 1, &one)),
             "diopiMulInp");
  diopiTensorHandle_t mom = in_place(call, pd(moment), pd(moment_out));
  call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), mom, &mu),
             "diopiMulInpScalar");
  call.check(DIOPI(call, diopiAddInp)(call.diopi(), mom, step, &unit),
             "diopiAddInp");
  diopiTensorHandle_t p = in_place(call, pd(param), pd(param_out));
  call.check(DIOPI(call, diopiSubInp)(call.diopi(), p, mom, &unit),
             "diopiSubInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(adam, backplane, ALL_LAYOUT, bridge::AdamKernel, float) {}
PD_BUILD_PHI_KERNEL(adamw, backplane, ALL_LAYOUT, bridge::AdamwKernel, float) {}
PD_BUILD_PHI_KERNEL(adagrad, backplane, ALL_LAYOUT, bridge::AdagradKernel,
                    float) {}
PD_BUILD_PHI_KERNEL(rmsprop, backplane, ALL_LAYOUT, bridge::RmspropKernel,
                    float, double) {}
