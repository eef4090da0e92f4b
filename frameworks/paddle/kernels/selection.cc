/* kthvalue (the k-th smallest along an axis and its index), mode (the
 * most frequent value, the smallest of equally frequent ones, and its last
 * index, as Paddle's CPU) and their gradients. Both sort along the axis
 * (diopiSort, stable): kthvalue takes the k-th place of the values and
 * indices (strided views); mode counts each sorted element's equals (a
 * diopiEq of the row against itself, O(n^2) per row, summed), takes the
 * first largest count (diopiArgmax: the smallest value) and the index at
 * the end of its run (diopiGather). The gradients scatter out_grad to
 * those indices in zeros (diopiScatterInp). */
#include "axis_cut.h"

namespace bridge {

/* x's dims into `shape` (0-D as [1]), the axis into *dim, and x's dims
 * with that axis 1 into `kept`; returns the rank. */
static int kth_dims(KernelCall &call, PD_Tensor *x, int64_t k, int axis,
                    int64_t *shape, int *dim, int64_t *kept) {
  int ndim = kernel_dims(x, shape);
  if (ndim == 0) {
    shape[0] = 1;
    ndim = 1;
  }
  if (axis < -ndim || axis >= ndim)
    call.fail("axis: expected -%d to %d, got %d", ndim, ndim - 1, axis);
  *dim = axis < 0 ? axis + ndim : axis;
  if (k < 1 || k > shape[*dim])
    call.fail("k %lld: expected 1 to %lld", (long long)k,
              (long long)shape[*dim]);
  for (int d = 0; d < ndim; d++)
    kept[d] = d == *dim ? 1 : shape[d];
  return ndim;
}

/* values, order = x sorted along `dim` (stable), as scratch. */
template <typename T>
static void
sort_along(KernelCall &call, PD_Tensor *x, int ndim, const int64_t *shape,
           int dim, diopiTensorHandle_t *values, diopiTensorHandle_t *order) {
  *values = call.temp(kernel_diopi_dtype(kernel_dtype_of<T>()), ndim, shape);
  *order = call.temp(diopi_dtype_int64, ndim, shape);
  bool stable = true;
  call.check(DIOPI(call, diopiSort)(call.diopi(), *values, *order,
                                    call.wrap(x, ndim, shape), dim, false,
                                    &stable),
             "diopiSort");
}

/* x_grad = zeros with out_grad at `indices` along the axis. */
static void selection_grad(KernelCall &call, PD_Tensor *x, PD_Tensor *indices,
                           PD_Tensor *out_grad, int axis, PD_Tensor *x_grad) {
  int64_t shape[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  int dim, ndim = kth_dims(call, x, 1, axis, shape, &dim, kept);
  call.alloc(x_grad);
  diopiTensorHandle_t dx = call.wrap(x_grad, ndim, shape);
  diopiScalar_t zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), dx, &zero), "diopiFill");
  call.check(DIOPI(call, diopiScatterInp)(call.diopi(), dx, dim,
                                          call.wrap(out_grad, ndim, kept),
                                          call.wrap(indices, ndim, kept), NULL),
             "diopiScatterInp");
}

template <typename T>
void KthvalueKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    int64_t k, int axis, bool keepdim, phi::DenseTensor *out,
                    phi::DenseTensor *indices) {
  KernelCall call(dev_ctx, "kthvalue", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  int dim, ndim = kth_dims(call, pd(x), k, axis, shape, &dim, kept);
  diopiTensorHandle_t values, order;
  sort_along<T>(call, pd(x), ndim, shape, dim, &values, &order);
  void *v = NULL, *o = NULL;
  diopiGetTensorData(values, &v);
  diopiGetTensorData(order, &o);
  call.alloc(pd(out));
  call.alloc(pd(indices), -1, NULL, PD_DataType::INT64);
  call.check(DIOPI(call, diopiCopyInp)(
                 call.diopi(), cut<T>(call, v, ndim, shape, dim, k - 1, 1),
                 call.wrap(pd(out), ndim, kept)),
             "diopiCopyInp");
  call.check(DIOPI(call, diopiCopyInp)(
                 call.diopi(),
                 cut<int64_t>(call, o, ndim, shape, dim, k - 1, 1),
                 call.wrap(pd(indices), ndim, kept)),
             "diopiCopyInp");
}

template <typename T>
void KthvalueGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        const phi::DenseTensor &indices,
                        const phi::DenseTensor &d_out, int64_t k, int axis,
                        bool keepdim, phi::DenseTensor *d_x) {
  KernelCall call(dev_ctx, "kthvalue_grad", kernel_dtype_of<T>());
  selection_grad(call, pd(x), pd(indices), pd(d_out), axis, pd(d_x));
}

