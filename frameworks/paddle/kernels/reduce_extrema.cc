/* max and min over dims (Paddle's reduce max and min) and their gradients:
 * diopiAmax / diopiAmin forward; backward, the elements equal to their
 * row's extremum share the row's gradient equally (Paddle's rule for ties):
 * dx = (x == out) * dout / count, broadcast back over the reduced dims
 * (diopiEq, diopiCastDtype, diopiSum, diopiDiv, diopiMul). */
#include "kernel_call.h"

namespace bridge {

using AminAmax = diopiError_t (*)(diopiContextHandle_t, diopiTensorHandle_t,
                                  diopiConstTensorHandle_t, diopiSize_t, bool);

// The extremum over `dims`: diopiAmax (is_max) or diopiAmin.
template <typename T>
void Extremum(const phi::Context &dev_ctx, const phi::DenseTensor &x,
              const phi::IntArray &dims, bool keep_dim, phi::DenseTensor *out,
              bool is_max) {
  KernelCall call(dev_ctx, is_max ? "max" : "min", kernel_dtype_of<T>());
  int64_t d[BP_OPS_MAX_DIMS];
  diopiSize_t dim = {d, kernel_int_array(dims, d)};
  diopiTensorHandle_t in = call.wrap(pd(x));
  const char *name = is_max ? "diopiAmax" : "diopiAmin";
  AminAmax fn = is_max ? DIOPI(call, diopiAmax) : DIOPI(call, diopiAmin);
  call.check(fn(call.diopi(), call.alloc(pd(out)), in, dim, keep_dim), name);
}

template <typename T>
void MaxKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
               const phi::IntArray &dims, bool keep_dim,
               phi::DenseTensor *out) {
  Extremum<T>(dev_ctx, x, dims, keep_dim, out, true);
}

template <typename T>
void MinKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
               const phi::IntArray &dims, bool keep_dim,
               phi::DenseTensor *out) {
  Extremum<T>(dev_ctx, x, dims, keep_dim, out, false);
}

// Both gradients (`name` the phi kernel's): the extremum's positions share
// the gradient equally, as Paddle's CPU kernels do with ties:
// dx = hit * dout / count, hit = (x == out), count = the hits per output.
template <typename T>
void ExtremumGrad(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::DenseTensor &out, const phi::DenseTensor &out_grad,
                  const phi::IntArray &dims, bool reduce_all,
                  phi::DenseTensor *x_grad, const char *name) {
  KernelCall call(dev_ctx, name, kernel_dtype_of<T>());
  int64_t d[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS], shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_kept_shape(call, pd(x), d, kernel_int_array(dims, d),
                               reduce_all, kept);
  kernel_dims(pd(x), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype_of<T>());
  diopiTensorHandle_t hit = call.temp(diopi_dtype_bool, ndim, shape);
  call.check(DIOPI(call, diopiEq)(call.diopi(), hit, call.wrap(pd(x)),
                                  call.wrap(pd(out), ndim, kept)),
             "diopiEq");
  diopiTensorHandle_t hits = call.temp(dtype, ndim, shape);
  call.check(DIOPI(call, diopiCastDtype)(call.diopi(), hits, hit),
             "diopiCastDtype");
  int64_t reduced[BP_OPS_MAX_DIMS];
  int nreduced = 0;
  for (int i = 0; i < ndim; i++)
    if (kept[i] == 1) /* a kept dim of size 1 sums to itself */
      reduced[nreduced++] = i;
  diopiTensorHandle_t count = call.temp(dtype, ndim, kept);
  call.check(DIOPI(call, diopiSum)(call.diopi(), count, hits,
                                   diopiSize_t{reduced, nreduced}),
             "diopiSum");
  diopiTensorHandle_t share = call.temp(dtype, ndim, kept);
  call.check(DIOPI(call, diopiDiv)(call.diopi(), share,
                                   call.wrap(pd(out_grad), ndim, kept), count,
                                   RoundModeNone),
             "diopiDiv");
  call.check(
      DIOPI(call, diopiMul)(call.diopi(), call.alloc(pd(x_grad)), hits, share),
      "diopiMul");
}

template <typename T>
void MaxGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &out,
                   const phi::DenseTensor &out_grad, const phi::IntArray &dims,
                   bool keep_dim, bool reduce_all, phi::DenseTensor *x_grad) {
  (void)keep_dim;
  ExtremumGrad<T>(dev_ctx, x, out, out_grad, dims, reduce_all, x_grad,
                  "max_grad");
}

template <typename T>
void MinGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &out,
                   const phi::DenseTensor &out_grad, const phi::IntArray &dims,
                   bool keep_dim, bool reduce_all, phi::DenseTensor *x_grad) {
  (void)keep_dim;
  ExtremumGrad<T>(dev_ctx, x, out, out_grad, dims, reduce_all, x_grad,
                  "min_grad");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(max, backplane, ALL_LAYOUT, bridge::MaxKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(max_grad, backplane, ALL_LAYOUT, bridge::MaxGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(min, backplane, ALL_LAYOUT, bridge::MinKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(min_grad, backplane, ALL_LAYOUT, bridge::MinGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
