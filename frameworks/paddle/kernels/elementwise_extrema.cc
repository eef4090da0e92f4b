/* maximum and minimum (numpy broadcasting) and their gradients:
 * diopiMaximum/diopiMinimum forward; backward, as Paddle's CPU kernels,
 * dout goes to the larger (smaller) operand and is split in halves on a
 * tie (diopiSub, diopiSign, diopiAddInpScalar, diopiMulInpScalar, diopiMul,
 * then kernel_sum_to over broadcast dims). */
#include "single_op.h"

namespace bridge {

BRIDGE_BINARY(MaximumKernel, "maximum", diopiMaximum)
BRIDGE_BINARY(MinimumKernel, "minimum", diopiMinimum)

/* dx = sum_to(dout * w), dy = sum_to(dout - dout * w) with w = (sign(a -
 * b) + 1) / 2: maximum's gradients for a = x, b = y; minimum's for a = y,
 * b = x. */
static void extremum_grad(KernelCall &call, PD_Tensor *a, PD_Tensor *b,
                          PD_Tensor *dout, PD_Tensor *dx, PD_Tensor *dy) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(dout, shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(dout));
  diopiTensorHandle_t w = call.temp(dtype, ndim, shape);
  diopiTensorHandle_t part = call.temp(dtype, ndim, shape);
  diopiTensorHandle_t g = call.wrap(dout);
  diopiScalar_t one = kernel_scalar(1.0), half = kernel_scalar(0.5);
  call.check(
      DIOPI(call, diopiSub)(call.diopi(), w, call.wrap(a), call.wrap(b), &one),
      "diopiSub");
  call.check(DIOPI(call, diopiSign)(call.diopi(), w, w), "diopiSign");
  call.check(DIOPI(call, diopiAddInpScalar)(call.diopi(), w, &one, &one),
             "diopiAddInpScalar");
  call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), w, &half),
             "diopiMulInpScalar");
  call.check(DIOPI(call, diopiMul)(call.diopi(), part, g, w), "diopiMul");
  /* w = dout - part: every read of dout before a gradient is written (one
   * may share its memory). */
  call.check(DIOPI(call, diopiSub)(call.diopi(), w, g, part, &one), "diopiSub");
  kernel_sum_to(call, dx, part, ndim, shape, 1.0);
  kernel_sum_to(call, dy, w, ndim, shape, 1.0);
}

template <typename T>
void MaximumGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                       const phi::DenseTensor &y, const phi::DenseTensor &dout,
                       phi::DenseTensor *dx, phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "maximum_grad", kernel_dtype_of<T>());
  extremum_grad(call, pd(x), pd(y), pd(dout), pd(dx), pd(dy));
}

template <typename T>
void MinimumGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                       const phi::DenseTensor &y, const phi::DenseTensor &dout,
                       phi::DenseTensor *dx, phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "minimum_grad", kernel_dtype_of<T>());
  extremum_grad(call, pd(y), pd(x), pd(dout), pd(dx), pd(dy));
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(maximum, backplane, ALL_LAYOUT, bridge::MaximumKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(minimum, backplane, ALL_LAYOUT, bridge::MinimumKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(maximum_grad, backplane, ALL_LAYOUT,
                    bridge::MaximumGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(minimum_grad, backplane, ALL_LAYOUT,
                    bridge::MinimumGradKernel, BRIDGE_FLOAT_DTYPES) {}
