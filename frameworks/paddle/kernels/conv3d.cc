/* conv3d and its gradient, NCDHW, explicit symmetric padding:
 * diopiConvolution3d(Backward). */
#include "conv_padding.h"

namespace bridge {

using conv3d_args = conv_args<3>;

template <typename T>
void Conv3dKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                  const phi::DenseTensor &filter,
                  const std::vector<int> &strides,
                  const std::vector<int> &paddings,
                  const std::string &padding_algorithm, int groups,
                  const std::vector<int> &dilations,
                  const std::string &data_format, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "conv3d", kernel_dtype_of<T>());
  conv3d_args a = conv_arguments<3>(call, strides, paddings, padding_algorithm,
                                    dilations, data_format);
  diopiSize_t stride = {a.stride, 3}, padding = {a.padding, 3},
              dilation = {a.dilation, 3};
  diopiTensorHandle_t x = call.wrap(pd(input)), w = call.wrap(pd(filter));
  call.check(DIOPI(call, diopiConvolution3d)(call.diopi(), call.alloc(pd(out)),
                                             x, w, NULL, stride, padding,
                                             dilation, groups),
             "diopiConvolution3d");
}

template <typename T>
void Conv3dGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &input,
    const phi::DenseTensor &filter, const phi::DenseTensor &out_grad,
    const std::vector<int> &strides, const std::vector<int> &paddings,
    const std::string &padding_algorithm, int groups,
    const std::vector<int> &dilations, const std::string &data_format,
    phi::DenseTensor *input_grad, phi::DenseTensor *filter_grad) {
  KernelCall call(dev_ctx, "conv3d_grad", kernel_dtype_of<T>());
  conv3d_args a = conv_arguments<3>(call, strides, paddings, padding_algorithm,
                                    dilations, data_format);
  diopiSize_t stride = {a.stride, 3}, padding = {a.padding, 3},
              dilation = {a.dilation, 3};
  diopiTensorHandle_t x = call.wrap(pd(input)), w = call.wrap(pd(filter));
  diopiTensorHandle_t g = call.wrap(pd(out_grad));
  call.check(DIOPI(call, diopiConvolution3dBackward)(
                 call.diopi(), call.alloc(pd(input_grad)),
                 call.alloc(pd(filter_grad)), NULL, g, x, w, NULL, stride,
                 padding, dilation, groups),
             "diopiConvolution3dBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(conv3d, backplane, ALL_LAYOUT, bridge::Conv3dKernel,
                    float) {}
PD_BUILD_PHI_KERNEL(conv3d_grad, backplane, ALL_LAYOUT,
                    bridge::Conv3dGradKernel, float) {}
