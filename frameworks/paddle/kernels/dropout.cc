/* dropout and its gradient with Paddle's semantics: the mask is uint8 (1:
 * kept); "upscale_in_train" scales kept elements by 1 / (1 - p) in
 * training and passes x through at test time, "downgrade_in_infer" keeps
 * them unscaled in training and multiplies by 1 - p at test time. Draws
 * come from diopiDropout with a generator seeded by the `seed` attribute
 * when fix_seed is set (the same mask every call), else by the device
 * context's generator (paddle.seed). */
#include <string>

#include "kernel_call.h"

namespace bridge {

/* True for upscale_in_train, false for downgrade_in_infer. */
static bool upscales(KernelCall &call, const std::string &mode) {
  if (mode == "upscale_in_train")
    return true;
  if (mode == "downgrade_in_infer")
    return false;
  call.fail("mode: expected upscale_in_train or downgrade_in_infer, got %s",
            mode.c_str());
}

/* out = in * scale (a copy when scale is 1). */
static void scaled_copy(KernelCall &call, diopiConstTensorHandle_t in,
                        diopiTensorHandle_t out, double scale) {
  if (scale == 1.0) {
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), in, out),
               "diopiCopyInp");
    return;
  }
  diopiScalar_t s = kernel_scalar(scale);
  call.check(DIOPI(call, diopiMulScalar)(call.diopi(), out, in, &s),
             "diopiMulScalar");
}

template <typename T>
void DropoutKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const paddle::optional<phi::DenseTensor> &seed_tensor,
                   const phi::Scalar &p_scalar, bool is_test,
                   const std::string &mode, int seed, bool fix_seed,
                   phi::DenseTensor *out, phi::DenseTensor *mask) {
  KernelCall call(dev_ctx, "dropout", kernel_dtype_of<T>());
  bool upscale = upscales(call, mode);
  double p = p_scalar.to<double>();
  diopiTensorHandle_t in = call.wrap(pd(x)), o = call.alloc(pd(out));
  if (is_test || pd(mask) == NULL) {
    scaled_copy(call, in, o, upscale ? 1.0 : 1.0 - p);
    return;
  }
  if (pd(seed_tensor) != NULL)
    call.fail("seed_tensor: a seed tensor is not supported (use the seed "
              "attribute with fix_seed)");
  diopiTensorHandle_t m = call.alloc(pd(mask), -1, NULL, PD_DataType::UINT8);
  diopiGeneratorHandle_t g = kernel_generator(call, fix_seed ? seed : 0);
  diopiError_t err =
      DIOPI(call, diopiDropout)(call.diopi(), o, m, in, p, true, g);
  bp_ops_generator_destroy(g);
  call.check(err, "diopiDropout");
  /* diopiDropout upscales; downgrade_in_infer keeps kept elements as they
   * were: out = x * mask. */
  if (!upscale)
    call.check(DIOPI(call, diopiMul)(call.diopi(), o, in, m), "diopiMul");
}

/* x_grad = out_grad * mask, scaled as the forward scaled kept elements. */
template <typename T>
void DropoutGradKernel(const phi::Context &dev_ctx,
                       const phi::DenseTensor &mask,
                       const phi::DenseTensor &out_grad,
                       const phi::Scalar &p_scalar, bool is_test,
                       const std::string &mode, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "dropout_grad", kernel_dtype_of<T>());
  bool upscale = upscales(call, mode);
  double p = p_scalar.to<double>();
  diopiTensorHandle_t g = call.wrap(pd(out_grad)), dx = call.alloc(pd(x_grad));
  if (is_test) {
    scaled_copy(call, g, dx, upscale ? 1.0 : 1.0 - p);
    return;
  }
  call.check(DIOPI(call, diopiMul)(call.diopi(), dx, g, call.wrap(pd(mask))),
             "diopiMul");
  if (upscale) {
    diopiScalar_t s = kernel_scalar(p < 1.0 ? 1.0 / (1.0 - p) : 0.0);
    call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), dx, &s),
               "diopiMulInpScalar");
  }
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(dropout, backplane, ALL_LAYOUT, bridge::DropoutKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(dropout_grad, backplane, ALL_LAYOUT,
                    bridge::DropoutGradKernel, BRIDGE_FLOAT_DTYPES) {}
