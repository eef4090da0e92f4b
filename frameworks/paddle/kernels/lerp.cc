/* lerp (out = x + weight * (y - x), numpy broadcasting of all three:
 * diopiLerpTensor) and its gradient, Paddle's CPU formula: x_grad =
 * sum_to(dout * (1 - weight)), y_grad = sum_to(dout * weight). */
#include "kernel_call.h"

namespace bridge {

template <typename T>
void LerpKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::DenseTensor &y, const phi::DenseTensor &weight,
                phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "lerp", kernel_dtype_of<T>());
  diopiTensorHandle_t a = call.wrap(pd(x)), b = call.wrap(pd(y)),
                      w = call.wrap(pd(weight));
  call.check(
      DIOPI(call, diopiLerpTensor)(call.diopi(), call.alloc(pd(out)), a, b, w),
      "diopiLerpTensor");
}

template <typename T>
void LerpGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &y, const phi::DenseTensor &weight,
                    const phi::DenseTensor &out,
                    const phi::DenseTensor &out_grad, phi::DenseTensor *x_grad,
                    phi::DenseTensor *y_grad) {
  KernelCall call(dev_ctx, "lerp_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(out_grad), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(out_grad)));
  diopiTensorHandle_t g = call.wrap(pd(out_grad));
  diopiTensorHandle_t to_y = call.temp(dtype, ndim, shape);
  call.check(
      DIOPI(call, diopiMul)(call.diopi(), to_y, g, call.wrap(pd(weight))),
      "diopiMul");
  if (x_grad) {
    diopiTensorHandle_t to_x = call.temp(dtype, ndim, shape);
    diopiScalar_t one = kernel_scalar(1.0);
    call.check(DIOPI(call, diopiSub)(call.diopi(), to_x, g, to_y, &one),
               "diopiSub");
    kernel_sum_to(call, pd(x_grad), to_x, ndim, shape, 1.0);
  }
  kernel_sum_to(call, pd(y_grad), to_y, ndim, shape, 1.0);
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(lerp, backplane, ALL_LAYOUT, bridge::LerpKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(lerp_grad, backplane, ALL_LAYOUT, bridge::LerpGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
