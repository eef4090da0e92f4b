/* sgd and momentum, in place on the parameter, with the learning rate as
 * Paddle keeps it: a one-element device tensor, broadcast by diopiMul, so
 * no step waits for the device. */

#include "kernel_call.h"

namespace bridge {

/* param_out = param - lr * update. */
static void descend(KernelCall &call, PD_Tensor *param, PD_Tensor *lr,
                    diopiConstTensorHandle_t update, PD_Tensor *param_out) {
  int64_t shape[BP_OPS_MAX_DIMS], one_element = 1;
  int ndim = kernel_dims(param, shape);
  diopiTensorHandle_t step =
      call.temp(kernel_diopi_dtype(kernel_dtype(param)), ndim, shape);
  call.check(DIOPI(call, diopiMul)(call.diopi(), step, update,
                                   call.wrap(lr, 1, &one_element)),
             "diopiMul");
  diopiScalar_t one = kernel_scalar(1.0);
  diopiTensorHandle_t p = call.wrap(param);
  call.check(
      DIOPI(call, diopiSub)(call.diopi(), call.alloc(param_out), p, step, &one),
      "diopiSub");
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
