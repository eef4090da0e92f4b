/* cross (3-vectors along an axis) and kron (the Kronecker product) and
 * their gradients, composed of diopiMul and diopiSub on strided views:
 * cross's components x[i+1] y[i+2] - x[i+2] y[i+1] (gradients: x_grad =
 * y x out_grad, y_grad = out_grad x x); kron of x seen as [a0, 1, a1, 1,
 * ...] and y as [1, b0, 1, b1, ...] into out seen as [a0, b0, a1, b1, ...]
 * (ranks aligned right), its gradients out_grad times the other operand
 * summed over that operand's dims (diopiSum). */
#include "axis_cut.h"

namespace bridge {

/* Paddle's axis for "the first dim of size 3" (its DDim::kMaxRank). */
enum { CROSS_FIRST_AXIS_OF_3 = 9 };

/* The dim of the 3-vectors of `x`; its dims into `shape`, rank into
 * *ndim. */
static int cross_dim(KernelCall &call, PD_Tensor *x, int axis, int64_t *shape,
                     int *ndim) {
  *ndim = kernel_dims(x, shape);
  if (axis == CROSS_FIRST_AXIS_OF_3) {
    for (int d = 0; d < *ndim; d++)
      if (shape[d] == 3)
        return d;
    call.fail("no dim of size 3");
  }
  if (axis < -*ndim || axis >= *ndim)
    call.fail("axis: expected -%d to %d, got %d", *ndim, *ndim - 1, axis);
  int d = axis < 0 ? axis + *ndim : axis;
  if (shape[d] != 3)
    call.fail("axis %d has size %lld, not 3", axis, (long long)shape[d]);
  return d;
}

/* out = a x b along dim d, all contiguous of `shape`. */
template <typename T>
static void cross3(KernelCall &call, void *a, void *b, void *out, int ndim,
                   const int64_t *shape, int d) {
  diopiTensorHandle_t term =
      call.temp(kernel_diopi_dtype(kernel_dtype_of<T>()), ndim, shape);
  void *t = NULL;
  diopiGetTensorData(term, &t);
  diopiScalar_t one = kernel_scalar(1.0);
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    diopiTensorHandle_t o = cut<T>(call, out, ndim, shape, d, i, 1),
                        rest = cut<T>(call, t, ndim, shape, d, i, 1);
    call.check(DIOPI(call, diopiMul)(call.diopi(), o,
                                     cut<T>(call, a, ndim, shape, d, j, 1),
                                     cut<T>(call, b, ndim, shape, d, k, 1)),
               "diopiMul");
    call.check(DIOPI(call, diopiMul)(call.diopi(), rest,
                                     cut<T>(call, a, ndim, shape, d, k, 1),
                                     cut<T>(call, b, ndim, shape, d, j, 1)),
               "diopiMul");
    call.check(DIOPI(call, diopiSubInp)(call.diopi(), o, rest, &one),
               "diopiSubInp");
  }
}

static void *data_of(PD_Tensor *t) {
  PD_Status status = C_SUCCESS;
  return PD_TensorGetDataPointer(t, &status);
}

template <typename T>
void CrossKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                 const phi::DenseTensor &y, int axis, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "cross", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim, d = cross_dim(call, pd(x), axis, shape, &ndim);
  if (kernel_numel(pd(y)) != kernel_numel(pd(x)))
    call.fail("x and y: expected the same shape");
  call.alloc(pd(out));
  cross3<T>(call, data_of(pd(x)), data_of(pd(y)), data_of(pd(out)), ndim, shape,
            d);
}

