/* topk and argsort along one axis: diopiTopk and diopiSort (stable, NaN
 * above every number). Indices are int64, as Paddle's. Their gradients put
 * out_grad back at the indices, zeros elsewhere: diopiSortBackward. */
#include "kernel_call.h"

namespace bridge {

template <typename T>
void TopkKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::Scalar &k, int axis, bool largest, bool sorted,
                phi::DenseTensor *out, phi::DenseTensor *indices) {
  KernelCall call(dev_ctx, "topk");
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiTopk)(call.diopi(), call.alloc(pd(out)),
                                    call.alloc(pd(indices)), in,
                                    k.to<int64_t>(), axis, largest, sorted),
             "diopiTopk");
}

template <typename T>
void ArgsortKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                   int axis, bool descending, bool stable,
                   phi::DenseTensor *output, phi::DenseTensor *indices) {
  KernelCall call(dev_ctx, "argsort");
  diopiTensorHandle_t in = call.wrap(pd(input));
  call.check(DIOPI(call, diopiSort)(call.diopi(), call.alloc(pd(output)),
                                    call.alloc(pd(indices)), in, axis,
                                    descending, &stable),
             "diopiSort");
}

/* x_grad (x's shape) = zeros with out_grad put at indices along axis. */
static void put_back(KernelCall &call, PD_Tensor *x, PD_Tensor *indices,
                     PD_Tensor *out_grad, int axis, PD_Tensor *x_grad) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape);
  diopiSize_t sizes = {shape, ndim};
  diopiTensorHandle_t g = call.wrap(out_grad), idx = call.wrap(indices);
  call.check(DIOPI(call, diopiSortBackward)(call.diopi(), call.alloc(x_grad), g,
                                            axis, idx, sizes, true),
             "diopiSortBackward");
}

template <typename T>
void TopkGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &indices,
                    const phi::DenseTensor &out_grad, const phi::Scalar &k,
                    int axis, bool largest, bool sorted,
                    phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "topk_grad", kernel_dtype_of<T>());
  put_back(call, pd(x), pd(indices), pd(out_grad), axis, pd(x_grad));
}

template <typename T>
void ArgsortGradKernel(const phi::Context &dev_ctx,
                       const phi::DenseTensor &indices,
                       const phi::DenseTensor &input,
                       const phi::DenseTensor &out_grad, int axis,
                       bool descending, bool stable,
                       phi::DenseTensor *in_grad) {
  KernelCall call(dev_ctx, "argsort_grad", kernel_dtype_of<T>());
  put_back(call, pd(input), pd(indices), pd(out_grad), axis, pd(in_grad));
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(topk, backplane, ALL_LAYOUT, bridge::TopkKernel, float,
                    double, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(argsort, backplane, ALL_LAYOUT, bridge::ArgsortKernel,
                    float, double, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(topk_grad, backplane, ALL_LAYOUT, bridge::TopkGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(argsort_grad, backplane, ALL_LAYOUT,
                    bridge::ArgsortGradKernel, BRIDGE_FLOAT_DTYPES) {}
