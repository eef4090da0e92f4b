/* topk and argsort along one axis: diopiTopk and diopiSort (stable, NaN
 * above every number). Indices are int64, as Paddle's. */
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

} // namespace bridge

PD_BUILD_PHI_KERNEL(topk, backplane, ALL_LAYOUT, bridge::TopkKernel, float,
                    double, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(argsort, backplane, ALL_LAYOUT, bridge::ArgsortKernel,
                    float, double, int32_t, int64_t) {}
