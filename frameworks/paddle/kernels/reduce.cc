/* mean_all, mean, sum and their gradients: diopiMean/diopiSum forward,
 * diopiExpand (then a scale, for means) backward. */
#include "kernel_call.h"

namespace bridge {

/* x_grad = out_grad broadcast back over the reduced dims (`dims`; none or
 * reduce_all: every dim), divided by the count for a mean. */
static void expand_back(KernelCall &call, PD_Tensor *x, PD_Tensor *out_grad,
                        PD_Tensor *x_grad, const int64_t *dims, int ndims,
                        bool reduce_all, bool mean) {
  int64_t kept[BP_OPS_MAX_DIMS];
  int ndim = kernel_kept_shape(call, x, dims, ndims, reduce_all, kept);
  int64_t count = kernel_numel(x);
  for (int d = 0; d < ndim; d++)
    count /= kept[d] ? kept[d] : 1;
  diopiTensorHandle_t g = call.wrap(out_grad, ndim, kept);
  diopiTensorHandle_t dx = call.alloc(x_grad);
  call.check(DIOPI(call, diopiExpand)(call.diopi(), dx, g), "diopiExpand");
  if (mean && count > 1) {
    diopiScalar_t s = kernel_scalar(1.0 / (double)count);
    call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), dx, &s),
               "diopiMulInpScalar");
  }
}

template <typename T>
void MeanAllKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "mean_all");
  diopiTensorHandle_t in = call.wrap(pd(x));
  diopiSize_t all = {NULL, 0};
  call.check(DIOPI(call, diopiMean)(call.diopi(), call.alloc(pd(out)), in, all),
             "diopiMean");
}

template <typename T>
void MeanAllGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                       const phi::DenseTensor &out_grad,
                       phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "mean_all_grad");
  expand_back(call, pd(x), pd(out_grad), pd(x_grad), NULL, 0, true, true);
}

static void reduce_forward(KernelCall &call, PD_Tensor *x,
                           const phi::IntArray &dims, PD_Tensor *out,
                           bool mean) {
  int64_t d[BP_OPS_MAX_DIMS];
  diopiSize_t dim = {d, kernel_int_array(dims, d)};
  diopiTensorHandle_t in = call.wrap(x), o = call.alloc(out);
  if (mean)
    call.check(DIOPI(call, diopiMean)(call.diopi(), o, in, dim), "diopiMean");
  else
    call.check(DIOPI(call, diopiSum)(call.diopi(), o, in, dim), "diopiSum");
}

template <typename T>
void MeanKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::IntArray &dims, bool keep_dim,
                phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "mean");
  reduce_forward(call, pd(x), dims, pd(out), true);
}

template <typename T>
void SumKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
               const phi::IntArray &dims, phi::DataType out_dtype,
               bool keep_dim, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "sum");
  if (out_dtype != PD_DataType::UNDEFINED && out_dtype != kernel_dtype(pd(x)))
    call.fail("a sum into another dtype is not supported");
  reduce_forward(call, pd(x), dims, pd(out), false);
}

template <typename T>
void MeanGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &out_grad, const phi::IntArray &dims,
                    bool keep_dim, bool reduce_all, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "mean_grad");
  int64_t d[BP_OPS_MAX_DIMS];
  expand_back(call, pd(x), pd(out_grad), pd(x_grad), d,
              kernel_int_array(dims, d), reduce_all, true);
}

template <typename T>
void SumGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &out_grad, const phi::IntArray &dims,
                   bool keep_dim, bool reduce_all, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "sum_grad");
  int64_t d[BP_OPS_MAX_DIMS];
  expand_back(call, pd(x), pd(out_grad), pd(x_grad), d,
              kernel_int_array(dims, d), reduce_all, false);
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(mean_all, backplane, ALL_LAYOUT, bridge::MeanAllKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(mean_all_grad, backplane, ALL_LAYOUT,
                    bridge::MeanAllGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(mean, backplane, ALL_LAYOUT, bridge::MeanKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(mean_grad, backplane, ALL_LAYOUT, bridge::MeanGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sum, backplane, ALL_LAYOUT, bridge::SumKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(sum_grad, backplane, ALL_LAYOUT, bridge::SumGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
