/* mish, selu, celu and their gradients: diopiMish(Backward) (Paddle's
 * softplus threshold must be PyTorch's 20), and diopiElu(Backward) with
 * Paddle's constants: selu is scale * elu(x, alpha) (its gradient from
 * out, diopiEluBackward's input_is_result), celu is elu with input scale
 * 1 / alpha. */
#include "single_op.h"

namespace bridge {

/* diopiMish's softplus switches to x above 20, as PyTorch's. */
static void check_mish_threshold(KernelCall &call, float threshold) {
  if (threshold != 20.0f)
    call.fail("threshold %g: only 20 (PyTorch's softplus threshold) is "
              "supported",
              threshold);
}

template <typename T>
void MishKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                float threshold, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "mish", kernel_dtype_of<T>());
  check_mish_threshold(call, threshold);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiMish)(call.diopi(), call.alloc(pd(out)), in),
             "diopiMish");
}

template <typename T>
void MishGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &dout, float threshold,
                    phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "mish_grad", kernel_dtype_of<T>());
  check_mish_threshold(call, threshold);
  diopiTensorHandle_t in = call.wrap(pd(x)), g = call.wrap(pd(dout));
  call.check(
      DIOPI(call, diopiMishBackward)(call.diopi(), call.alloc(pd(dx)), g, in),
      "diopiMishBackward");
}

template <typename T>
void SeluKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                float scale, float alpha, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "selu", kernel_dtype_of<T>());
  diopiScalar_t a = kernel_scalar(alpha), s = kernel_scalar(scale),
                one = kernel_scalar(1.0);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiElu)(call.diopi(), call.alloc(pd(out)), in, &a,
                                   &s, &one),
             "diopiElu");
}

/* dx = dout * scale where out > 0, else dout * (out + scale * alpha). */
template <typename T>
void SeluGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &out,
                    const phi::DenseTensor &dout, float scale, float alpha,
                    phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "selu_grad", kernel_dtype_of<T>());
  diopiScalar_t a = kernel_scalar(alpha), s = kernel_scalar(scale),
                one = kernel_scalar(1.0);
  diopiTensorHandle_t y = call.wrap(pd(out)), g = call.wrap(pd(dout));
  call.check(DIOPI(call, diopiEluBackward)(call.diopi(), call.alloc(pd(dx)), g,
                                           y, &a, &s, &one, true),
             "diopiEluBackward");
}

static void check_celu_alpha(KernelCall &call, float alpha) {
  if (alpha == 0.0f)
    call.fail("alpha: expected nonzero, got 0");
}

template <typename T>
void CeluKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                float alpha, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "celu", kernel_dtype_of<T>());
  check_celu_alpha(call, alpha);
  diopiScalar_t a = kernel_scalar(alpha), one = kernel_scalar(1.0),
                inv = kernel_scalar(1.0 / alpha);
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiElu)(call.diopi(), call.alloc(pd(out)), in, &a,
                                   &one, &inv),
             "diopiElu");
}

template <typename T>
void CeluGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &dout, float alpha,
                    phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "celu_grad", kernel_dtype_of<T>());
  check_celu_alpha(call, alpha);
  diopiScalar_t a = kernel_scalar(alpha), one = kernel_scalar(1.0),
                inv = kernel_scalar(1.0 / alpha);
  diopiTensorHandle_t in = call.wrap(pd(x)), g = call.wrap(pd(dout));
  call.check(DIOPI(call, diopiEluBackward)(call.diopi(), call.alloc(pd(dx)), g,
                                           in, &a, &one, &inv, false),
             "diopiEluBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(mish, backplane, ALL_LAYOUT, bridge::MishKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(mish_grad, backplane, ALL_LAYOUT, bridge::MishGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(selu, backplane, ALL_LAYOUT, bridge::SeluKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(selu_grad, backplane, ALL_LAYOUT, bridge::SeluGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(celu, backplane, ALL_LAYOUT, bridge::CeluKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(celu_grad, backplane, ALL_LAYOUT, bridge::CeluGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
