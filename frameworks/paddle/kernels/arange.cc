/* arange_tensor: start, end and step are one-element tensors (Paddle
 * moves them to the device), read back on Paddle's stream to size the
 * output as Paddle does (integers: ceil(|end - start| / |step|) in integer
 * arithmetic; floats: ceil(|(end - start) / step|)), then diopiArange. */
#include <math.h>

#include <type_traits>

#include "kernel_call.h"

namespace bridge {

/* The one element of `t` (a T on the device), waited for. */
template <typename T>
static double read_value(KernelCall &call, PD_Tensor *t, const char *name) {
  if (kernel_numel(t) != 1)
    call.fail("%s: expected one element, got %lld", name,
              (long long)kernel_numel(t));
  T value;
  PD_Status status = C_SUCCESS;
  bp_status_t st =
      bp_copy(NULL, &value, call.device(), PD_TensorGetDataPointer(t, &status),
              sizeof(T), bp_ops_context_stream(call.diopi()));
  if (st != BP_OK)
    call.fail("reading %s: %s", name, bp_last_error());
  if constexpr (std::is_arithmetic<T>::value)
    return static_cast<double>(value);
  else /* float16, bfloat16 */
    return static_cast<double>(static_cast<float>(value));
}

template <typename T>
void ArangeTensorKernel(const phi::Context &dev_ctx,
                        const phi::DenseTensor &start,
                        const phi::DenseTensor &end,
                        const phi::DenseTensor &step, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "arange_tensor", kernel_dtype_of<T>());
  double from = read_value<T>(call, pd(start), "start");
  double to = read_value<T>(call, pd(end), "end");
  double by = read_value<T>(call, pd(step), "step");
  if (by == 0 || (from < to && by < 0) || (from > to && by > 0))
    call.fail("step %g: expected nonzero, with the sign of end - start (start "
              "%g, end %g)",
              by, from, to);
  int64_t count;
  if (std::is_integral<T>::value) {
    int64_t span = (int64_t)fabs(to - from), stride = (int64_t)fabs(by);
    count = (span + stride - 1) / stride;
  } else {
    count = (int64_t)ceil(fabs((to - from) / by));
  }
  diopiTensorHandle_t o = call.alloc(pd(out), 1, &count);
  if (count == 0)
    return;
  diopiScalar_t a = kernel_scalar(from), b = kernel_scalar(to),
                s = kernel_scalar(by);
  call.check(DIOPI(call, diopiArange)(call.diopi(), o, &a, &b, &s),
             "diopiArange");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(arange_tensor, backplane, ALL_LAYOUT,
                    bridge::ArangeTensorKernel, BRIDGE_FLOAT_DTYPES, int32_t,
                    int64_t) {}