template <typename T>
void ModeKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                int axis, bool keepdim, phi::DenseTensor *out,
                phi::DenseTensor *indices) {
  KernelCall call(dev_ctx, "mode", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  int dim, ndim = kth_dims(call, pd(x), 1, axis, shape, &dim, kept);
  diopiTensorHandle_t values, order;
  sort_along<T>(call, pd(x), ndim, shape, dim, &values, &order);
  /* x as [before, n, after]; equals: [before, n, n, after] */
  int64_t before = 1, after = 1, n = shape[dim];
  for (int d = 0; d < dim; d++)
    before *= shape[d];
  for (int d = dim + 1; d < ndim; d++)
    after *= shape[d];
  int64_t rows[3] = {before, n, after}, one_row[3] = {before, 1, after},
          a4[4] = {before, n, 1, after}, b4[4] = {before, 1, n, after},
          both[4] = {before, n, n, after};
  void *v = NULL, *o = NULL;
  diopiGetTensorData(values, &v);
  diopiGetTensorData(order, &o);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype_of<T>());
  diopiTensorHandle_t equal = call.temp(diopi_dtype_bool, 4, both);
  call.check(DIOPI(call, diopiEq)(call.diopi(), equal,
                                  call.wrap_data(v, dtype, 4, a4, NULL),
                                  call.wrap_data(v, dtype, 4, b4, NULL)),
             "diopiEq");
  diopiTensorHandle_t counts = call.temp(diopi_dtype_int64, 3, rows);
  int64_t summed = 2, along = 1;
  diopiSize_t sum_dim = {&summed, 1};
  call.check(DIOPI(call, diopiSum)(call.diopi(), counts, equal, sum_dim),
             "diopiSum");
  diopiTensorHandle_t first = call.temp(diopi_dtype_int64, 3, one_row);
  call.check(
      DIOPI(call, diopiArgmax)(call.diopi(), first, counts, &along, true),
      "diopiArgmax");
  diopiTensorHandle_t last = call.temp(diopi_dtype_int64, 3, one_row);
  call.check(DIOPI(call, diopiGather)(call.diopi(), last, counts, 1, first),
             "diopiGather");
  diopiScalar_t one = kernel_scalar(1.0), minus_one = kernel_scalar(-1.0);
  call.check(DIOPI(call, diopiAddInp)(call.diopi(), last, first, &one),
             "diopiAddInp");
  call.check(
      DIOPI(call, diopiAddInpScalar)(call.diopi(), last, &minus_one, &one),
      "diopiAddInpScalar");
  call.alloc(pd(out));
  call.alloc(pd(indices), -1, NULL, PD_DataType::INT64);
  call.check(DIOPI(call, diopiGather)(
                 call.diopi(), call.wrap(pd(out), 3, one_row),
                 call.wrap_data(v, dtype, 3, rows, NULL), 1, first),
             "diopiGather");
  call.check(DIOPI(call, diopiGather)(
                 call.diopi(), call.wrap(pd(indices), 3, one_row),
                 call.wrap_data(o, diopi_dtype_int64, 3, rows, NULL), 1, last),
             "diopiGather");
}

template <typename T>
void ModeGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &indices,
                    const phi::DenseTensor &out_grad, int axis, bool keepdim,
                    phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "mode_grad", kernel_dtype_of<T>());
  selection_grad(call, pd(x), pd(indices), pd(out_grad), axis, pd(x_grad));
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(kthvalue, backplane, ALL_LAYOUT, bridge::KthvalueKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(kthvalue_grad, backplane, ALL_LAYOUT,
                    bridge::KthvalueGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(mode, backplane, ALL_LAYOUT, bridge::ModeKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(mode_grad, backplane, ALL_LAYOUT, bridge::ModeGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
