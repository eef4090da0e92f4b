/* conv2d, depthwise_conv2d, conv2d_transpose and their gradients, NCHW,
 * explicit padding: diopiConvolution2d(Backward),
 * diopiConvTranspose2d(Backward) (output_padding from out's size, which
 * Paddle's InferMeta set from output_size or output_padding). */
#include "conv_padding.h"

namespace bridge {

using conv2d_args = conv_args<2>;

static void conv2d(KernelCall &call, PD_Tensor *input, PD_Tensor *filter,
                   const conv2d_args &a, int groups, PD_Tensor *out) {
  diopiTensorHandle_t x = call.wrap(input), w = call.wrap(filter);
  diopiSize_t stride = {a.stride, 2}, padding = {a.padding, 2},
              dilation = {a.dilation, 2};
  call.check(DIOPI(call, diopiConvolution2d)(call.diopi(), call.alloc(out), x,
                                             w, NULL, stride, padding, dilation,
                                             groups),
             "diopiConvolution2d");
}

static void conv2d_grad(KernelCall &call, PD_Tensor *input, PD_Tensor *filter,
                        PD_Tensor *out_grad, const conv2d_args &a, int groups,
                        PD_Tensor *input_grad, PD_Tensor *filter_grad) {
  diopiTensorHandle_t x = call.wrap(input), w = call.wrap(filter);
  diopiTensorHandle_t g = call.wrap(out_grad);
  diopiSize_t stride = {a.stride, 2}, padding = {a.padding, 2},
              dilation = {a.dilation, 2};
  call.check(DIOPI(call, diopiConvolution2dBackward)(
                 call.diopi(), call.alloc(input_grad), call.alloc(filter_grad),
                 NULL, g, x, w, NULL, stride, padding, dilation, groups),
             "diopiConvolution2dBackward");
}

template <typename T>
void Conv2dKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                  const phi::DenseTensor &filter,
                  const std::vector<int> &strides,
                  const std::vector<int> &paddings,
                  const std::string &padding_algorithm,
                  const std::vector<int> &dilations, int groups,
                  const std::string &data_format, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "conv2d");
  conv2d_args a = conv_arguments<2>(call, strides, paddings, padding_algorithm,
                                    dilations, data_format);
  conv2d(call, pd(input), pd(filter), a, groups, pd(out));
}

template <typename T>
void Conv2dGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &input,
    const phi::DenseTensor &filter, const phi::DenseTensor &out_grad,
    const std::vector<int> &strides, const std::vector<int> &paddings,
    const std::string &padding_algorithm, const std::vector<int> &dilations,
    int groups, const std::string &data_format, phi::DenseTensor *input_grad,
    phi::DenseTensor *filter_grad) {
  KernelCall call(dev_ctx, "conv2d_grad");
  conv2d_args a = conv_arguments<2>(call, strides, paddings, padding_algorithm,
                                    dilations, data_format);
  conv2d_grad(call, pd(input), pd(filter), pd(out_grad), a, groups,
              pd(input_grad), pd(filter_grad));
}

/* depthwise_conv2d: conv2d with its attributes in another order. */
template <typename T>
void DepthwiseConv2dKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &input,
    const phi::DenseTensor &filter, const std::vector<int> &strides,
    const std::vector<int> &paddings, const std::string &padding_algorithm,
    int groups, const std::vector<int> &dilations,
    const std::string &data_format, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "depthwise_conv2d");
  conv2d_args a = conv_arguments<2>(call, strides, paddings, padding_algorithm,
                                    dilations, data_format);
  conv2d(call, pd(input), pd(filter), a, groups, pd(out));
}

template <typename T>
void DepthwiseConv2dGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &input,
    const phi::DenseTensor &filter, const phi::DenseTensor &out_grad,
    const std::vector<int> &strides, const std::vector<int> &paddings,
    const std::string &padding_algorithm, int groups,
    const std::vector<int> &dilations, const std::string &data_format,
    phi::DenseTensor *input_grad, phi::DenseTensor *filter_grad) {
  KernelCall call(dev_ctx, "depthwise_conv2d_grad");
  conv2d_args a = conv_arguments<2>(call, strides, paddings, padding_algorithm,
                                    dilations, data_format);
  conv2d_grad(call, pd(input), pd(filter), pd(out_grad), a, groups,
              pd(input_grad), pd(filter_grad));
}

/* conv2d_transpose's output_padding: what out's size (`out`, [N, C, H,
 * W]) adds to (in - 1) * stride - 2 * padding + dilation * (k - 1) + 1;
 * fails unless 0 <= it < max(stride, dilation), as DIOPI requires. */
