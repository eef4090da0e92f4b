/* repeat_interleave and its gradient. By a whole number: x seen as
 * [before, n, 1, after] around dim `dim` expands into out seen as
 * [before, n, repeats, after] (diopiExpand); the gradient sums out_grad's
 * repeats (diopiSum over that dim). By a tensor of repeats (one per slice):
 * out = x's slices picked by an index (diopiIndexSelect; gradient
 * diopiIndexSelectBackward, which adds up), the index of place j being
 * how many of the repeats' running totals are <= j (diopiCumsum, diopiLe
 * broadcast, diopiSum: O(out's length x n)); the total is read back on the
 * stream to size out. Paddle flattens x itself when no axis is given. */
#include "kernel_call.h"

namespace bridge {

/* x's dims as [before, n, 1, after] into `x4`, out's as [before, n,
 * repeats, after] into `out4`. */
static void interleave_dims(KernelCall &call, PD_Tensor *x, int repeats,
                            int dim, int64_t *x4, int64_t *out4) {
  int64_t s[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, s);
  if (ndim == 0) {
    s[0] = 1;
    ndim = 1;
  }
  if (dim < -ndim || dim >= ndim)
    call.fail("dim: expected -%d to %d, got %d", ndim, ndim - 1, dim);
  if (repeats < 0)
    call.fail("repeats %d: expected 0 or more", repeats);
  int d = dim < 0 ? dim + ndim : dim;
  x4[0] = x4[3] = 1;
  for (int k = 0; k < d; k++)
    x4[0] *= s[k];
  for (int k = d + 1; k < ndim; k++)
    x4[3] *= s[k];
  x4[1] = s[d];
  x4[2] = 1;
  for (int k = 0; k < 4; k++)
    out4[k] = k == 2 ? repeats : x4[k];
}

template <typename T>
void RepeatInterleaveKernel(const phi::Context &dev_ctx,
                            const phi::DenseTensor &x, int repeats, int dim,
                            int64_t output_size, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "repeat_interleave", kernel_dtype_of<T>());
  int64_t x4[4], out4[4];
  interleave_dims(call, pd(x), repeats, dim, x4, out4);
  call.alloc(pd(out));
  if (kernel_numel(pd(out)) == 0)
    return;
  call.check(DIOPI(call, diopiExpand)(call.diopi(), call.wrap(pd(out), 4, out4),
                                      call.wrap(pd(x), 4, x4)),
             "diopiExpand");
}

template <typename T>
void RepeatInterleaveGradKernel(const phi::Context &dev_ctx,
                                const phi::DenseTensor &x,
                                const phi::DenseTensor &out_grad, int repeats,
                                int dim, int64_t output_size,
                                phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "repeat_interleave_grad", kernel_dtype_of<T>());
  int64_t x4[4], out4[4];
  interleave_dims(call, pd(x), repeats, dim, x4, out4);
  int64_t summed = 2, kept[3] = {x4[0], x4[1], x4[3]};
  diopiSize_t dims = {&summed, 1};
  call.alloc(pd(x_grad));
  call.check(DIOPI(call, diopiSum)(call.diopi(), call.wrap(pd(x_grad), 3, kept),
                                   call.wrap(pd(out_grad), 4, out4), dims),
             "diopiSum");
}

