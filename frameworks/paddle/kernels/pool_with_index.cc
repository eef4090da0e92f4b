/* max_pool2d_with_index and its gradient (NCHW): max pooling that also
 * returns each maximum's position in its input plane (h * W + w, int32, as
 * Paddle's mask), over windows (diopiMaxPool2dWithIndices; symmetric
 * padding), or adaptive bins of output size kernel_size (global: 1 x 1;
 * diopiAdaptiveMaxPool2dWithIndices), which is how Paddle runs adaptive
 * max pooling. The gradient routes dout through the mask
 * (diopiMaxPool2dBackward, diopiAdaptiveMaxPool2dBackward). */
#include "conv_padding.h"

namespace bridge {

struct index_pool_args {
  bool adaptive;
  int64_t kernel[2], stride[2], padding[2], dilation[2];
};

static index_pool_args index_pool_arguments(KernelCall &call,
                                            const std::vector<int> &kernel_size,
                                            const std::vector<int> &strides,
                                            const std::vector<int> &paddings,
                                            bool global_pooling,
                                            bool adaptive) {
  index_pool_args a;
  a.adaptive = adaptive || global_pooling;
  if (kernel_size.size() != 2 || strides.size() != 2)
    call.fail("kernel_size and strides must have 2 values");
  for (int d = 0; d < 2; d++) {
    a.kernel[d] = global_pooling ? 1 : kernel_size[d];
    a.stride[d] = strides[d];
    a.dilation[d] = 1;
  }
  if (!a.adaptive)
    symmetric_padding(call, paddings, 2, a.padding);
  return a;
}

template <typename T>
void MaxPool2dWithIndexKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const std::vector<int> &kernel_size, const std::vector<int> &strides,
    const std::vector<int> &paddings, bool global_pooling, bool adaptive,
    bool ceil_mode, phi::DenseTensor *out, phi::DenseTensor *mask) {
  KernelCall call(dev_ctx, "max_pool2d_with_index", kernel_dtype_of<T>());
  index_pool_args a = index_pool_arguments(call, kernel_size, strides, paddings,
                                           global_pooling, adaptive);
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(out), shape);
  diopiTensorHandle_t in = call.wrap(pd(x)), o = call.alloc(pd(out));
  diopiTensorHandle_t indices = call.temp(diopi_dtype_int64, ndim, shape);
  diopiSize_t k = {a.kernel, 2};
  if (a.adaptive) {
    call.check(DIOPI(call, diopiAdaptiveMaxPool2dWithIndices)(call.diopi(), o,
                                                              indices, in, k),
               "diopiAdaptiveMaxPool2dWithIndices");
  } else {
    diopiSize_t s = {a.stride, 2}, p = {a.padding, 2}, d = {a.dilation, 2};
    call.check(DIOPI(call, diopiMaxPool2dWithIndices)(
                   call.diopi(), o, indices, in, k, s, p, d, ceil_mode),
               "diopiMaxPool2dWithIndices");
  }
  call.check(DIOPI(call, diopiCastDtype)(
                 call.diopi(),
                 call.alloc(pd(mask), -1, NULL, PD_DataType::INT32), indices),
             "diopiCastDtype");
}

template <typename T>
void MaxPool2dWithIndexGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const phi::DenseTensor &mask, const phi::DenseTensor &dout,
    const std::vector<int> &kernel_size, const std::vector<int> &strides,
    const std::vector<int> &paddings, bool global_pooling, bool adaptive,
    bool ceil_mode, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "max_pool2d_with_index_grad", kernel_dtype_of<T>());
  index_pool_args a = index_pool_arguments(call, kernel_size, strides, paddings,
                                           global_pooling, adaptive);
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(mask), shape);
  diopiTensorHandle_t indices = call.temp(diopi_dtype_int64, ndim, shape);
  call.check(
      DIOPI(call, diopiCastDtype)(call.diopi(), indices, call.wrap(pd(mask))),
      "diopiCastDtype");
  diopiTensorHandle_t in = call.wrap(pd(x)), g = call.wrap(pd(dout));
  diopiTensorHandle_t grad = call.alloc(pd(dx));
  if (a.adaptive) {
    call.check(DIOPI(call, diopiAdaptiveMaxPool2dBackward)(call.diopi(), grad,
                                                           g, in, indices),
               "diopiAdaptiveMaxPool2dBackward");
    return;
  }
  diopiSize_t k = {a.kernel, 2}, s = {a.stride, 2}, p = {a.padding, 2},
              d = {a.dilation, 2};
  call.check(DIOPI(call, diopiMaxPool2dBackward)(call.diopi(), grad, g, in, k,
                                                 s, p, d, ceil_mode, indices),
             "diopiMaxPool2dBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(max_pool2d_with_index, backplane, ALL_LAYOUT,
                    bridge::MaxPool2dWithIndexKernel, float) {}
PD_BUILD_PHI_KERNEL(max_pool2d_with_index_grad, backplane, ALL_LAYOUT,
                    bridge::MaxPool2dWithIndexGradKernel, float) {}
