/* prod (reduce_prod over a list of dims, keep_dim, reduce_all; prod_infer,
 * the form a legacy-IR static graph may ask for, without reduce_all) and
 * prod_grad: diopiProdDims forward; x_grad = out_grad * out / x broadcast
 * back over the reduced dims, Paddle's CPU formula (so a zero in x gives
 * what it gives there). */
#include "kernel_call.h"

namespace bridge {

template <typename T>
void ProdKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::IntArray &dims, bool keep_dim, bool reduce_all,
                phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "prod", kernel_dtype_of<T>());
  int64_t d[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  int ndims = kernel_int_array(dims, d);
  /* checks the dims; out's own shape tells the op whether they are kept */
  kernel_kept_shape(call, pd(x), d, ndims, reduce_all, kept);
  diopiSize_t dim = {d, reduce_all ? 0 : ndims};
  call.check(DIOPI(call, diopiProdDims)(call.diopi(), call.alloc(pd(out)),
                                        call.wrap(pd(x)), dim),
             "diopiProdDims");
}

template <typename T>
void ProdInferKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const phi::IntArray &dims, bool keep_dim,
                     phi::DenseTensor *out) {
  ProdKernel<T>(dev_ctx, x, dims, keep_dim, false, out);
}

template <typename T>
void ProdGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &out,
                    const phi::DenseTensor &out_grad, const phi::IntArray &dims,
                    bool keep_dim, bool reduce_all, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "prod_grad", kernel_dtype_of<T>());
  int64_t d[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  int ndims = kernel_int_array(dims, d);
  int ndim = kernel_kept_shape(call, pd(x), d, ndims, reduce_all, kept);
  diopiTensorHandle_t dx = call.alloc(pd(x_grad));
  call.check(DIOPI(call, diopiDiv)(call.diopi(), dx,
                                   call.wrap(pd(out), ndim, kept),
                                   call.wrap(pd(x)), RoundModeNone),
             "diopiDiv");
  call.check(DIOPI(call, diopiMulInp)(call.diopi(), dx,
                                      call.wrap(pd(out_grad), ndim, kept)),
             "diopiMulInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(prod, backplane, ALL_LAYOUT, bridge::ProdKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(prod_infer, backplane, ALL_LAYOUT, bridge::ProdInferKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(prod_grad, backplane, ALL_LAYOUT, bridge::ProdGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
