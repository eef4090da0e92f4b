/* grid_sample and its gradient (4-D NCHW x, grid [N, H_out, W_out, 2]):
 * diopiGridSampler(Backward) with Paddle's mode (bilinear, nearest),
 * padding_mode (zeros, border, reflection) and align_corners. */
#include <string>

#include "kernel_call.h"

namespace bridge {

template <typename T>
void GridSampleKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      const phi::DenseTensor &grid, const std::string &mode,
                      const std::string &padding_mode, bool align_corners,
                      phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "grid_sample", kernel_dtype_of<T>());
  call.check(DIOPI(call, diopiGridSampler)(call.diopi(), call.alloc(pd(out)),
                                           call.wrap(pd(x)),
                                           call.wrap(pd(grid)), mode.c_str(),
                                           padding_mode.c_str(), align_corners),
             "diopiGridSampler");
}

template <typename T>
void GridSampleGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const phi::DenseTensor &grid, const phi::DenseTensor &out_grad,
    const std::string &mode, const std::string &padding_mode,
    bool align_corners, phi::DenseTensor *x_grad, phi::DenseTensor *grid_grad) {
  KernelCall call(dev_ctx, "grid_sample_grad", kernel_dtype_of<T>());
  call.check(DIOPI(call, diopiGridSamplerBackward)(
                 call.diopi(), call.alloc(pd(x_grad)),
                 call.alloc(pd(grid_grad)), call.wrap(pd(out_grad)),
                 call.wrap(pd(x)), call.wrap(pd(grid)), mode.c_str(),
                 padding_mode.c_str(), align_corners),
             "diopiGridSamplerBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(grid_sample, backplane, ALL_LAYOUT,
                    bridge::GridSampleKernel, float, double) {}
PD_BUILD_PHI_KERNEL(grid_sample_grad, backplane, ALL_LAYOUT,
                    bridge::GridSampleGradKernel, float, double) {}
