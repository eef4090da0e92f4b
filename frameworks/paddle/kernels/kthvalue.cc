/* kthvalue (the k-th smallest along an axis and its index) and its
 * gradient: a stable diopiSort along the axis, then the k-th place of the
 * values and indices (strided views); the gradient scatters out_grad to
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

template <typename T>
void KthvalueKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    int64_t k, int axis, bool keepdim, phi::DenseTensor *out,
                    phi::DenseTensor *indices) {
  KernelCall call(dev_ctx, "kthvalue", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  int dim, ndim = kth_dims(call, pd(x), k, axis, shape, &dim, kept);
  diopiTensorHandle_t values =
      call.temp(kernel_diopi_dtype(kernel_dtype_of<T>()), ndim, shape);
  diopiTensorHandle_t order = call.temp(diopi_dtype_int64, ndim, shape);
  bool stable = true;
  call.check(DIOPI(call, diopiSort)(call.diopi(), values, order,
                                    call.wrap(pd(x), ndim, shape), dim, false,
                                    &stable),
             "diopiSort");
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
  int64_t shape[BP_OPS_MAX_DIMS], kept[BP_OPS_MAX_DIMS];
  int dim, ndim = kth_dims(call, pd(x), k, axis, shape, &dim, kept);
  call.alloc(pd(d_x));
  diopiTensorHandle_t dx = call.wrap(pd(d_x), ndim, shape);
  diopiScalar_t zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), dx, &zero), "diopiFill");
  call.check(DIOPI(call, diopiScatterInp)(
                 call.diopi(), dx, dim, call.wrap(pd(d_out), ndim, kept),
                 call.wrap(pd(indices), ndim, kept), NULL),
             "diopiScatterInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(kthvalue, backplane, ALL_LAYOUT, bridge::KthvalueKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(kthvalue_grad, backplane, ALL_LAYOUT,
                    bridge::KthvalueGradKernel, BRIDGE_FLOAT_DTYPES) {}
