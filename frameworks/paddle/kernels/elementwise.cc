/* add, subtract, multiply, divide (numpy broadcasting) and their
 * gradients: diopiAdd/Sub/Mul/Div, gradients reduced over the broadcast
 * dims by kernel_sum_to. */
#include "kernel_call.h"

namespace bridge {

template <typename T>
void AddKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
               const phi::DenseTensor &y, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "add");
  diopiScalar_t one = kernel_scalar(1.0);
  diopiTensorHandle_t a = call.wrap(pd(x)), b = call.wrap(pd(y));
  call.check(
      DIOPI(call, diopiAdd)(call.diopi(), call.alloc(pd(out)), a, b, &one),
      "diopiAdd");
}

template <typename T>
void SubtractKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &y, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "subtract");
  diopiScalar_t one = kernel_scalar(1.0);
  diopiTensorHandle_t a = call.wrap(pd(x)), b = call.wrap(pd(y));
  call.check(
      DIOPI(call, diopiSub)(call.diopi(), call.alloc(pd(out)), a, b, &one),
      "diopiSub");
}

template <typename T>
void MultiplyKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &y, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "multiply");
  diopiTensorHandle_t a = call.wrap(pd(x)), b = call.wrap(pd(y));
  call.check(DIOPI(call, diopiMul)(call.diopi(), call.alloc(pd(out)), a, b),
             "diopiMul");
}

template <typename T>
void DivideKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::DenseTensor &y, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "divide");
  diopiTensorHandle_t a = call.wrap(pd(x)), b = call.wrap(pd(y));
  call.check(DIOPI(call, diopiDiv)(call.diopi(), call.alloc(pd(out)), a, b,
                                   RoundModeNone),
             "diopiDiv");
}

static void add_or_subtract_grad(KernelCall &call, PD_Tensor *dout,
                                 PD_Tensor *dx, PD_Tensor *dy, double y_sign) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(dout, shape);
  diopiTensorHandle_t g = call.wrap(dout);
  kernel_sum_to(call, dx, g, ndim, shape, 1.0);
  kernel_sum_to(call, dy, g, ndim, shape, y_sign);
}

template <typename T>
void AddGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &,
                   const phi::DenseTensor &, const phi::DenseTensor &dout, int,
                   phi::DenseTensor *dx, phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "add_grad");
  add_or_subtract_grad(call, pd(dout), pd(dx), pd(dy), 1.0);
}

template <typename T>
void SubtractGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &,
                        const phi::DenseTensor &, const phi::DenseTensor &dout,
                        int, phi::DenseTensor *dx, phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "subtract_grad");
  add_or_subtract_grad(call, pd(dout), pd(dx), pd(dy), -1.0);
}

/* dx = sum_to(dout * y), dy = sum_to(dout * x). */
template <typename T>
void MultiplyGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        const phi::DenseTensor &y, const phi::DenseTensor &dout,
                        int, phi::DenseTensor *dx, phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "multiply_grad");
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(dout), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(dout)));
  diopiTensorHandle_t g = call.wrap(pd(dout));
  PD_Tensor *grads[2] = {pd(dx), pd(dy)};
  PD_Tensor *others[2] = {pd(y), pd(x)};
  for (int i = 0; i < 2; i++) {
    if (grads[i] == NULL)
      continue;
    diopiTensorHandle_t t = call.temp(dtype, ndim, shape);
    call.check(DIOPI(call, diopiMul)(call.diopi(), t, g, call.wrap(others[i])),
               "diopiMul");
    kernel_sum_to(call, grads[i], t, ndim, shape, 1.0);
  }
}

/* dx = sum_to(dout / y), dy = -sum_to(dout * out / y). */
template <typename T>
void DivideGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &,
                      const phi::DenseTensor &y, const phi::DenseTensor &out,
                      const phi::DenseTensor &dout, int, phi::DenseTensor *dx,
                      phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "divide_grad");
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(dout), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(dout)));
  diopiTensorHandle_t g = call.wrap(pd(dout)), b = call.wrap(pd(y));
  if (dx) {
    diopiTensorHandle_t t = call.temp(dtype, ndim, shape);
    call.check(DIOPI(call, diopiDiv)(call.diopi(), t, g, b, RoundModeNone),
               "diopiDiv");
    kernel_sum_to(call, pd(dx), t, ndim, shape, 1.0);
  }
  if (dy) {
    diopiTensorHandle_t t = call.temp(dtype, ndim, shape);
    call.check(DIOPI(call, diopiMul)(call.diopi(), t, g, call.wrap(pd(out))),
               "diopiMul");
    call.check(DIOPI(call, diopiDivInp)(call.diopi(), t, b, RoundModeNone),
               "diopiDivInp");
    kernel_sum_to(call, pd(dy), t, ndim, shape, -1.0);
  }
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(add, backplane, ALL_LAYOUT, bridge::AddKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(subtract, backplane, ALL_LAYOUT, bridge::SubtractKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(multiply, backplane, ALL_LAYOUT, bridge::MultiplyKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(divide, backplane, ALL_LAYOUT, bridge::DivideKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(add_grad, backplane, ALL_LAYOUT, bridge::AddGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(subtract_grad, backplane, ALL_LAYOUT,
                    bridge::SubtractGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(multiply_grad, backplane, ALL_LAYOUT,
                    bridge::MultiplyGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(divide_grad, backplane, ALL_LAYOUT,
                    bridge::DivideGradKernel, BRIDGE_FLOAT_DTYPES) {}
