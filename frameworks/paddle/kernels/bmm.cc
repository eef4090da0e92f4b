/* bmm (x [b, m, k] times y [b, k, n]) and its gradient: diopiBmm on the
 * operands, and on a transposed operand as a strided view (no copy) for
 * dx = dout y^T and dy = x^T dout. */
#include "single_op.h"

namespace bridge {

BRIDGE_BINARY(BmmKernel, "bmm", diopiBmm)

/* `t` [b, r, c] as its transpose [b, c, r], a view of the same memory. */
static diopiTensorHandle_t transposed(KernelCall &call, PD_Tensor *t) {
  int64_t shape[BP_OPS_MAX_DIMS];
  if (kernel_dims(t, shape) != 3)
    call.fail("expected 3-D operands");
  int64_t swapped[3] = {shape[0], shape[2], shape[1]};
  int64_t strides[3] = {shape[1] * shape[2], 1, shape[2]};
  PD_Status status = C_SUCCESS;
  return call.wrap_data(PD_TensorGetDataPointer(t, &status),
                        kernel_diopi_dtype(kernel_dtype(t)), 3, swapped,
                        strides);
}

template <typename T>
void BmmGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &y, const phi::DenseTensor &out_grad,
                   phi::DenseTensor *x_grad, phi::DenseTensor *y_grad) {
  KernelCall call(dev_ctx, "bmm_grad", kernel_dtype_of<T>());
  diopiTensorHandle_t g = call.wrap(pd(out_grad));
  if (x_grad)
    call.check(DIOPI(call, diopiBmm)(call.diopi(), call.alloc(pd(x_grad)), g,
                                     transposed(call, pd(y))),
               "diopiBmm");
  if (y_grad)
    call.check(DIOPI(call, diopiBmm)(call.diopi(), call.alloc(pd(y_grad)),
                                     transposed(call, pd(x)), g),
               "diopiBmm");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(bmm, backplane, ALL_LAYOUT, bridge::BmmKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(bmm_grad, backplane, ALL_LAYOUT, bridge::BmmGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
