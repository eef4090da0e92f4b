/* Reductions with a closed-form gradient: p_norm (diopiNorm, gradient
 * diopiNormBackward), dist (p_norm of x - y broadcast, over every element;
 * gradients summed back to x's and y's shapes), squared_l2_norm (the
 * global-norm clip's: diopiSquare then diopiSum; gradient 2 x dout) and
 * logsumexp (diopiLogsumexp, gradient diopiLogsumexpBackward). Gradients see
 * out and out_grad with the reduced dims kept as ones. */
#include <math.h>

#include "kernel_call.h"

namespace bridge {

/* The dims p_norm reduces: every dim (asvector), or `axis`; into `dims`,
 * returns the count. */
static int p_norm_dims(KernelCall &call, PD_Tensor *x, int axis, bool asvector,
                       int64_t *dims) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape);
  if (asvector || ndim == 0) {
    for (int d = 0; d < ndim; d++)
      dims[d] = d;
    return ndim;
  }
  if (axis < -ndim || axis >= ndim)
    call.fail("axis %d: out of range for a %d-D x", axis, ndim);
  dims[0] = axis < 0 ? axis + ndim : axis;
  return 1;
}

/* Paddle's porder 0 counts nonzeros; DIOPI's norm orders are p > 0 and
 * +-inf. */
static diopiScalar_t p_norm_order(KernelCall &call, float porder,
                                  const char *name) {
  if (!(porder > 0) && !isinf(porder))
    call.fail("%s %g: only p > 0 and +-inf are supported", name,
              (double)porder);
  return kernel_scalar((double)porder);
}

template <typename T>
void PNormKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                 float porder, int axis, float epsilon, bool keepdim,
                 bool asvector, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "p_norm", kernel_dtype_of<T>());
  diopiScalar_t p = p_norm_order(call, porder, "porder");
  int64_t dims[BP_OPS_MAX_DIMS];
  diopiSize_t dim = {dims, p_norm_dims(call, pd(x), axis, asvector, dims)};
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(
      DIOPI(call, diopiNorm)(call.diopi(), call.alloc(pd(out)), in, &p, dim),
      "diopiNorm");
}

template <typename T>
void PNormGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const phi::DenseTensor &out,
                     const phi::DenseTensor &out_grad, float porder, int axis,
                     float epsilon, bool keepdim, bool asvector,
                     phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "p_norm_grad", kernel_dtype_of<T>());
  diopiScalar_t p = p_norm_order(call, porder, "porder");
  int64_t dims[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  int ndims = p_norm_dims(call, pd(x), axis, asvector, dims);
  int ndim = kernel_kept_shape(call, pd(x), dims, ndims, ndims == 0, kept);
  diopiSize_t dim = {dims, ndims};
  call.check(DIOPI(call, diopiNormBackward)(
                 call.diopi(), call.alloc(pd(x_grad)),
                 call.wrap(pd(out_grad), ndim, kept), call.wrap(pd(x)),
                 call.wrap(pd(out), ndim, kept), dim, &p),
             "diopiNormBackward");
}

/* x - y (numpy broadcasting) as scratch; its dims into `shape`, rank into
 * *ndim. */
static diopiTensorHandle_t difference(KernelCall &call, PD_Tensor *x,
                                      PD_Tensor *y, int64_t *shape, int *ndim) {
  int64_t xs[BP_OPS_MAX_DIMS], ys[BP_OPS_MAX_DIMS];
  int xn = kernel_dims(x, xs), yn = kernel_dims(y, ys);
  *ndim = xn > yn ? xn : yn;
  for (int d = 0; d < *ndim; d++) {
    int64_t a = d < *ndim - xn ? 1 : xs[d - (*ndim - xn)];
    int64_t b = d < *ndim - yn ? 1 : ys[d - (*ndim - yn)];
    if (a != b && a != 1 && b != 1)
      call.fail("x and y do not broadcast at dim %d (%lld, %lld)", d,
                (long long)a, (long long)b);
    shape[d] = a == 1 ? b : a;
  }
  diopiTensorHandle_t z =
      call.temp(kernel_diopi_dtype(kernel_dtype(x)), *ndim, shape);
  diopiScalar_t one = kernel_scalar(1.0);
  call.check(
      DIOPI(call, diopiSub)(call.diopi(), z, call.wrap(x), call.wrap(y), &one),
      "diopiSub");
  return z;
}

template <typename T>
void DistKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::DenseTensor &y, float p, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "dist", kernel_dtype_of<T>());
  diopiScalar_t order = p_norm_order(call, p, "p");
  int64_t shape[BP_OPS_MAX_DIMS], dims[BP_OPS_MAX_DIMS];
  int ndim;
  diopiTensorHandle_t z = difference(call, pd(x), pd(y), shape, &ndim);
  for (int d = 0; d < ndim; d++)
    dims[d] = d;
  diopiSize_t dim = {dims, ndim};
  call.check(
      DIOPI(call, diopiNorm)(call.diopi(), call.alloc(pd(out)), z, &order, dim),
      "diopiNorm");
}

