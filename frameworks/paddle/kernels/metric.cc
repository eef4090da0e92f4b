/* accuracy: the share of rows whose top-k indices hold the row's label.
 *   hit = any(indices == label, over k);  correct = sum(hit);
 *   total = rows;  accuracy = correct / total (0 without rows).
 * diopiEq (label broadcast over k), diopiAny, diopiCastDtype, diopiSum,
 * diopiFill, diopiMulInpScalar. */
#include "kernel_call.h"

namespace bridge {

template <typename T>
void AccuracyKernel(const phi::Context &dev_ctx, const phi::DenseTensor &out,
                    const phi::DenseTensor &indices,
                    const phi::DenseTensor &label, phi::DenseTensor *accuracy,
                    phi::DenseTensor *correct, phi::DenseTensor *total) {
  KernelCall call(dev_ctx, "accuracy");
  int64_t shape[BP_OPS_MAX_DIMS];
  if (kernel_dims(pd(indices), shape) != 2)
    call.fail("indices must be [rows, k]");
  int64_t rows = shape[0], column[2] = {rows, 1};
  if (kernel_numel(pd(label)) != rows)
    call.fail("label has %lld elements for %lld rows",
              (long long)kernel_numel(pd(label)), (long long)rows);
  diopiTensorHandle_t acc = call.alloc(pd(accuracy));
  diopiTensorHandle_t right = call.alloc(pd(correct));
  diopiScalar_t count = kernel_scalar((double)rows);
  call.check(
      DIOPI(call, diopiFill)(call.diopi(), call.alloc(pd(total)), &count),
      "diopiFill");
  if (rows == 0) {
    diopiScalar_t zero = kernel_scalar(0.0);
    call.check(DIOPI(call, diopiFill)(call.diopi(), right, &zero), "diopiFill");
    call.check(DIOPI(call, diopiFill)(call.diopi(), acc, &zero), "diopiFill");
    return;
  }
  diopiTensorHandle_t hit = call.temp(diopi_dtype_bool, 2, shape);
  call.check(DIOPI(call, diopiEq)(call.diopi(), hit, call.wrap(pd(indices)),
                                  call.wrap(pd(label), 2, column)),
             "diopiEq");
  int64_t along_k = 1;
  diopiTensorHandle_t any = call.temp(diopi_dtype_bool, 1, &rows);
  call.check(DIOPI(call, diopiAny)(call.diopi(), any, hit, &along_k),
             "diopiAny");
  diopiTensorHandle_t ints = call.temp(diopi_dtype_int32, 1, &rows);
  call.check(DIOPI(call, diopiCastDtype)(call.diopi(), ints, any),
             "diopiCastDtype");
  diopiSize_t all = {NULL, 0};
  call.check(DIOPI(call, diopiSum)(call.diopi(), right, ints, all), "diopiSum");
  call.check(DIOPI(call, diopiCastDtype)(call.diopi(), acc, right),
             "diopiCastDtype");
  diopiScalar_t share = kernel_scalar(1.0 / (double)rows);
  call.check(DIOPI(call, diopiMulInpScalar)(call.diopi(), acc, &share),
             "diopiMulInpScalar");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(accuracy, backplane, ALL_LAYOUT, bridge::AccuracyKernel,
                    float) {}
