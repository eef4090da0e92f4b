/* histogram and bincount: counts (or sums of weights) per bin, added by
 * diopiIndexPutInp accumulating into zeros. Their output sizes and
 * histogram's default range depend on the data, which is read back on the
 * stream (diopiMaxAll, diopiMinAll): the host waits. histogram's bin of x
 * is (x - min) * bins / (max - min) truncated, in x's dtype as on Paddle's
 * CPU (x = max in the last bin); values outside [min, max] go to an extra
 * bin that is left out. */
#include "kernel_call.h"

namespace bridge {

/* The extreme of all of `x` (`largest` or the smallest), waited for. */
static double extreme(KernelCall &call, PD_Tensor *x, bool largest) {
  diopiTensorHandle_t v =
      call.temp(kernel_diopi_dtype(kernel_dtype(x)), 0, NULL);
  diopiTensorHandle_t in = call.wrap(x);
  if (largest)
    call.check(DIOPI(call, diopiMaxAll)(call.diopi(), v, in), "diopiMaxAll");
  else
    call.check(DIOPI(call, diopiMinAll)(call.diopi(), v, in), "diopiMinAll");
  return kernel_read_scalar(
      call, v, largest ? "the largest value" : "the smallest value");
}

/* counts[index[i]] += values[i] (values NULL: 1) into zeros of `size`
 * elements of `dtype`, the index `n` elements; returns counts. */
static diopiTensorHandle_t count(KernelCall &call,
                                 diopiConstTensorHandle_t index, int64_t n,
                                 diopiConstTensorHandle_t values,
                                 diopiDtype_t dtype, int64_t size) {
  diopiTensorHandle_t counts = call.temp(dtype, 1, &size);
  diopiScalar_t zero = kernel_scalar(0.0), one = kernel_scalar(1.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), counts, &zero), "diopiFill");
  if (n == 0)
    return counts;
  if (values == NULL) {
    diopiTensorHandle_t ones = call.temp(dtype, 1, &n);
    call.check(DIOPI(call, diopiFill)(call.diopi(), ones, &one), "diopiFill");
    values = ones;
  }
  call.check(DIOPI(call, diopiIndexPutInp)(call.diopi(), counts, values, &index,
                                           1, true),
             "diopiIndexPutInp");
  return counts;
}