template <typename T>
void CrossGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const phi::DenseTensor &y,
                     const phi::DenseTensor &out_grad, int axis,
                     phi::DenseTensor *x_grad, phi::DenseTensor *y_grad) {
  KernelCall call(dev_ctx, "cross_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim, d = cross_dim(call, pd(x), axis, shape, &ndim);
  void *g = data_of(pd(out_grad));
  if (x_grad) {
    call.alloc(pd(x_grad));
    cross3<T>(call, data_of(pd(y)), g, data_of(pd(x_grad)), ndim, shape, d);
  }
  if (y_grad) {
    call.alloc(pd(y_grad));
    cross3<T>(call, g, data_of(pd(x)), data_of(pd(y_grad)), ndim, shape, d);
  }
}

/* kron's views: x as [a0, 1, a1, 1, ...], y as [1, b0, 1, b1, ...], out
 * as [a0, b0, ...] (rank 2r, r the larger rank, the smaller padded with
 * leading ones). Returns 2r. */
static int kron_views(KernelCall &call, PD_Tensor *x, PD_Tensor *y, int64_t *xv,
                      int64_t *yv, int64_t *ov) {
  int64_t xs[BP_OPS_MAX_DIMS], ys[BP_OPS_MAX_DIMS];
  int xn = kernel_dims(x, xs), yn = kernel_dims(y, ys);
  int r = xn > yn ? xn : yn;
  if (2 * r > BP_OPS_MAX_DIMS)
    call.fail("operands of %d dims: at most %d are supported", r,
              BP_OPS_MAX_DIMS / 2);
  for (int d = 0; d < r; d++) {
    int64_t a = d < r - xn ? 1 : xs[d - (r - xn)];
    int64_t b = d < r - yn ? 1 : ys[d - (r - yn)];
    xv[2 * d] = a;
    xv[2 * d + 1] = 1;
    yv[2 * d] = 1;
    yv[2 * d + 1] = b;
    ov[2 * d] = a;
    ov[2 * d + 1] = b;
  }
  return 2 * r;
}

template <typename T>
void KronKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                const phi::DenseTensor &y, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "kron", kernel_dtype_of<T>());
  int64_t xv[BP_OPS_MAX_DIMS], yv[BP_OPS_MAX_DIMS], ov[BP_OPS_MAX_DIMS];
  int n = kron_views(call, pd(x), pd(y), xv, yv, ov);
  call.alloc(pd(out));
  call.check(DIOPI(call, diopiMul)(call.diopi(), call.wrap(pd(out), n, ov),
                                   call.wrap(pd(x), n, xv),
                                   call.wrap(pd(y), n, yv)),
             "diopiMul");
}

/* grad = out_grad * other summed over the dims at `parity` (1: y's, for
 * x_grad; 0: x's, for y_grad). */
static void kron_grad(KernelCall &call, diopiConstTensorHandle_t g,
                      PD_Tensor *other, const int64_t *other_view,
                      const int64_t *ov, int n, int parity, PD_Tensor *grad) {
  if (grad == NULL)
    return;
  diopiTensorHandle_t prod =
      call.temp(kernel_diopi_dtype(kernel_dtype(other)), n, ov);
  call.check(DIOPI(call, diopiMul)(call.diopi(), prod, g,
                                   call.wrap(other, n, other_view)),
             "diopiMul");
  int64_t dims[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  for (int d = 0; d < n / 2; d++) {
    dims[d] = 2 * d + parity;
    kept[d] = ov[2 * d + 1 - parity];
  }
  diopiSize_t summed = {dims, n / 2};
  call.alloc(grad);
  call.check(DIOPI(call, diopiSum)(call.diopi(), call.wrap(grad, n / 2, kept),
                                   prod, summed),
             "diopiSum");
}

template <typename T>
void KronGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &y, const phi::DenseTensor &out_grad,
                    phi::DenseTensor *x_grad, phi::DenseTensor *y_grad) {
  KernelCall call(dev_ctx, "kron_grad", kernel_dtype_of<T>());
  int64_t xv[BP_OPS_MAX_DIMS], yv[BP_OPS_MAX_DIMS], ov[BP_OPS_MAX_DIMS];
  int n = kron_views(call, pd(x), pd(y), xv, yv, ov);
  diopiTensorHandle_t g = call.wrap(pd(out_grad), n, ov);
  kron_grad(call, g, pd(y), yv, ov, n, 1, pd(x_grad));
  kron_grad(call, g, pd(x), xv, ov, n, 0, pd(y_grad));
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(cross, backplane, ALL_LAYOUT, bridge::CrossKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(cross_grad, backplane, ALL_LAYOUT, bridge::CrossGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(kron, backplane, ALL_LAYOUT, bridge::KronKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(kron_grad, backplane, ALL_LAYOUT, bridge::KronGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