template <typename T>
void DistGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &y, const phi::DenseTensor &out,
                    const phi::DenseTensor &out_grad, float p,
                    phi::DenseTensor *x_grad, phi::DenseTensor *y_grad) {
  KernelCall call(dev_ctx, "dist_grad", kernel_dtype_of<T>());
  diopiScalar_t order = p_norm_order(call, p, "p");
  int64_t shape[BP_OPS_MAX_DIMS], dims[BP_OPS_MAX_DIMS], ones[BP_OPS_MAX_DIMS];
  int ndim;
  diopiTensorHandle_t z = difference(call, pd(x), pd(y), shape, &ndim);
  for (int d = 0; d < ndim; d++) {
    dims[d] = d;
    ones[d] = 1;
  }
  diopiSize_t dim = {dims, ndim};
  diopiTensorHandle_t grad =
      call.temp(kernel_diopi_dtype(kernel_dtype(pd(x))), ndim, shape);
  call.check(DIOPI(call, diopiNormBackward)(
                 call.diopi(), grad, call.wrap(pd(out_grad), ndim, ones), z,
                 call.wrap(pd(out), ndim, ones), dim, &order),
             "diopiNormBackward");
  kernel_sum_to(call, pd(x_grad), grad, ndim, shape, 1.0);
  kernel_sum_to(call, pd(y_grad), grad, ndim, shape, -1.0);
}

/* out = the sum of x's squares (one element). */
template <typename T>
void SquaredL2NormKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                         phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "squared_l2_norm", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(x), shape);
  diopiTensorHandle_t squares =
      call.temp(kernel_diopi_dtype(kernel_dtype(pd(x))), ndim, shape);
  call.check(DIOPI(call, diopiSquare)(call.diopi(), squares, call.wrap(pd(x))),
             "diopiSquare");
  int64_t one = 1;
  call.alloc(pd(out));
  diopiSize_t all = {NULL, 0};
  call.check(DIOPI(call, diopiSum)(call.diopi(), call.wrap(pd(out), 0, &one),
                                   squares, all),
             "diopiSum");
}

/* dx = 2 x dout, dout one element. */
template <typename T>
void SquaredL2NormGradKernel(const phi::Context &dev_ctx,
                             const phi::DenseTensor &x,
                             const phi::DenseTensor &dout,
                             phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "squared_l2_norm_grad", kernel_dtype_of<T>());
  int64_t one = 1;
  diopiScalar_t two = kernel_scalar(2.0);
  diopiTensorHandle_t o = call.alloc(pd(dx));
  call.check(DIOPI(call, diopiMul)(call.diopi(), o, call.wrap(pd(x)),
                                   call.wrap(pd(dout), 1, &one)),
             "diopiMul");
  call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), o, &two),
             "diopiMulInpScalar");
}

/* logsumexp's dims: `axis`, or every dim (reduce_all or none). */
static int logsumexp_dims(PD_Tensor *x, const std::vector<int> &axis,
                          bool reduce_all, int64_t *dims) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape);
  if (reduce_all || axis.empty() || axis.size() > (size_t)ndim) {
    for (int d = 0; d < ndim; d++)
      dims[d] = d;
    return ndim;
  }
  for (size_t i = 0; i < axis.size(); i++)
    dims[i] = axis[i];
  return (int)axis.size();
}

template <typename T>
void LogsumexpKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const std::vector<int> &axis, bool keepdim,
                     bool reduce_all, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "logsumexp", kernel_dtype_of<T>());
  int64_t dims[BP_OPS_MAX_DIMS];
  diopiSize_t dim = {dims, logsumexp_dims(pd(x), axis, reduce_all, dims)};
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(
      DIOPI(call, diopiLogsumexp)(call.diopi(), call.alloc(pd(out)), in, dim),
      "diopiLogsumexp");
}

template <typename T>
void LogsumexpGradKernel(const phi::Context &dev_ctx,
                         const phi::DenseTensor &in,
                         const phi::DenseTensor &out,
                         const phi::DenseTensor &out_grad,
                         const std::vector<int> &axis, bool keepdim,
                         bool reduce_all, phi::DenseTensor *in_grad) {
  KernelCall call(dev_ctx, "logsumexp_grad", kernel_dtype_of<T>());
  int64_t dims[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  int ndims = logsumexp_dims(pd(in), axis, reduce_all, dims);
  int ndim = kernel_kept_shape(call, pd(in), dims, ndims, false, kept);
  diopiSize_t dim = {dims, ndims};
  call.check(DIOPI(call, diopiLogsumexpBackward)(
                 call.diopi(), call.alloc(pd(in_grad)),
                 call.wrap(pd(out_grad), ndim, kept), call.wrap(pd(in)),
                 call.wrap(pd(out), ndim, kept), dim),
             "diopiLogsumexpBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(p_norm, backplane, ALL_LAYOUT, bridge::PNormKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(p_norm_grad, backplane, ALL_LAYOUT, bridge::PNormGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(squared_l2_norm, backplane, ALL_LAYOUT,
                    bridge::SquaredL2NormKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(squared_l2_norm_grad, backplane, ALL_LAYOUT,
                    bridge::SquaredL2NormGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(logsumexp, backplane, ALL_LAYOUT, bridge::LogsumexpKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(logsumexp_grad, backplane, ALL_LAYOUT,
                    bridge::LogsumexpGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(dist, backplane, ALL_LAYOUT, bridge::DistKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(dist_grad, backplane, ALL_LAYOUT, bridge::DistGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
