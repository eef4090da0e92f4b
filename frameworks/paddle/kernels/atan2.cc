/* atan2 (numpy broadcasting: diopiAtan2) and its gradient, Paddle's CPU
 * formula: x_grad = sum_to(dout * y / (x^2 + y^2)), y_grad =
 * sum_to(-dout * x / (x^2 + y^2)). */
#include "single_op.h"

namespace bridge {

BRIDGE_BINARY(Atan2Kernel, "atan2", diopiAtan2)

template <typename T>
void Atan2GradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const phi::DenseTensor &y, const phi::DenseTensor &dout,
                     phi::DenseTensor *x_grad, phi::DenseTensor *y_grad) {
  KernelCall call(dev_ctx, "atan2_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(dout), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(dout)));
  diopiTensorHandle_t a = call.wrap(pd(x)), b = call.wrap(pd(y)),
                      g = call.wrap(pd(dout));
  /* g / (x^2 + y^2), broadcast to dout's shape */
  diopiTensorHandle_t scale = call.temp(dtype, ndim, shape);
  diopiTensorHandle_t b2 = call.temp(dtype, ndim, shape);
  diopiScalar_t one = kernel_scalar(1.0);
  call.check(DIOPI(call, diopiMul)(call.diopi(), scale, a, a), "diopiMul");
  call.check(DIOPI(call, diopiMul)(call.diopi(), b2, b, b), "diopiMul");
  call.check(DIOPI(call, diopiAddInp)(call.diopi(), scale, b2, &one),
             "diopiAddInp");
  call.check(
      DIOPI(call, diopiDiv)(call.diopi(), scale, g, scale, RoundModeNone),
      "diopiDiv");
  diopiTensorHandle_t part = call.temp(dtype, ndim, shape);
  if (x_grad) {
    call.check(DIOPI(call, diopiMul)(call.diopi(), part, scale, b), "diopiMul");
    kernel_sum_to(call, pd(x_grad), part, ndim, shape, 1.0);
  }
  if (y_grad) {
    call.check(DIOPI(call, diopiMul)(call.diopi(), part, scale, a), "diopiMul");
    kernel_sum_to(call, pd(y_grad), part, ndim, shape, -1.0);
  }
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(atan2, backplane, ALL_LAYOUT, bridge::Atan2Kernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(atan2_grad, backplane, ALL_LAYOUT, bridge::Atan2GradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
