/* cumsum (Paddle's flatten, exclusive and reverse attributes) and its
 * gradient, the same sum run the other way: diopiCumsum scans forward,
 * diopiCumsumBackward backward. An exclusive sum is the inclusive one of
 * x's first (last, reversed) n - 1 elements along the axis written one
 * place on, through strided views, and a zero in the place left over.
 * cumprod (exclusive, reverse) and its gradient: the op library has no
 * product scan, so it is log2(n) rounds of diopiMul, each multiplying
 * every element by the partial product `step` places before it (a
 * Hillis-Steele scan) on x flipped first when reverse (diopiFlip); its
 * gradient is Paddle's formula for x without zeros, the sum of dout * out
 * run the other way, over x (a zero in x gives inf or NaN there). */
#include "axis_cut.h"

namespace bridge {

/* out = the cumulative sum of x along `axis` (x as one dim when flatten or
 * 0-D), from the end when reverse, each element's own term left out when
 * exclusive. out holds x's element count. */
template <typename T>
static void cumsum(KernelCall &call, PD_Tensor *x, int64_t axis, bool flatten,
                   bool exclusive, bool reverse, PD_Tensor *out) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape), d = 0;
  if (flatten || ndim == 0) {
    shape[0] = kernel_numel(x);
    ndim = 1;
  } else {
    int64_t a = axis;
    if (a < -ndim || a >= ndim)
      call.fail("axis: expected -%d to %d, got %lld", ndim, ndim - 1,
                (long long)a);
    d = (int)(a < 0 ? a + ndim : a);
  }
  call.alloc(out);
  int64_t n = shape[d];
  auto scan =
      reverse ? DIOPI(call, diopiCumsumBackward) : DIOPI(call, diopiCumsum);
  const char *scan_name = reverse ? "diopiCumsumBackward" : "diopiCumsum";
  if (!exclusive) {
    call.check(scan(call.diopi(), call.wrap(out, ndim, shape),
                    call.wrap(x, ndim, shape), d),
               scan_name);
    return;
  }
  if (n == 0)
    return;
  /* Forward: out[1:] = cumsum(x[:-1]), out[0] = 0; reversed: out[:-1] =
   * the reverse sum of x[1:], out[-1] = 0. */
  PD_Status status = C_SUCCESS;
  void *from = PD_TensorGetDataPointer(x, &status);
  void *to = PD_TensorGetDataPointer(out, &status);
  if (from == to) { /* in place (cumsum_): the views would overlap */
    diopiTensorHandle_t copy =
        call.temp(kernel_diopi_dtype(kernel_dtype_of<T>()), ndim, shape);
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(),
                                         call.wrap(x, ndim, shape), copy),
               "diopiCopyInp");
    diopiGetTensorData(copy, &from);
  }
  diopiTensorHandle_t sums =
      cut<T>(call, to, ndim, shape, d, reverse ? 0 : 1, n - 1);
  diopiTensorHandle_t terms =
      cut<T>(call, from, ndim, shape, d, reverse ? 1 : 0, n - 1);
  diopiTensorHandle_t empty =
      cut<T>(call, to, ndim, shape, d, reverse ? n - 1 : 0, 1);
  call.check(scan(call.diopi(), sums, terms, d), scan_name);
  diopiScalar_t zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), empty, &zero), "diopiFill");
}

template <typename T>
void CumsumKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::Scalar &axis, bool flatten, bool exclusive,
                  bool reverse, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "cumsum", kernel_dtype_of<T>());
  cumsum<T>(call, pd(x), axis.to<int64_t>(), flatten, exclusive, reverse,
            pd(out));
}

/* x_grad = out_grad summed the other way (flattened back to x's shape by
 * Paddle's InferMeta when flatten). */
template <typename T>
void CumsumGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      const phi::DenseTensor &out_grad, const phi::Scalar &axis,
                      bool flatten, bool exclusive, bool reverse,
                      phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "cumsum_grad", kernel_dtype_of<T>());
  cumsum<T>(call, pd(out_grad), axis.to<int64_t>(), flatten, exclusive,
            !reverse, pd(x_grad));
}

