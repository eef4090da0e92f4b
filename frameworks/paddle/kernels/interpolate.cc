/* bilinear_interp and nearest_interp (NCHW) and their gradients:
 * diopiUpsampleLinear/Nearest(Backward) to out's size, as Paddle's
 * InferMeta sets it. What DIOPI computes is PyTorch's: bilinear with
 * align_corners, or without it half-pixel centres (Paddle's align_mode 0);
 * nearest floor(dst * in / out) without align_corners. Sizes from tensors
 * (out_size, size_tensor, scale_tensor), Paddle's align_mode 1, nearest
 * with align_corners and a scale whose ratio is not in / out are
 * refused. */
#include "kernel_call.h"
#include "optional_tensor_list.h"

namespace bridge {

/* Checks the attributes; into `out_hw` the output's spatial size, from
 * `out`'s dims (forward) or out_grad's (backward). */
static void interp_arguments(
    KernelCall &call, PD_Tensor *x, PD_Tensor *out,
    const paddle::optional<phi::DenseTensor> &out_size,
    const paddle::optional<std::vector<const phi::DenseTensor *>> &size_tensor,
    const paddle::optional<phi::DenseTensor> &scale_tensor,
    const std::string &data_layout, const std::vector<double> &scale,
    const std::string &interp_method, bool align_corners, int align_mode,
    int64_t *out_hw) {
  if (data_layout != "NCHW" && data_layout != "AnyLayout")
    call.fail("data_layout %s: only NCHW is supported", data_layout.c_str());
  if (out_size || size_tensor || scale_tensor)
    call.fail("sizes or scales given as tensors are not supported (give "
              "them as numbers)");
  bool bilinear = interp_method == "bilinear";
  if (!bilinear && interp_method != "nearest")
    call.fail("interp_method %s: expected bilinear or nearest",
              interp_method.c_str());
  if (bilinear && !align_corners && align_mode != 0)
    call.fail("align_mode %d: only 0 (half-pixel centres) is supported",
              align_mode);
  if (!bilinear && align_corners)
    call.fail("align_corners with nearest is not supported");
  int64_t in[BP_OPS_MAX_DIMS], shape[BP_OPS_MAX_DIMS];
  if (kernel_dims(x, in) != 4 || kernel_dims(out, shape) != 4)
    call.fail("expected 4-D (NCHW) tensors");
  for (int d = 0; d < 2; d++) {
    out_hw[d] = shape[2 + d];
    double s = scale.empty() ? 0.0 : scale[scale.size() > 1 ? d : 0];
    if (s > 0 && !align_corners && (double)in[2 + d] * s != (double)out_hw[d])
      call.fail("scale %g: maps size %lld to %lld, whose ratio differs from "
                "the scale (only exact scales are supported)",
                s, (long long)in[2 + d], (long long)out_hw[d]);
  }
}

#define INTERP_KERNEL(Kernel, name)                                            \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,          \
              const paddle::optional<phi::DenseTensor> &out_size,              \
              const paddle::optional<std::vector<const phi::DenseTensor *>>    \
                  &size_tensor,                                                \
              const paddle::optional<phi::DenseTensor> &scale_tensor,          \
              const std::string &data_layout, int out_d, int out_h, int out_w, \
              const std::vector<double> &scale,                                \
              const std::string &interp_method, bool align_corners,            \
              int align_mode, phi::DenseTensor *output) {                      \
    KernelCall call(dev_ctx, name, kernel_dtype_of<T>());                      \
    int64_t hw[2];                                                             \
    interp_arguments(call, pd(x), pd(output), out_size, size_tensor,           \
                     scale_tensor, data_layout, scale, interp_method,          \
                     align_corners, align_mode, hw);                           \
    diopiSize_t size = {hw, 2};                                                \
    diopiTensorHandle_t in = call.wrap(pd(x)), o = call.alloc(pd(output));     \
    if (interp_method == "bilinear")                                           \
      call.check(DIOPI(call, diopiUpsampleLinear)(call.diopi(), o, in, size,   \
                                                  align_corners, "bilinear"),  \
                 "diopiUpsampleLinear");                                       \
    else                                                                       \
      call.check(DIOPI(call, diopiUpsampleNearest)(call.diopi(), o, in, size), \
                 "diopiUpsampleNearest");                                      \
  }

#define INTERP_GRAD_KERNEL(Kernel, name)                                       \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,          \
              const paddle::optional<phi::DenseTensor> &out_size,              \
              const paddle::optional<std::vector<const phi::DenseTensor *>>    \
                  &size_tensor,                                                \
              const paddle::optional<phi::DenseTensor> &scale_tensor,          \
              const phi::DenseTensor &out_grad,                                \
              const std::string &data_layout, int out_d, int out_h, int out_w, \
              const std::vector<double> &scale,                                \
              const std::string &interp_method, bool align_corners,            \
              int align_mode, phi::DenseTensor *x_grad) {                      \
    KernelCall call(dev_ctx, name, kernel_dtype_of<T>());                      \
    int64_t hw[2], in[BP_OPS_MAX_DIMS];                                        \
    interp_arguments(call, pd(x), pd(out_grad), out_size, size_tensor,         \
                     scale_tensor, data_layout, scale, interp_method,          \
                     align_corners, align_mode, hw);                           \
    diopiSize_t size = {hw, 2}, in_size = {in, kernel_dims(pd(x), in)};        \
    diopiTensorHandle_t g = call.wrap(pd(out_grad)),                           \
                        dx = call.alloc(pd(x_grad));                           \
    if (interp_method == "bilinear")                                           \
      call.check(                                                              \
          DIOPI(call, diopiUpsampleLinearBackward)(                            \
              call.diopi(), dx, g, size, in_size, align_corners, "bilinear"),  \
          "diopiUpsampleLinearBackward");                                      \
    else                                                                       \
      call.check(DIOPI(call, diopiUpsampleNearestBackward)(call.diopi(), dx,   \
                                                           g, size, in_size),  \
                 "diopiUpsampleNearestBackward");                              \
  }

INTERP_KERNEL(BilinearInterpKernel, "bilinear_interp")
INTERP_KERNEL(NearestInterpKernel, "nearest_interp")
INTERP_GRAD_KERNEL(BilinearInterpGradKernel, "bilinear_interp_grad")
INTERP_GRAD_KERNEL(NearestInterpGradKernel, "nearest_interp_grad")

} // namespace bridge

PD_BUILD_PHI_KERNEL(bilinear_interp, backplane, ALL_LAYOUT,
                    bridge::BilinearInterpKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(nearest_interp, backplane, ALL_LAYOUT,
                    bridge::NearestInterpKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(bilinear_interp_grad, backplane, ALL_LAYOUT,
                    bridge::BilinearInterpGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(nearest_interp_grad, backplane, ALL_LAYOUT,
                    bridge::NearestInterpGradKernel, BRIDGE_FLOAT_DTYPES) {}
