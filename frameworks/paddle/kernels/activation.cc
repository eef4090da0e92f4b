/* relu, gelu, sigmoid, tanh, softmax and their gradients. */
#include "single_op.h"

namespace bridge {

BRIDGE_UNARY(ReluKernel, "relu", diopiRelu)
BRIDGE_UNARY(SigmoidKernel, "sigmoid", diopiSigmoid)
BRIDGE_UNARY(TanhKernel, "tanh", diopiTanh)

BRIDGE_UNARY_GRAD(SigmoidGradKernel, "sigmoid_grad", diopiSigmoidBackward)
BRIDGE_UNARY_GRAD(TanhGradKernel, "tanh_grad", diopiTanhBackward)

/* dx = dout where out > 0. */
template <typename T>
void ReluGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &out,
                    const phi::DenseTensor &dout, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "relu_grad", kernel_dtype_of<T>());
  diopiScalar_t zero = kernel_scalar(0.0);
  diopiTensorHandle_t y = call.wrap(pd(out)), g = call.wrap(pd(dout));
  call.check(DIOPI(call, diopiThresholdBackward)(
                 call.diopi(), call.alloc(pd(dx)), g, y, &zero),
             "diopiThresholdBackward");
}

template <typename T>
void GeluKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                bool approximate, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "gelu", kernel_dtype_of<T>());
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiGelu)(call.diopi(), call.alloc(pd(out)), in,
                                    approximate ? "tanh" : "none"),
             "diopiGelu");
}

template <typename T>
void GeluGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &dout, bool approximate,
                    phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "gelu_grad", kernel_dtype_of<T>());
  diopiTensorHandle_t in = call.wrap(pd(x)), g = call.wrap(pd(dout));
  call.check(DIOPI(call, diopiGeluBackward)(call.diopi(), call.alloc(pd(dx)), g,
                                            in, approximate ? "tanh" : "none"),
             "diopiGeluBackward");
}

template <typename T>
void SoftmaxKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   int axis, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "softmax", kernel_dtype_of<T>());
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(
      DIOPI(call, diopiSoftmax)(call.diopi(), call.alloc(pd(out)), in, axis),
      "diopiSoftmax");
}

template <typename T>
void SoftmaxGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &out,
                       const phi::DenseTensor &dout, int axis,
                       phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "softmax_grad", kernel_dtype_of<T>());
  diopiTensorHandle_t y = call.wrap(pd(out)), g = call.wrap(pd(dout));
  call.check(DIOPI(call, diopiSoftmaxBackward)(call.diopi(), call.alloc(pd(dx)),
                                               g, y, axis),
             "diopiSoftmaxBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(relu, backplane, ALL_LAYOUT, bridge::ReluKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(relu_grad, backplane, ALL_LAYOUT, bridge::ReluGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sigmoid, backplane, ALL_LAYOUT, bridge::SigmoidKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sigmoid_grad, backplane, ALL_LAYOUT,
                    bridge::SigmoidGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(tanh, backplane, ALL_LAYOUT, bridge::TanhKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(tanh_grad, backplane, ALL_LAYOUT, bridge::TanhGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(gelu, backplane, ALL_LAYOUT, bridge::GeluKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(gelu_grad, backplane, ALL_LAYOUT, bridge::GeluGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(softmax, backplane, ALL_LAYOUT, bridge::SoftmaxKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(softmax_grad, backplane, ALL_LAYOUT,
                    bridge::SoftmaxGradKernel, BRIDGE_FLOAT_DTYPES) {}
