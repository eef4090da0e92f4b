/* prelu (out = x where x > 0, else alpha * x) and its gradient (x_grad =
 * dout where x > 0, else alpha * dout; alpha_grad = dout * x where x <= 0,
 * summed over the dims alpha is broadcast in), Paddle's CPU formulas.
 * mode "all": one alpha; "channel": one per channel (dim 1, or the last
 * dim for a channel-last data_format); "element": alpha of x's rank
 * (broadcast over its unit dims). diopiGtScalar, diopiMul,
 * diopiWhere, diopiMaskedFillInpScalar, kernel_sum_to. */
#include <string>

#include "kernel_call.h"

namespace bridge {

/* The dim of x at which alpha's dims sit (-1: aligned right). */
static int alpha_axis(KernelCall &call, const std::string &data_format,
                      const std::string &mode) {
  if (mode == "all" || mode == "element")
    return -1;
  if (mode != "channel")
    call.fail("mode %s: expected all, channel or element", mode.c_str());
  bool channel_first = data_format.size() > 1 && data_format[1] == 'C';
  return channel_first ? 1 : -1;
}

/* positive = x > 0, scaled = x_like * alpha (alpha placed at `axis`). */
static void prelu_parts(KernelCall &call, PD_Tensor *x, PD_Tensor *alpha,
                        diopiConstTensorHandle_t x_like, int axis,
                        diopiTensorHandle_t *positive,
                        diopiTensorHandle_t *scaled) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape);
  diopiScalar_t zero = kernel_scalar(0.0);
  *positive = call.temp(diopi_dtype_bool, ndim, shape);
  call.check(
      DIOPI(call, diopiGtScalar)(call.diopi(), *positive, call.wrap(x), &zero),
      "diopiGtScalar");
  *scaled = call.temp(kernel_diopi_dtype(kernel_dtype(x)), ndim, shape);
  call.check(DIOPI(call, diopiMul)(call.diopi(), *scaled, x_like,
                                   call.wrap_at_axis(alpha, x, axis)),
             "diopiMul");
}

template <typename T>
void PReluKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                 const phi::DenseTensor &alpha, const std::string &data_format,
                 const std::string &mode, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "prelu", kernel_dtype_of<T>());
  int axis = alpha_axis(call, data_format, mode);
  diopiTensorHandle_t in = call.wrap(pd(x)), positive, scaled;
  prelu_parts(call, pd(x), pd(alpha), in, axis, &positive, &scaled);
  call.check(DIOPI(call, diopiWhere)(call.diopi(), call.alloc(pd(out)),
                                     positive, in, scaled),
             "diopiWhere");
}

template <typename T>
void PReluGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                     const phi::DenseTensor &alpha,
                     const phi::DenseTensor &out_grad,
                     const std::string &data_format, const std::string &mode,
                     phi::DenseTensor *x_grad, phi::DenseTensor *alpha_grad) {
  KernelCall call(dev_ctx, "prelu_grad", kernel_dtype_of<T>());
  int axis = alpha_axis(call, data_format, mode);
  diopiTensorHandle_t g = call.wrap(pd(out_grad)), positive, scaled;
  prelu_parts(call, pd(x), pd(alpha), g, axis, &positive, &scaled);
  if (alpha_grad) {
    int64_t shape[BP_OPS_MAX_DIMS];
    int ndim = kernel_dims(pd(x), shape);
    diopiTensorHandle_t gx =
        call.temp(kernel_diopi_dtype(kernel_dtype(pd(x))), ndim, shape);
    diopiScalar_t zero = kernel_scalar(0.0);
    call.check(DIOPI(call, diopiMul)(call.diopi(), gx, g, call.wrap(pd(x))),
               "diopiMul");
    call.check(DIOPI(call, diopiMaskedFillInpScalar)(call.diopi(), gx, positive,
                                                     &zero),
               "diopiMaskedFillInpScalar");
    kernel_sum_to(call, pd(alpha_grad), gx, ndim, shape, 1.0, axis);
  }
  if (x_grad)
    call.check(DIOPI(call, diopiWhere)(call.diopi(), call.alloc(pd(x_grad)),
                                       positive, g, scaled),
               "diopiWhere");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(prelu, backplane, ALL_LAYOUT, bridge::PReluKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(prelu_grad, backplane, ALL_LAYOUT, bridge::PReluGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
