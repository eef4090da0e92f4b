/* pool2d, pool3d and their gradients, channels first (NCHW, NCDHW),
 * explicit symmetric padding: diopiMaxPool2d/3d(WithIndices/Backward),
 * diopiAvgPool2d/3d(Backward) (exclusive: padding not counted) and
 * diopiAdaptiveAvgPool2d/3d(Backward) for global or adaptive average
 * pooling (adaptive max pooling is max_pool2d_with_index's). */
#include <string>

#include "conv_padding.h"

namespace bridge {

struct pool_args {
  int n; /* spatial dims: 2 or 3 */
  bool max, adaptive_avg, count_include_pad;
  int64_t kernel[3], stride[3], padding[3], dilation[3];
};

/* `kernel` holds nkernel sizes. */
static pool_args pool_arguments(KernelCall &call, int n, const int64_t *kernel,
                                int nkernel,
                                const std::vector<int64_t> &strides,
                                const std::vector<int64_t> &paddings,
                                bool exclusive, const std::string &data_format,
                                const std::string &pooling_type,
                                bool global_pooling, bool adaptive,
                                const std::string &padding_algorithm) {
  const char *layout = n == 2 ? "NCHW" : "NCDHW";
  if (data_format != layout && data_format != "AnyLayout")
    call.fail("data_format %s: only %s is supported", data_format.c_str(),
              layout);
  if (padding_algorithm != "EXPLICIT")
    call.fail("padding_algorithm %s: only EXPLICIT is supported",
              padding_algorithm.c_str());
  pool_args a;
  a.n = n;
  a.max = pooling_type == "max";
  a.adaptive_avg = pooling_type == "avg" && (global_pooling || adaptive);
  a.count_include_pad = !exclusive;
  if (!a.max && pooling_type != "avg")
    call.fail("%s pooling: only max and avg are supported",
              pooling_type.c_str());
  if (a.max && (global_pooling || adaptive))
    call.fail("global or adaptive max pooling: Paddle runs it as "
              "max_pool2d_with_index");
  if (nkernel != n || strides.size() != (size_t)n)
    call.fail("kernel_size and strides must have %d values", n);
  for (int i = 0; i < n; i++) {
    a.kernel[i] = global_pooling ? 1 : kernel[i];
    a.stride[i] = strides[i];
    a.dilation[i] = 1;
  }
  if (!a.adaptive_avg)
    symmetric_padding(call, paddings, n, a.padding);
  return a;
}

static void pool_forward(KernelCall &call, const pool_args &a, PD_Tensor *x,
                         bool ceil_mode, PD_Tensor *out) {
  diopiTensorHandle_t in = call.wrap(x), o = call.alloc(out);
  diopiSize_t k = {a.kernel, a.n}, s = {a.stride, a.n}, p = {a.padding, a.n},
              d = {a.dilation, a.n};
  diopiError_t err;
  if (a.max) {
    err = a.n == 2 ? DIOPI(call, diopiMaxPool2d)(call.diopi(), o, in, k, s, p,
                                                 d, ceil_mode)
                   : DIOPI(call, diopiMaxPool3d)(call.diopi(), o, in, k, s, p,
                                                 d, ceil_mode);
    call.check(err, "diopiMaxPool2d/3d");
  } else if (!a.adaptive_avg) {
    err =
        a.n == 2
            ? DIOPI(call, diopiAvgPool2d)(call.diopi(), o, in, k, s, p,
                                          ceil_mode, a.count_include_pad, NULL)
            : DIOPI(call, diopiAvgPool3d)(call.diopi(), o, in, k, s, p,
                                          ceil_mode, a.count_include_pad, NULL);
    call.check(err, "diopiAvgPool2d/3d");
  } else {
    int64_t shape[BP_OPS_MAX_DIMS];
    kernel_dims(out, shape);
    diopiSize_t size = {shape + 2, a.n};
    err = a.n == 2
              ? DIOPI(call, diopiAdaptiveAvgPool2d)(call.diopi(), o, in, size)
              : DIOPI(call, diopiAdaptiveAvgPool3d)(call.diopi(), o, in, size);
    call.check(err, "diopiAdaptiveAvgPool2d/3d");
  }
}

/* Max pooling's gradient routes through the arg-max indices, recomputed
 * here from x (Paddle keeps none). */
static void pool_backward(KernelCall &call, const pool_args &a, PD_Tensor *x,
                          PD_Tensor *out, PD_Tensor *dout, bool ceil_mode,
                          PD_Tensor *dx) {
  diopiTensorHandle_t in = call.wrap(x), g = call.wrap(dout);
  diopiTensorHandle_t grad = call.alloc(dx);
  diopiSize_t k = {a.kernel, a.n}, s = {a.stride, a.n}, p = {a.padding, a.n},
              d = {a.dilation, a.n};
  diopiError_t err;
  if (a.max) {
    int64_t shape[BP_OPS_MAX_DIMS];
    int ndim = kernel_dims(out, shape);
    diopiTensorHandle_t values =
        call.temp(kernel_diopi_dtype(kernel_dtype(out)), ndim, shape);
    diopiTensorHandle_t indices = call.temp(diopi_dtype_int64, ndim, shape);
    err = a.n == 2
              ? DIOPI(call, diopiMaxPool2dWithIndices)(
                    call.diopi(), values, indices, in, k, s, p, d, ceil_mode)
              : DIOPI(call, diopiMaxPool3dWithIndices)(
                    call.diopi(), values, indices, in, k, s, p, d, ceil_mode);
    call.check(err, "diopiMaxPool2d/3dWithIndices");
    err = a.n == 2
              ? DIOPI(call, diopiMaxPool2dBackward)(
                    call.diopi(), grad, g, in, k, s, p, d, ceil_mode, indices)
              : DIOPI(call, diopiMaxPool3dBackward)(
                    call.diopi(), grad, g, in, k, s, p, d, ceil_mode, indices);
    call.check(err, "diopiMaxPool2d/3dBackward");
  } else if (!a.adaptive_avg) {
    err = a.n == 2
              ? DIOPI(call, diopiAvgPool2dBackward)(call.diopi(), grad, g, in,
                                                    k, s, p, ceil_mode,
                                                    a.count_include_pad, NULL)
              : DIOPI(call, diopiAvgPool3dBackward)(call.diopi(), grad, g, in,
                                                    k, s, p, ceil_mode,
                                                    a.count_include_pad, NULL);
    call.check(err, "diopiAvgPool2d/3dBackward");
  } else {
    err = a.n == 2 ? DIOPI(call, diopiAdaptiveAvgPool2dBackward)(call.diopi(),
                                                                 grad, g, in)
                   : DIOPI(call, diopiAdaptiveAvgPool3dBackward)(call.diopi(),
                                                                 grad, g, in);
    call.check(err, "diopiAdaptiveAvgPool2d/3dBackward");
  }
}

/* pool2d's kernel_size is an IntArray, pool3d's a vector. */
#define POOL_KERNELS(Pool, name, n, KernelSize, sizes_of)                      \
  template <typename T>                                                        \
  void Pool##Kernel(                                                           \
      const phi::Context &dev_ctx, const phi::DenseTensor &x,                  \
      KernelSize kernel_size, const std::vector<int64_t> &strides,             \
      const std::vector<int64_t> &paddings, bool ceil_mode, bool exclusive,    \
      const std::string &data_format, const std::string &pooling_type,         \
      bool global_pooling, bool adaptive,                                      \
      const std::string &padding_algorithm, phi::DenseTensor *out) {           \
    KernelCall call(dev_ctx, name);                                            \
    int64_t k[BP_OPS_MAX_DIMS];                                                \
    int nk = sizes_of(kernel_size, k);                                         \
    pool_args a = pool_arguments(call, n, k, nk, strides, paddings, exclusive, \
                                 data_format, pooling_type, global_pooling,    \
                                 adaptive, padding_algorithm);                 \
    pool_forward(call, a, pd(x), ceil_mode, pd(out));                          \
  }                                                                            \
  template <typename T>                                                        \
  void Pool##GradKernel(                                                       \
      const phi::Context &dev_ctx, const phi::DenseTensor &x,                  \
      const phi::DenseTensor &out, const phi::DenseTensor &dout,               \
      KernelSize kernel_size, const std::vector<int64_t> &strides,             \
      const std::vector<int64_t> &paddings, bool ceil_mode, bool exclusive,    \
      const std::string &data_format, const std::string &pooling_type,         \
      bool global_pooling, bool adaptive,                                      \
      const std::string &padding_algorithm, phi::DenseTensor *dx) {            \
    KernelCall call(dev_ctx, name "_grad");                                    \
    int64_t k[BP_OPS_MAX_DIMS];                                                \
    int nk = sizes_of(kernel_size, k);                                         \
    pool_args a = pool_arguments(call, n, k, nk, strides, paddings, exclusive, \
                                 data_format, pooling_type, global_pooling,    \
                                 adaptive, padding_algorithm);                 \
    pool_backward(call, a, pd(x), pd(out), pd(dout), ceil_mode, pd(dx));       \
  }

/* A vector of sizes into `out` (at most BP_OPS_MAX_DIMS); the count. */
static int vector_sizes(const std::vector<int64_t> &sizes, int64_t *out) {
  int n = 0;
  for (; n < (int)sizes.size() && n < BP_OPS_MAX_DIMS; n++)
    out[n] = sizes[n];
  return n;
}

POOL_KERNELS(Pool2d, "pool2d", 2, const phi::IntArray &, kernel_int_array)
POOL_KERNELS(Pool3d, "pool3d", 3, const std::vector<int64_t> &, vector_sizes)

} // namespace bridge

PD_BUILD_PHI_KERNEL(pool2d, backplane, ALL_LAYOUT, bridge::Pool2dKernel,
                    float) {}
PD_BUILD_PHI_KERNEL(pool2d_grad, backplane, ALL_LAYOUT,
                    bridge::Pool2dGradKernel, float) {}
PD_BUILD_PHI_KERNEL(pool3d, backplane, ALL_LAYOUT, bridge::Pool3dKernel,
                    float) {}
PD_BUILD_PHI_KERNEL(pool3d_grad, backplane, ALL_LAYOUT,
                    bridge::Pool3dGradKernel, float) {}
