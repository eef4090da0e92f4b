/* unfold (im2col) and its gradient (col2im), NCHW: out [N, C kh kw, L] of
 * every kernel-sized block (diopiIm2Col); the gradient adds each block's
 * values back (diopiCol2Im). Paddle's paddings are [top, left, bottom,
 * right]; DIOPI pads both sides of a dim alike. */
#include <vector>

#include "kernel_call.h"

namespace bridge {

struct unfold_args {
  int64_t kernel[2], stride[2], padding[2], dilation[2];
};

static unfold_args unfold_arguments(KernelCall &call,
                                    const std::vector<int> &kernel_sizes,
                                    const std::vector<int> &strides,
                                    const std::vector<int> &paddings,
                                    const std::vector<int> &dilations) {
  if (kernel_sizes.size() != 2 || strides.size() != 2 ||
      dilations.size() != 2 || paddings.size() != 4)
    call.fail("expected 2 kernel_sizes, strides and dilations and 4 "
              "paddings");
  if (paddings[0] != paddings[2] || paddings[1] != paddings[3])
    call.fail("paddings [%d, %d, %d, %d]: only symmetric padding (top = "
              "bottom, left = right) is supported",
              paddings[0], paddings[1], paddings[2], paddings[3]);
  unfold_args a;
  for (int d = 0; d < 2; d++) {
    a.kernel[d] = kernel_sizes[d];
    a.stride[d] = strides[d];
    a.padding[d] = paddings[d];
    a.dilation[d] = dilations[d];
  }
  return a;
}

template <typename T>
void UnfoldKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const std::vector<int> &kernel_sizes,
                  const std::vector<int> &strides,
                  const std::vector<int> &paddings,
                  const std::vector<int> &dilations, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "unfold", kernel_dtype_of<T>());
  unfold_args a =
      unfold_arguments(call, kernel_sizes, strides, paddings, dilations);
  diopiSize_t k = {a.kernel, 2}, d = {a.dilation, 2}, p = {a.padding, 2},
              s = {a.stride, 2};
  call.check(DIOPI(call, diopiIm2Col)(call.diopi(), call.alloc(pd(out)),
                                      call.wrap(pd(x)), k, d, p, s),
             "diopiIm2Col");
}

template <typename T>
void UnfoldGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      const phi::DenseTensor &out_grad,
                      const std::vector<int> &kernel_sizes,
                      const std::vector<int> &strides,
                      const std::vector<int> &paddings,
                      const std::vector<int> &dilations,
                      phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "unfold_grad", kernel_dtype_of<T>());
  unfold_args a =
      unfold_arguments(call, kernel_sizes, strides, paddings, dilations);
  int64_t shape[BP_OPS_MAX_DIMS];
  if (kernel_dims(pd(x), shape) != 4)
    call.fail("expected a 4-D x");
  diopiSize_t size = {shape + 2, 2}, k = {a.kernel, 2}, d = {a.dilation, 2},
              p = {a.padding, 2}, s = {a.stride, 2};
  call.check(DIOPI(call, diopiCol2Im)(call.diopi(), call.alloc(pd(x_grad)),
                                      call.wrap(pd(out_grad)), size, k, d, p,
                                      s),
             "diopiCol2Im");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(unfold, backplane, ALL_LAYOUT, bridge::UnfoldKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(unfold_grad, backplane, ALL_LAYOUT,
                    bridge::UnfoldGradKernel, BRIDGE_FLOAT_DTYPES) {}
