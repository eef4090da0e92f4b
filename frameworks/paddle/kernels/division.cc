/* remainder (Python's modulo: the result takes the divisor's sign),
 * floor_divide (numpy broadcasting) and remainder's gradient: diopiRemainder
 * Tensor, diopiDiv rounding down; dx = sum_to(dout), dy = sum_to(-dout *
 * floor(x / y)) as on Paddle's CPU. */
#include "single_op.h"

namespace bridge {

BRIDGE_BINARY(RemainderKernel, "remainder", diopiRemainderTensor)

template <typename T>
void FloorDivideKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                       const phi::DenseTensor &y, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "floor_divide", kernel_dtype_of<T>());
  diopiTensorHandle_t a = call.wrap(pd(x)), b = call.wrap(pd(y));
  call.check(DIOPI(call, diopiDiv)(call.diopi(), call.alloc(pd(out)), a, b,
                                   RoundModeFloor),
             "diopiDiv");
}

template <typename T>
void RemainderGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                         const phi::DenseTensor &y,
                         const phi::DenseTensor &dout, phi::DenseTensor *dx,
                         phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "remainder_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(dout), shape);
  diopiTensorHandle_t g = call.wrap(pd(dout));
  kernel_sum_to(call, pd(dx), g, ndim, shape, 1.0);
  if (dy == NULL)
    return;
  diopiTensorHandle_t q =
      call.temp(kernel_diopi_dtype(kernel_dtype(pd(dout))), ndim, shape);
  call.check(DIOPI(call, diopiDiv)(call.diopi(), q, call.wrap(pd(x)),
                                   call.wrap(pd(y)), RoundModeFloor),
             "diopiDiv");
  call.check(DIOPI(call, diopiMulInp)(call.diopi(), q, g), "diopiMulInp");
  kernel_sum_to(call, pd(dy), q, ndim, shape, -1.0);
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(remainder, backplane, ALL_LAYOUT, bridge::RemainderKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(remainder_grad, backplane, ALL_LAYOUT,
                    bridge::RemainderGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(floor_divide, backplane, ALL_LAYOUT,
                    bridge::FloorDivideKernel, BRIDGE_FLOAT_DTYPES, int32_t,
                    int64_t) {}
