/* arange_tensor and linspace: their bounds and step or count are
 * one-element tensors (Paddle moves them to the device), read back on
 * Paddle's stream to size the output. arange's count as Paddle's
 * (integers: ceil(|end - start| / |step|) in integer arithmetic; floats:
 * ceil(|(end - start) / step|)), then diopiArange; linspace's count is its
 * `number` (diopiLinspace: from both ends, as Paddle's CPU). */
#include <math.h>

#include <type_traits>

#include "kernel_call.h"

namespace bridge {

/* The one element of `t` (on the device), waited for. */
static double read_number(KernelCall &call, PD_Tensor *t, const char *name) {
  if (kernel_numel(t) != 1)
    call.fail("%s: expected one element, got %lld", name,
              (long long)kernel_numel(t));
  return kernel_read_scalar(call, call.wrap(t), name);
}

template <typename T>
void ArangeTensorKernel(const phi::Context &dev_ctx,
                        const phi::DenseTensor &start,
                        const phi::DenseTensor &end,
                        const phi::DenseTensor &step, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "arange_tensor", kernel_dtype_of<T>());
  double from = read_number(call, pd(start), "start");
  double to = read_number(call, pd(end), "end");
  double by = read_number(call, pd(step), "step");
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

template <typename T>
void LinspaceKernel(const phi::Context &dev_ctx, const phi::DenseTensor &start,
                    const phi::DenseTensor &stop,
                    const phi::DenseTensor &number, phi::DataType dtype,
                    phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "linspace", kernel_dtype_of<T>());
  double from = read_number(call, pd(start), "start");
  double to = read_number(call, pd(stop), "stop");
  double count = read_number(call, pd(number), "number");
  if (count <= 0)
    call.fail("number %g: expected a count above 0", count);
  int64_t steps = (int64_t)count;
  diopiScalar_t a = kernel_scalar(from), b = kernel_scalar(to);
  call.check(DIOPI(call, diopiLinspace)(
                 call.diopi(), call.alloc(pd(out), 1, &steps), &a, &b, steps),
             "diopiLinspace");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(arange_tensor, backplane, ALL_LAYOUT,
                    bridge::ArangeTensorKernel, BRIDGE_FLOAT_DTYPES, int32_t,
                    int64_t) {}
PD_BUILD_PHI_KERNEL(linspace, backplane, ALL_LAYOUT, bridge::LinspaceKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
