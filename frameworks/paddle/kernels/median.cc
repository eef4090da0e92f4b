/* median along one axis or over every element, and its gradient. A stable
 * diopiSort along the axis gives the middle values and their indices:
 * mode "avg" averages the two middles of an even count (the one middle of
 * an odd count twice) and keeps both indices (medians [..., 2]); mode
 * "min" takes the lower middle and its index. The gradient adds out_grad
 * (halved for "avg") at those indices in zeros (diopiScatterInp). A tie
 * may name another of the equal elements than Paddle's CPU does; a NaN is
 * sorted last, not taken as the median as on Paddle's CPU. */
#include <string>

#include "axis_cut.h"

namespace bridge {

struct median_dims {
  int ndim, dim;
  int64_t shape[BP_OPS_MAX_DIMS]; /* x's (every element: [1, numel]) */
  int64_t kept[BP_OPS_MAX_DIMS];  /* with the axis 1 */
  int64_t lower, upper;           /* the middles' places along it */
};

static median_dims median_dims_of(KernelCall &call, PD_Tensor *x,
                                  const phi::IntArray &axes,
                                  const std::string &mode) {
  if (mode != "avg" && mode != "min")
    call.fail("mode %s: expected avg or min", mode.c_str());
  median_dims m;
  int64_t dims[BP_OPS_MAX_DIMS];
  int naxes = kernel_int_array(axes, dims);
  m.ndim = kernel_dims(x, m.shape);
  if (naxes == 0 || m.ndim == 0) {
    m.shape[0] = 1;
    m.shape[1] = kernel_numel(x);
    m.ndim = 2;
    m.dim = 1;
  } else if (naxes == 1 && dims[0] >= -m.ndim && dims[0] < m.ndim) {
    m.dim = (int)(dims[0] < 0 ? dims[0] + m.ndim : dims[0]);
  } else {
    call.fail("axis: one dim of %d, or none (every element)", m.ndim);
  }
  int64_t n = m.shape[m.dim];
  if (n == 0)
    call.fail("the median of no elements");
  for (int d = 0; d < m.ndim; d++)
    m.kept[d] = d == m.dim ? 1 : m.shape[d];
  m.lower = (n - 1) / 2;
  m.upper = mode == "avg" ? n / 2 : m.lower;
  return m;
}

/* Place `which` (0, 1) of the index pairs of `medians` (kept + [2]) as a
 * view of the kept shape. */
static diopiTensorHandle_t pair_part(KernelCall &call, PD_Tensor *medians,
                                     const median_dims &m, int which) {
  int64_t strides[BP_OPS_MAX_DIMS], stride = 2;
  for (int d = m.ndim - 1; d >= 0; d--) {
    strides[d] = stride;
    stride *= m.kept[d];
  }
  PD_Status status = C_SUCCESS;
  int64_t *data = (int64_t *)PD_TensorGetDataPointer(medians, &status);
  return call.wrap_data(data + which, diopi_dtype_int64, m.ndim, m.kept,
                        strides);
}

template <typename T>
void MedianKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::IntArray &axes, bool keep_dim,
                  const std::string &mode, phi::DenseTensor *out,
                  phi::DenseTensor *medians) {
  KernelCall call(dev_ctx, "median", kernel_dtype_of<T>());
  median_dims m = median_dims_of(call, pd(x), axes, mode);
  diopiTensorHandle_t values, order;
  values = call.temp(kernel_diopi_dtype(kernel_dtype_of<T>()), m.ndim, m.shape);
  order = call.temp(diopi_dtype_int64, m.ndim, m.shape);
  bool stable = true;
  call.check(DIOPI(call, diopiSort)(call.diopi(), values, order,
                                    call.wrap(pd(x), m.ndim, m.shape), m.dim,
                                    false, &stable),
             "diopiSort");
  void *v = NULL, *o = NULL;
  diopiGetTensorData(values, &v);
  diopiGetTensorData(order, &o);
  call.alloc(pd(out));
  call.alloc(pd(medians), -1, NULL, PD_DataType::INT64);
  diopiTensorHandle_t result = call.wrap(pd(out), m.ndim, m.kept);
  diopiTensorHandle_t low = cut<T>(call, v, m.ndim, m.shape, m.dim, m.lower, 1);
  diopiTensorHandle_t low_at =
      cut<int64_t>(call, o, m.ndim, m.shape, m.dim, m.lower, 1);
  if (mode == "min") {
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), low, result),
               "diopiCopyInp");
    call.check(
        DIOPI(call, diopiCopyInp)(call.diopi(), low_at,
                                  call.wrap(pd(medians), m.ndim, m.kept)),
        "diopiCopyInp");
    return;
  }
  diopiScalar_t one = kernel_scalar(1.0), half = kernel_scalar(0.5);
  call.check(DIOPI(call, diopiAdd)(
                 call.diopi(), result, low,
                 cut<T>(call, v, m.ndim, m.shape, m.dim, m.upper, 1), &one),
             "diopiAdd");
  call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), result, &half),
             "diopiMulInpScalar");
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), low_at,
                                       pair_part(call, pd(medians), m, 0)),
             "diopiCopyInp");
  call.check(DIOPI(call, diopiCopyInp)(
                 call.diopi(),
                 cut<int64_t>(call, o, m.ndim, m.shape, m.dim, m.upper, 1),
                 pair_part(call, pd(medians), m, 1)),
             "diopiCopyInp");
}

template <typename T>
void MedianGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      const phi::DenseTensor &median_data,
                      const phi::DenseTensor &median_index,
                      const phi::DenseTensor &out_grad,
                      const phi::IntArray &axes, bool keep_dim,
                      const std::string &mode, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "median_grad", kernel_dtype_of<T>());
  median_dims m = median_dims_of(call, pd(x), axes, mode);
  call.alloc(pd(x_grad));
  diopiTensorHandle_t dx = call.wrap(pd(x_grad), m.ndim, m.shape);
  diopiScalar_t zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), dx, &zero), "diopiFill");
  diopiTensorHandle_t g = call.wrap(pd(out_grad), m.ndim, m.kept);
  if (mode == "min") {
    call.check(DIOPI(call, diopiScatterInp)(
                   call.diopi(), dx, m.dim, g,
                   call.wrap(pd(median_index), m.ndim, m.kept), "add"),
               "diopiScatterInp");
    return;
  }
  diopiTensorHandle_t halves =
      call.temp(kernel_diopi_dtype(kernel_dtype_of<T>()), m.ndim, m.kept);
  diopiScalar_t half = kernel_scalar(0.5);
  call.check(DIOPI(call, diopiMulScalar)(call.diopi(), halves, g, &half),
             "diopiMulScalar");
  for (int which = 0; which < 2; which++)
    call.check(DIOPI(call, diopiScatterInp)(
                   call.diopi(), dx, m.dim, halves,
                   pair_part(call, pd(median_index), m, which), "add"),
               "diopiScatterInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(median, backplane, ALL_LAYOUT, bridge::MedianKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(median_grad, backplane, ALL_LAYOUT,
                    bridge::MedianGradKernel, BRIDGE_FLOAT_DTYPES) {}
