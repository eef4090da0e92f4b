/* searchsorted: for each value, how many elements of its row of the
 * sorted sequence lie below it (right: at or below it), which is where it
 * would be inserted. The op library has no binary search, so it counts: a
 * comparison of every value with every element of its row (diopiLt or
 * diopiLe broadcast over [rows, values, 1] against [rows, 1, sequence]; a
 * 1-D sequence serves every value) summed over the sequence (diopiSum),
 * O(values x sequence) work and scratch. */
#include "kernel_call.h"

namespace bridge {

template <typename T>
void SearchsortedKernel(const phi::Context &dev_ctx,
                        const phi::DenseTensor &sorted_sequence,
                        const phi::DenseTensor &value, bool out_int32,
                        bool right, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "searchsorted");
  int64_t ss[BP_OPS_MAX_DIMS];
  int sn = kernel_dims(pd(sorted_sequence), ss);
  if (sn == 0)
    call.fail("sorted_sequence: expected at least 1 dim");
  int64_t n = ss[sn - 1], values = kernel_numel(pd(value));
  int64_t rows = sn == 1 ? 1 : kernel_numel(pd(sorted_sequence)) / n;
  if (values % rows != 0)
    call.fail("value: expected the sequence's %lld rows", (long long)rows);
  int64_t m = values / rows;
  int64_t seq3[3] = {rows, 1, n}, val3[3] = {rows, m, 1},
          both[3] = {rows, m, n}, counts[2] = {rows, m};
  diopiTensorHandle_t below = call.temp(diopi_dtype_bool, 3, both);
  diopiTensorHandle_t s = call.wrap(pd(sorted_sequence), 3, seq3),
                      v = call.wrap(pd(value), 3, val3);
  if (right)
    call.check(DIOPI(call, diopiLe)(call.diopi(), below, s, v), "diopiLe");
  else
    call.check(DIOPI(call, diopiLt)(call.diopi(), below, s, v), "diopiLt");
  int64_t last = 2;
  diopiSize_t dim = {&last, 1};
  PD_DataType dtype = out_int32 ? PD_DataType::INT32 : PD_DataType::INT64;
  call.alloc(pd(out), -1, NULL, dtype);
  diopiTensorHandle_t o = call.wrap(pd(out), 2, counts);
  if (!out_int32) {
    call.check(DIOPI(call, diopiSum)(call.diopi(), o, below, dim), "diopiSum");
    return;
  }
  diopiTensorHandle_t wide = call.temp(diopi_dtype_int64, 2, counts);
  call.check(DIOPI(call, diopiSum)(call.diopi(), wide, below, dim), "diopiSum");
  call.check(DIOPI(call, diopiCastDtype)(call.diopi(), o, wide),
             "diopiCastDtype");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(searchsorted, backplane, ALL_LAYOUT,
                    bridge::SearchsortedKernel, float, double, int32_t,
                    int64_t) {}