/* The slice each place of out takes: [total] int64, total into *total. */
static diopiTensorHandle_t repeat_index(KernelCall &call, PD_Tensor *repeats,
                                        int64_t slices, int64_t *total) {
  int64_t n = kernel_numel(repeats);
  if (n != slices)
    call.fail("repeats: expected %lld values, one per slice, got %lld",
              (long long)slices, (long long)n);
  *total = 0;
  if (n == 0)
    return NULL;
  diopiTensorHandle_t counts = call.temp(diopi_dtype_int64, 1, &n);
  diopiTensorHandle_t ends = call.temp(diopi_dtype_int64, 1, &n);
  call.check(DIOPI(call, diopiCastDtype)(call.diopi(), counts,
                                         call.wrap(repeats, 1, &n)),
             "diopiCastDtype");
  call.check(DIOPI(call, diopiCumsum)(call.diopi(), ends, counts, 0),
             "diopiCumsum");
  void *data = NULL;
  diopiGetTensorData(ends, &data);
  *total = (int64_t)kernel_read_scalar(
      call,
      call.wrap_data((int64_t *)data + n - 1, diopi_dtype_int64, 0, NULL, NULL),
      "the repeats' total");
  if (*total <= 0)
    return NULL;
  int64_t row[2] = {1, n}, column[2] = {*total, 1}, both[2] = {*total, n};
  diopiTensorHandle_t places = call.temp(diopi_dtype_int64, 1, total);
  diopiScalar_t from = kernel_scalar(0.0), to = kernel_scalar((double)*total),
                step = kernel_scalar(1.0);
  call.check(DIOPI(call, diopiArange)(call.diopi(), places, &from, &to, &step),
             "diopiArange");
  void *place_data = NULL;
  diopiGetTensorData(places, &place_data);
  diopiTensorHandle_t passed = call.temp(diopi_dtype_bool, 2, both);
  call.check(
      DIOPI(call, diopiLe)(
          call.diopi(), passed,
          call.wrap_data(data, diopi_dtype_int64, 2, row, NULL),
          call.wrap_data(place_data, diopi_dtype_int64, 2, column, NULL)),
      "diopiLe");
  diopiTensorHandle_t index = call.temp(diopi_dtype_int64, 1, total);
  int64_t last = 1;
  diopiSize_t dim = {&last, 1};
  call.check(DIOPI(call, diopiSum)(call.diopi(), index, passed, dim),
             "diopiSum");
  return index;
}

/* x's dim `dim` (negative from the end) in [0, ndim), its dims into
 * `shape`. */
static int slice_dim(KernelCall &call, PD_Tensor *x, int dim, int64_t *shape,
                     int *ndim) {
  *ndim = kernel_dims(x, shape);
  if (*ndim == 0) {
    shape[0] = 1;
    *ndim = 1;
  }
  if (dim < -*ndim || dim >= *ndim)
    call.fail("dim: expected -%d to %d, got %d", *ndim, *ndim - 1, dim);
  return dim < 0 ? dim + *ndim : dim;
}

template <typename T>
void RepeatInterleaveWithTensorIndexKernel(const phi::Context &dev_ctx,
                                           const phi::DenseTensor &x,
                                           const phi::DenseTensor &repeats,
                                           int dim, int64_t output_size,
                                           phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "repeat_interleave_with_tensor_index",
                  kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS], total;
  int ndim, d = slice_dim(call, pd(x), dim, shape, &ndim);
  diopiTensorHandle_t index = repeat_index(call, pd(repeats), shape[d], &total);
  shape[d] = total;
  diopiTensorHandle_t o = call.alloc(pd(out), ndim, shape);
  if (index == NULL || kernel_numel(pd(out)) == 0)
    return;
  call.check(DIOPI(call, diopiIndexSelect)(call.diopi(), o, call.wrap(pd(x)), d,
                                           index),
             "diopiIndexSelect");
}

template <typename T>
void RepeatInterleaveWithTensorIndexGradKernel(const phi::Context &dev_ctx,
                                               const phi::DenseTensor &x,
                                               const phi::DenseTensor &repeats,
                                               const phi::DenseTensor &out_grad,
                                               int dim, int64_t output_size,
                                               phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "repeat_interleave_with_tensor_index_grad",
                  kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS], total;
  int ndim, d = slice_dim(call, pd(x), dim, shape, &ndim);
  diopiTensorHandle_t index = repeat_index(call, pd(repeats), shape[d], &total);
  diopiTensorHandle_t dx = call.alloc(pd(x_grad));
  if (index == NULL) {
    diopiScalar_t zero = kernel_scalar(0.0);
    call.check(DIOPI(call, diopiFill)(call.diopi(), dx, &zero), "diopiFill");
    return;
  }
  diopiSize_t sizes = {shape, ndim};
  call.check(DIOPI(call, diopiIndexSelectBackward)(
                 call.diopi(), call.wrap(pd(x_grad), ndim, shape),
                 call.wrap(pd(out_grad)), sizes, d, index),
             "diopiIndexSelectBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(repeat_interleave, backplane, ALL_LAYOUT,
                    bridge::RepeatInterleaveKernel, BRIDGE_FLOAT_DTYPES,
                    int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(repeat_interleave_grad, backplane, ALL_LAYOUT,
                    bridge::RepeatInterleaveGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(repeat_interleave_with_tensor_index, backplane, ALL_LAYOUT,
                    bridge::RepeatInterleaveWithTensorIndexKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(repeat_interleave_with_tensor_index_grad, backplane,
                    ALL_LAYOUT,
                    bridge::RepeatInterleaveWithTensorIndexGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