template <typename T>
void HistogramKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                     const paddle::optional<phi::DenseTensor> &weight,
                     int64_t bins, float min, float max, bool density,
                     phi::DenseTensor *output) {
  KernelCall call(dev_ctx, "histogram");
  if (bins < 1)
    call.fail("bins %lld: expected 1 or more", (long long)bins);
  int64_t n = kernel_numel(pd(input));
  double lo = min, hi = max;
  if (lo == hi && n > 0) {
    lo = extreme(call, pd(input), false);
    hi = extreme(call, pd(input), true);
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  if (lo > hi)
    call.fail("min %g > max %g", lo, hi);
  diopiDtype_t x_dtype = kernel_diopi_dtype(kernel_dtype(pd(input)));
  diopiTensorHandle_t x = call.wrap(pd(input), 1, &n);
  diopiTensorHandle_t place = call.temp(x_dtype, 1, &n);
  diopiTensorHandle_t index = call.temp(diopi_dtype_int64, 1, &n);
  diopiTensorHandle_t outside = call.temp(diopi_dtype_bool, 1, &n);
  diopiTensorHandle_t above = call.temp(diopi_dtype_bool, 1, &n);
  diopiScalar_t from = kernel_scalar(lo), to = kernel_scalar(hi),
                one = kernel_scalar(1.0),
                count_of = kernel_scalar((double)bins),
                span = kernel_scalar(hi - lo), first = kernel_scalar(0.0),
                last = kernel_scalar((double)(bins - 1)),
                spill = kernel_scalar((double)bins);
  if (n > 0) {
    call.check(DIOPI(call, diopiSubScalar)(call.diopi(), place, x, &from, &one),
               "diopiSubScalar");
    call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), place, &count_of),
               "diopiMulInpScalar");
    call.check(DIOPI(call, diopiDivInpScalar)(call.diopi(), place, &span,
                                              RoundModeNone),
               "diopiDivInpScalar");
    call.check(DIOPI(call, diopiCastDtype)(call.diopi(), index, place),
               "diopiCastDtype");
    call.check(
        DIOPI(call, diopiClampInpScalar)(call.diopi(), index, &first, &last),
        "diopiClampInpScalar");
    call.check(DIOPI(call, diopiLtScalar)(call.diopi(), outside, x, &from),
               "diopiLtScalar");
    call.check(DIOPI(call, diopiGtScalar)(call.diopi(), above, x, &to),
               "diopiGtScalar");
    call.check(DIOPI(call, diopiLogicalOrInp)(call.diopi(), outside, above),
               "diopiLogicalOrInp");
    call.check(DIOPI(call, diopiMaskedFillInpScalar)(call.diopi(), index,
                                                     outside, &spill),
               "diopiMaskedFillInpScalar");
  }
  PD_DataType dtype = pd(weight) ? kernel_dtype(pd(weight))
                      : density  ? PD_DataType::FLOAT32
                                 : PD_DataType::INT64;
  diopiTensorHandle_t w = pd(weight) ? call.wrap(pd(weight), 1, &n) : NULL;
  diopiTensorHandle_t counts =
      count(call, index, n, w, kernel_diopi_dtype(dtype), bins + 1);
  void *data = NULL;
  diopiGetTensorData(counts, &data);
  diopiTensorHandle_t in_range =
      call.wrap_data(data, kernel_diopi_dtype(dtype), 1, &bins, NULL);
  diopiTensorHandle_t o = call.alloc(pd(output), 1, &bins, dtype);
  if (!density) {
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), in_range, o),
               "diopiCopyInp");
    return;
  }
  /* density: counts / (their total x the bin width) */
  diopiTensorHandle_t total = call.temp(kernel_diopi_dtype(dtype), 0, NULL);
  int64_t all = 0;
  diopiSize_t dim = {&all, 1};
  call.check(DIOPI(call, diopiSum)(call.diopi(), total, in_range, dim),
             "diopiSum");
  call.check(
      DIOPI(call, diopiDiv)(call.diopi(), o, in_range, total, RoundModeNone),
      "diopiDiv");
  diopiScalar_t width = kernel_scalar((hi - lo) / (double)bins);
  call.check(
      DIOPI(call, diopiDivInpScalar)(call.diopi(), o, &width, RoundModeNone),
      "diopiDivInpScalar");
}

/* out[v] = how often v occurs in x (or the sum of its weights), for v up
 * to max(x's largest + 1, minlength). */
template <typename T>
void BincountKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const paddle::optional<phi::DenseTensor> &weights,
                    const phi::Scalar &minlength, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "bincount");
  int64_t n = kernel_numel(pd(x)), size = minlength.to<int64_t>();
  if (size < 0)
    call.fail("minlength %lld: expected 0 or more", (long long)size);
  if (n > 0) {
    if (extreme(call, pd(x), false) < 0)
      call.fail("x: expected no negative values");
    int64_t largest = (int64_t)extreme(call, pd(x), true);
    size = largest + 1 > size ? largest + 1 : size;
  }
  PD_DataType dtype = PD_DataType::INT64;
  diopiTensorHandle_t w = NULL;
  if (pd(weights)) {
    PD_DataType wd = kernel_dtype(pd(weights));
    if (wd == PD_DataType::FLOAT32 || wd == PD_DataType::FLOAT64)
      dtype = wd;
    w = call.wrap(pd(weights), 1, &n);
    if (dtype != wd) { /* integral weights count in int64 */
      diopiTensorHandle_t wide = call.temp(diopi_dtype_int64, 1, &n);
      call.check(DIOPI(call, diopiCastDtype)(call.diopi(), wide, w),
                 "diopiCastDtype");
      w = wide;
    }
  }
  diopiTensorHandle_t counts = count(call, call.wrap(pd(x), 1, &n), n, w,
                                     kernel_diopi_dtype(dtype), size);
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), counts,
                                       call.alloc(pd(out), 1, &size, dtype)),
             "diopiCopyInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(histogram, backplane, ALL_LAYOUT, bridge::HistogramKernel,
                    float, double) {}
/* Paddle picks bincount's kernel by the weights' dtype when there are
 * weights. */
PD_BUILD_PHI_KERNEL(bincount, backplane, ALL_LAYOUT, bridge::BincountKernel,
                    float, double, int32_t, int64_t) {}
