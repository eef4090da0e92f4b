/* silu (swish), leaky_relu, elu, hardswish, hardsigmoid, relu6, softplus
 * and their gradients: the DIOPI op of each (diopiSilu, diopiLeakyRelu,
 * diopiElu, diopiHardswish, diopiHardtanh for relu6, diopiSoftplus and
 * their Backward); hardsigmoid with Paddle's slope and offset is
 * clamp(x * slope + offset, 0, 1) (diopiMulScalar, diopiAddInpScalar,
 * diopiClampInpScalar), its gradient slope where 0 < out < 1. */
#include "single_op.h"

namespace bridge {

BRIDGE_UNARY(SiluKernel, "silu", diopiSilu)
BRIDGE_UNARY(SwishKernel, "swish", diopiSilu)
BRIDGE_UNARY(HardSwishKernel, "hardswish", diopiHardswish)

/* swish_grad(x, dout) and hardswish_grad(x, dout): op(dx, dout, x). */
BRIDGE_UNARY_GRAD(SwishGradKernel, "swish_grad", diopiSiluBackward)
BRIDGE_UNARY_GRAD(HardSwishGradKernel, "hardswish_grad", diopiHardswishBackward)

template <typename T>
void SiluGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &, const phi::DenseTensor &dout,
                    phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "silu_grad", kernel_dtype_of<T>());
  diopiTensorHandle_t in = call.wrap(pd(x)), g = call.wrap(pd(dout));
  call.check(
      DIOPI(call, diopiSiluBackward)(call.diopi(), call.alloc(pd(dx)), g, in),
      "diopiSiluBackward");
}

template <typename T>
void LeakyReluKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     double alpha, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "leaky_relu", kernel_dtype_of<T>());
  diopiScalar_t slope = kernel_scalar(alpha);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiLeakyRelu)(call.diopi(), call.alloc(pd(out)), in,
                                         &slope),
             "diopiLeakyRelu");
}

template <typename T>
void LeakyReluGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                         const phi::DenseTensor &dout, double alpha,
                         phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "leaky_relu_grad", kernel_dtype_of<T>());
  diopiScalar_t slope = kernel_scalar(alpha);
  diopiTensorHandle_t in = call.wrap(pd(x)), g = call.wrap(pd(dout));
  call.check(DIOPI(call, diopiLeakyReluBackward)(
                 call.diopi(), call.alloc(pd(dx)), g, in, &slope, false),
             "diopiLeakyReluBackward");
}

template <typename T>
void EluKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
               float alpha, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "elu", kernel_dtype_of<T>());
  diopiScalar_t a = kernel_scalar(alpha), one = kernel_scalar(1.0);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiElu)(call.diopi(), call.alloc(pd(out)), in, &a,
                                   &one, &one),
             "diopiElu");
}

template <typename T>
void EluGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &, const phi::DenseTensor &dout,
                   float alpha, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "elu_grad", kernel_dtype_of<T>());
  diopiScalar_t a = kernel_scalar(alpha), one = kernel_scalar(1.0);
  diopiTensorHandle_t in = call.wrap(pd(x)), g = call.wrap(pd(dout));
  call.check(DIOPI(call, diopiEluBackward)(call.diopi(), call.alloc(pd(dx)), g,
                                           in, &a, &one, &one, false),
             "diopiEluBackward");
}

template <typename T>
void HardSigmoidKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                       float slope, float offset, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "hardsigmoid", kernel_dtype_of<T>());
  diopiScalar_t s = kernel_scalar(slope), b = kernel_scalar(offset),
                zero = kernel_scalar(0.0), one = kernel_scalar(1.0);
  diopiTensorHandle_t in = call.wrap(pd(x)), o = call.alloc(pd(out));
  call.check(DIOPI(call, diopiMulScalar)(call.diopi(), o, in, &s),
             "diopiMulScalar");
  call.check(DIOPI(call, diopiAddInpScalar)(call.diopi(), o, &b, &one),
             "diopiAddInpScalar");
  call.check(DIOPI(call, diopiClampInpScalar)(call.diopi(), o, &zero, &one),
             "diopiClampInpScalar");
}

