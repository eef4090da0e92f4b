/* max over dims (Paddle's reduce max) and its gradient: diopiAmax forward;
 * backward, every element equal to its row's maximum gets the row's
 * gradient (Paddle's rule for ties): dx = (x == out) * dout, both broadcast
 * back over the reduced dims (diopiEq, diopiMul). */
#include "kernel_call.h"

namespace bridge {

template <typename T>
void MaxKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
               const phi::IntArray &dims, bool keep_dim,
               phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "max", kernel_dtype_of<T>());
  int64_t d[BP_OPS_MAX_DIMS];
  diopiSize_t dim = {d, kernel_int_array(dims, d)};
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiAmax)(call.diopi(), call.alloc(pd(out)), in, dim,
                                    keep_dim),
             "diopiAmax");
}

template <typename T>
void MaxGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &out,
                   const phi::DenseTensor &out_grad, const phi::IntArray &dims,
                   bool keep_dim, bool reduce_all, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "max_grad", kernel_dtype_of<T>());
  int64_t d[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS], shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_kept_shape(call, pd(x), d, kernel_int_array(dims, d),
                               reduce_all, kept);
  kernel_dims(pd(x), shape);
  diopiTensorHandle_t hit = call.temp(diopi_dtype_bool, ndim, shape);
  call.check(DIOPI(call, diopiEq)(call.diopi(), hit, call.wrap(pd(x)),
                                  call.wrap(pd(out), ndim, kept)),
             "diopiEq");
  diopiTensorHandle_t g = call.wrap(pd(out_grad), ndim, kept);
  call.check(
      DIOPI(call, diopiMul)(call.diopi(), call.alloc(pd(x_grad)), hit, g),
      "diopiMul");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(max, backplane, ALL_LAYOUT, bridge::MaxKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(max_grad, backplane, ALL_LAYOUT, bridge::MaxGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