static void output_padding_of(KernelCall &call, PD_Tensor *x, PD_Tensor *filter,
                              PD_Tensor *out, const conv2d_args &a,
                              int64_t *output_padding) {
  int64_t in[BP_OPS_MAX_DIMS], k[BP_OPS_MAX_DIMS], o[BP_OPS_MAX_DIMS];
  if (kernel_dims(x, in) != 4 || kernel_dims(filter, k) != 4 ||
      kernel_dims(out, o) != 4)
    call.fail("expected 4-D (NCHW) x, filter and out");
  for (int d = 0; d < 2; d++) {
    int64_t base = (in[2 + d] - 1) * a.stride[d] - 2 * a.padding[d] +
                   a.dilation[d] * (k[2 + d] - 1) + 1;
    output_padding[d] = o[2 + d] - base;
    int64_t limit = a.stride[d] > a.dilation[d] ? a.stride[d] : a.dilation[d];
    if (output_padding[d] < 0 || output_padding[d] >= limit)
      call.fail("output size %lld at dim %d: expected %lld to %lld",
                (long long)o[2 + d], 2 + d, (long long)base,
                (long long)(base + limit - 1));
  }
}

template <typename T>
void Conv2dTransposeKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const phi::DenseTensor &filter, const std::vector<int> &strides,
    const std::vector<int> &paddings, const std::vector<int> &output_padding,
    const phi::IntArray &output_size, const std::string &padding_algorithm,
    int groups, const std::vector<int> &dilations,
    const std::string &data_format, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "conv2d_transpose", kernel_dtype_of<T>());
  conv2d_args a = conv_arguments<2>(call, strides, paddings, padding_algorithm,
                                    dilations, data_format);
  int64_t op[2];
  output_padding_of(call, pd(x), pd(filter), pd(out), a, op);
  diopiSize_t stride = {a.stride, 2}, padding = {a.padding, 2},
              dilation = {a.dilation, 2}, out_pad = {op, 2};
  diopiTensorHandle_t in = call.wrap(pd(x)), w = call.wrap(pd(filter));
  call.check(DIOPI(call, diopiConvTranspose2d)(
                 call.diopi(), call.alloc(pd(out)), in, w, NULL, stride,
                 padding, out_pad, groups, dilation),
             "diopiConvTranspose2d");
}

template <typename T>
void Conv2dTransposeGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const phi::DenseTensor &filter, const phi::DenseTensor &dout,
    const std::vector<int> &strides, const std::vector<int> &paddings,
    const std::vector<int> &output_padding, const phi::IntArray &output_size,
    const std::string &padding_algorithm, int groups,
    const std::vector<int> &dilations, const std::string &data_format,
    phi::DenseTensor *dx, phi::DenseTensor *dfilter) {
  KernelCall call(dev_ctx, "conv2d_transpose_grad", kernel_dtype_of<T>());
  conv2d_args a = conv_arguments<2>(call, strides, paddings, padding_algorithm,
                                    dilations, data_format);
  int64_t op[2];
  output_padding_of(call, pd(x), pd(filter), pd(dout), a, op);
  diopiSize_t stride = {a.stride, 2}, padding = {a.padding, 2},
              dilation = {a.dilation, 2}, out_pad = {op, 2};
  diopiTensorHandle_t in = call.wrap(pd(x)), w = call.wrap(pd(filter));
  call.check(DIOPI(call, diopiConvTranspose2dBackward)(
                 call.diopi(), call.alloc(pd(dx)), call.alloc(pd(dfilter)),
                 NULL, call.wrap(pd(dout)), in, w, NULL, stride, padding,
                 dilation, out_pad, groups),
             "diopiConvTranspose2dBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(conv2d, backplane, ALL_LAYOUT, bridge::Conv2dKernel,
                    float) {}
PD_BUILD_PHI_KERNEL(conv2d_grad, backplane, ALL_LAYOUT,
                    bridge::Conv2dGradKernel, float) {}
PD_BUILD_PHI_KERNEL(depthwise_conv2d, backplane, ALL_LAYOUT,
                    bridge::DepthwiseConv2dKernel, float) {}
PD_BUILD_PHI_KERNEL(depthwise_conv2d_grad, backplane, ALL_LAYOUT,
                    bridge::DepthwiseConv2dGradKernel, float) {}
PD_BUILD_PHI_KERNEL(conv2d_transpose, backplane, ALL_LAYOUT,
                    bridge::Conv2dTransposeKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(conv2d_transpose_grad, backplane, ALL_LAYOUT,
                    bridge::Conv2dTransposeGradKernel, BRIDGE_FLOAT_DTYPES) {}