/* Contiguous data of `shape` as scratch of T. */
template <typename T>
static void *scratch(KernelCall &call, int ndim, const int64_t *shape,
                     diopiTensorHandle_t *t) {
  *t = call.temp(kernel_diopi_dtype(kernel_dtype_of<T>()), ndim, shape);
  void *data = NULL;
  diopiGetTensorData(*t, &data);
  return data;
}

template <typename T>
void CumprodKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   int dim, bool exclusive, bool reverse,
                   phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "cumprod", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(x), shape);
  if (ndim == 0) {
    shape[0] = 1;
    ndim = 1;
  }
  if (dim < -ndim || dim >= ndim)
    call.fail("dim: expected -%d to %d, got %d", ndim, ndim - 1, dim);
  int d = dim < 0 ? dim + ndim : dim;
  int64_t n = shape[d], axis = d;
  diopiSize_t flip = {&axis, 1};
  diopiTensorHandle_t in = call.wrap(pd(x), ndim, shape);
  call.alloc(pd(out));
  diopiTensorHandle_t o = call.wrap(pd(out), ndim, shape), scan, before;
  void *data = scratch<T>(call, ndim, shape, &scan);
  void *prev = scratch<T>(call, ndim, shape, &before);
  if (kernel_numel(pd(x)) == 0)
    return;
  if (reverse)
    call.check(DIOPI(call, diopiFlip)(call.diopi(), scan, in, flip),
               "diopiFlip");
  else
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), in, scan),
               "diopiCopyInp");
  for (int64_t step = 1; step < n; step *= 2) {
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), scan, before),
               "diopiCopyInp");
    call.check(DIOPI(call, diopiMul)(
                   call.diopi(),
                   cut<T>(call, data, ndim, shape, d, step, n - step),
                   cut<T>(call, prev, ndim, shape, d, step, n - step),
                   cut<T>(call, prev, ndim, shape, d, 0, n - step)),
               "diopiMul");
  }
  if (exclusive) { /* each product one place on, 1 in the first place */
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), scan, before),
               "diopiCopyInp");
    call.check(DIOPI(call, diopiCopyInp)(
                   call.diopi(), cut<T>(call, prev, ndim, shape, d, 0, n - 1),
                   cut<T>(call, data, ndim, shape, d, 1, n - 1)),
               "diopiCopyInp");
    diopiScalar_t one = kernel_scalar(1.0);
    call.check(DIOPI(call, diopiFill)(call.diopi(),
                                      cut<T>(call, data, ndim, shape, d, 0, 1),
                                      &one),
               "diopiFill");
  }
  if (reverse)
    call.check(DIOPI(call, diopiFlip)(call.diopi(), o, scan, flip),
               "diopiFlip");
  else
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), scan, o),
               "diopiCopyInp");
}

/* dx = (the sum of dout * out the other way, exclusive as the forward) / x. */
template <typename T>
void CumprodGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                       const phi::DenseTensor &out,
                       const phi::DenseTensor &dout, int dim, bool exclusive,
                       bool reverse, phi::DenseTensor *dx) {
  KernelCall call(dev_ctx, "cumprod_grad", kernel_dtype_of<T>());
  call.check(DIOPI(call, diopiMul)(call.diopi(), call.alloc(pd(dx)),
                                   call.wrap(pd(dout)), call.wrap(pd(out))),
             "diopiMul");
  cumsum<T>(call, pd(dx), dim, false, exclusive, !reverse, pd(dx));
  call.check(DIOPI(call, diopiDivInp)(call.diopi(), call.wrap(pd(dx)),
                                      call.wrap(pd(x)), RoundModeNone),
             "diopiDivInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(cumsum, backplane, ALL_LAYOUT, bridge::CumsumKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(cumsum_grad, backplane, ALL_LAYOUT,
                    bridge::CumsumGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(cumprod, backplane, ALL_LAYOUT, bridge::CumprodKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(cumprod_grad, backplane, ALL_LAYOUT,
                    bridge::CumprodGradKernel, BRIDGE_FLOAT_DTYPES) {}