/* dx = dout * slope where 0 < out < 1, else 0. */
template <typename T>
void HardSigmoidGradKernel(const phi::Context &dev_ctx,
                           const phi::DenseTensor &out,
                           const phi::DenseTensor &dout, float slope,
                           float offset, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "hardsigmoid_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(out), shape);
  diopiTensorHandle_t inside = call.temp(diopi_dtype_bool, ndim, shape);
  diopiTensorHandle_t below_one = call.temp(diopi_dtype_bool, ndim, shape);
  diopiScalar_t zero = kernel_scalar(0.0), one = kernel_scalar(1.0),
                s = kernel_scalar(slope);
  diopiTensorHandle_t y = call.wrap(pd(out)), o = call.alloc(pd(dx));
  call.check(DIOPI(call, diopiGtScalar)(call.diopi(), inside, y, &zero),
             "diopiGtScalar");
  call.check(DIOPI(call, diopiLtScalar)(call.diopi(), below_one, y, &one),
             "diopiLtScalar");
  call.check(DIOPI(call, diopiLogicalAndInp)(call.diopi(), inside, below_one),
             "diopiLogicalAndInp");
  call.check(
      DIOPI(call, diopiMul)(call.diopi(), o, call.wrap(pd(dout)), inside),
      "diopiMul");
  call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), o, &s),
             "diopiMulInpScalar");
}

/* relu6 = hardtanh(x, 0, 6) (Paddle's relu6 kernel has threshold 6). */
template <typename T>
void Relu6Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                 phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "relu6", kernel_dtype_of<T>());
  diopiScalar_t lo = kernel_scalar(0.0), hi = kernel_scalar(6.0);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiHardtanh)(call.diopi(), call.alloc(pd(out)), in,
                                        &lo, &hi),
             "diopiHardtanh");
}

/* dx = dout where 0 < out < 6: hardtanh's gradient at out, which lies
 * inside (0, 6) exactly where x does. */
template <typename T>
void Relu6GradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &out,
                     const phi::DenseTensor &dout, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "relu6_grad", kernel_dtype_of<T>());
  diopiScalar_t lo = kernel_scalar(0.0), hi = kernel_scalar(6.0);
  diopiTensorHandle_t y = call.wrap(pd(out)), g = call.wrap(pd(dout));
  call.check(DIOPI(call, diopiHardtanhBackward)(
                 call.diopi(), call.alloc(pd(dx)), g, y, &lo, &hi),
             "diopiHardtanhBackward");
}

template <typename T>
void SoftplusKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    double beta, double threshold, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "softplus", kernel_dtype_of<T>());
  diopiScalar_t b = kernel_scalar(beta), t = kernel_scalar(threshold);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(
      DIOPI(call, diopiSoftplus)(call.diopi(), call.alloc(pd(out)), in, &b, &t),
      "diopiSoftplus");
}

template <typename T>
void SoftplusGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        const phi::DenseTensor &dout, double beta,
                        double threshold, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "softplus_grad", kernel_dtype_of<T>());
  diopiScalar_t b = kernel_scalar(beta), t = kernel_scalar(threshold);
  diopiTensorHandle_t in = call.wrap(pd(x)), g = call.wrap(pd(dout));
  call.check(DIOPI(call, diopiSoftplusBackward)(
                 call.diopi(), call.alloc(pd(dx)), g, in, &b, &t),
             "diopiSoftplusBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(silu, backplane, ALL_LAYOUT, bridge::SiluKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(silu_grad, backplane, ALL_LAYOUT, bridge::SiluGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(swish, backplane, ALL_LAYOUT, bridge::SwishKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(swish_grad, backplane, ALL_LAYOUT, bridge::SwishGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(leaky_relu, backplane, ALL_LAYOUT, bridge::LeakyReluKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(leaky_relu_grad, backplane, ALL_LAYOUT,
                    bridge::LeakyReluGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(elu, backplane, ALL_LAYOUT, bridge::EluKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(elu_grad, backplane, ALL_LAYOUT, bridge::EluGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(hardswish, backplane, ALL_LAYOUT, bridge::HardSwishKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(hardswish_grad, backplane, ALL_LAYOUT,
                    bridge::HardSwishGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(hardsigmoid, backplane, ALL_LAYOUT,
                    bridge::HardSigmoidKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(hardsigmoid_grad, backplane, ALL_LAYOUT,
                    bridge::HardSigmoidGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(relu6, backplane, ALL_LAYOUT, bridge::Relu6Kernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(relu6_grad, backplane, ALL_LAYOUT, bridge::Relu6GradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(softplus, backplane, ALL_LAYOUT, bridge::SoftplusKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(softplus_grad, backplane, ALL_LAYOUT,
                    bridge::SoftplusGradKernel, BRIDGE_FLOAT_DTYPES) {}
