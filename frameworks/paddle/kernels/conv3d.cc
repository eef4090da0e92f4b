/* conv3d and its gradient, NCDHW, explicit symmetric padding:
 * diopiConvolution3d(Backward). */
#include "conv_padding.h"

namespace bridge {

struct conv3d_args {
  int64_t stride[3], padding[3], dilation[3];
};

static conv3d_args conv3d_arguments(KernelCall &call,
                                    const std::vector<int> &strides,
                                    const std::vector<int> &paddings,
                                    const std::string &padding_algorithm,
                                    const std::vector<int> &dilations,
                                    const std::string &data_format) {
  if (data_format != "NCDHW" && data_format != "AnyLayout")
    call.fail("data_format %s: only NCDHW is supported", data_format.c_str());
  if (padding_algorithm != "EXPLICIT")
    call.fail("padding_algorithm %s: only EXPLICIT is supported",
              padding_algorithm.c_str());
  if (strides.size() != 3 || dilations.size() != 3)
    call.fail("strides and dilations must have 3 values");
  conv3d_args a;
  for (int d = 0; d < 3; d++) {
    a.stride[d] = strides[d];
    a.dilation[d] = dilations[d];
  }
  symmetric_padding(call, paddings, 3, a.padding);
  return a;
}

template <typename T>
void Conv3dKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                  const phi::DenseTensor &filter,
                  const std::vector<int> &strides,
                  const std::vector<int> &paddings,
                  const std::string &padding_algorithm, int groups,
                  const std::vector<int> &dilations,
                  const std::string &data_format, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "conv3d", kernel_dtype_of<T>());
  conv3d_args a = conv3d_arguments(call, strides, paddings, padding_algorithm,
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
  conv3d_args a = conv3d_arguments(call, strides, paddings, padding_algorithm,
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
