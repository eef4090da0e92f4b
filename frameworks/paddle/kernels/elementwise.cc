/* add, subtract, multiply, divide (numpy broadcasting), their _raw forms
 * (which a legacy-IR static graph runs: the operand of fewer dims placed at
 * the other's dim `axis`) and their gradients (which take that axis too):
 * diopiAdd/Sub/Mul/Div, gradients reduced over the broadcast dims by
 * kernel_sum_to; add_n (diopiCopyInp, then diopiAddInp per input). */
#include "kernel_call.h"

namespace bridge {

/* out = x OP y, y (or x) of fewer dims placed at the other's dim `axis`
 * (-1: numpy's rule). */
enum binary_op { ADD, SUBTRACT, MULTIPLY, DIVIDE };

static void binary(KernelCall &call, enum binary_op op,
                   const phi::DenseTensor &x, const phi::DenseTensor &y,
                   int axis, phi::DenseTensor *out) {
  diopiScalar_t one = kernel_scalar(1.0);
  diopiTensorHandle_t a = call.wrap_at_axis(pd(x), pd(y), axis),
                      b = call.wrap_at_axis(pd(y), pd(x), axis);
  diopiTensorHandle_t o = call.alloc(pd(out));
  switch (op) {
  case ADD:
    call.check(DIOPI(call, diopiAdd)(call.diopi(), o, a, b, &one), "diopiAdd");
    break;
  case SUBTRACT:
    call.check(DIOPI(call, diopiSub)(call.diopi(), o, a, b, &one), "diopiSub");
    break;
  case MULTIPLY:
    call.check(DIOPI(call, diopiMul)(call.diopi(), o, a, b), "diopiMul");
    break;
  case DIVIDE:
    call.check(DIOPI(call, diopiDiv)(call.diopi(), o, a, b, RoundModeNone),
               "diopiDiv");
    break;
  }
}

#define BINARY(Kernel, name, op)                                               \
  template <typename T>                                                        \
  void Kernel##Raw(const phi::Context &dev_ctx, const phi::DenseTensor &x,     \
                   const phi::DenseTensor &y, int axis,                        \
                   phi::DenseTensor *out) {                                    \
    KernelCall call(dev_ctx, name "_raw", kernel_dtype_of<T>());               \
    binary(call, op, x, y, axis, out);                                         \
  }                                                                            \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,          \
              const phi::DenseTensor &y, phi::DenseTensor *out) {              \
    KernelCall call(dev_ctx, name, kernel_dtype_of<T>());                      \
    binary(call, op, x, y, -1, out);                                           \
  }

BINARY(AddKernel, "add", ADD)
BINARY(SubtractKernel, "subtract", SUBTRACT)
BINARY(MultiplyKernel, "multiply", MULTIPLY)
BINARY(DivideKernel, "divide", DIVIDE)

/* out = the sum of the tensors of x (same shape), added one at a time. */
template <typename T>
void AddNKernel(const phi::Context &dev_ctx,
                const std::vector<const phi::DenseTensor *> &x,
                phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "add_n", kernel_dtype_of<T>());
  if (x.empty() || x.size() > KERNEL_CALL_MAX_TENSORS - 1)
    call.fail("%zu inputs: 1 to %d are supported", x.size(),
              KERNEL_CALL_MAX_TENSORS - 1);
  diopiTensorHandle_t o = call.alloc(pd(out));
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), call.wrap(pd(x[0])), o),
             "diopiCopyInp");
  diopiScalar_t one = kernel_scalar(1.0);
  for (size_t i = 1; i < x.size(); i++) {
    call.check(
        DIOPI(call, diopiAddInp)(call.diopi(), o, call.wrap(pd(x[i])), &one),
        "diopiAddInp");
  }
}

static void add_or_subtract_grad(KernelCall &call, PD_Tensor *dout,
                                 PD_Tensor *dx, PD_Tensor *dy, int axis,
                                 double y_sign) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(dout, shape);
  diopiTensorHandle_t g = call.wrap(dout);
  kernel_sum_to(call, dx, g, ndim, shape, 1.0, axis);
  kernel_sum_to(call, dy, g, ndim, shape, y_sign, axis);
}

template <typename T>
void AddGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &,
                   const phi::DenseTensor &, const phi::DenseTensor &dout,
                   int axis, phi::DenseTensor *dx, phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "add_grad", kernel_dtype_of<T>());
  add_or_subtract_grad(call, pd(dout), pd(dx), pd(dy), axis, 1.0);
}

template <typename T>
void SubtractGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &,
                        const phi::DenseTensor &, const phi::DenseTensor &dout,
                        int axis, phi::DenseTensor *dx, phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "subtract_grad", kernel_dtype_of<T>());
  add_or_subtract_grad(call, pd(dout), pd(dx), pd(dy), axis, -1.0);
}

/* dx = sum_to(dout * y), dy = sum_to(dout * x). */
template <typename T>
void MultiplyGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        const phi::DenseTensor &y, const phi::DenseTensor &dout,
                        int axis, phi::DenseTensor *dx, phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "multiply_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(dout), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(dout)));
  diopiTensorHandle_t g = call.wrap(pd(dout));
  PD_Tensor *grads[2] = {pd(dx), pd(dy)};
  PD_Tensor *others[2] = {pd(y), pd(x)};
  for (int i = 0; i < 2; i++) {
    if (grads[i] == NULL)
      continue;
    diopiTensorHandle_t t = call.temp(dtype, ndim, shape);
    call.check(
        DIOPI(call, diopiMul)(call.diopi(), t, g,
                              call.wrap_at_axis(others[i], pd(dout), axis)),
        "diopiMul");
    kernel_sum_to(call, grads[i], t, ndim, shape, 1.0, axis);
  }
}

/* dx = sum_to(dout / y), dy = -sum_to(dout * out / y). */
template <typename T>
void DivideGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &,
                      const phi::DenseTensor &y, const phi::DenseTensor &out,
                      const phi::DenseTensor &dout, int axis,
                      phi::DenseTensor *dx, phi::DenseTensor *dy) {
  KernelCall call(dev_ctx, "divide_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(dout), shape);
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(pd(dout)));
  diopiTensorHandle_t g = call.wrap(pd(dout)),
                      b = call.wrap_at_axis(pd(y), pd(dout), axis);
  if (dx) {
    diopiTensorHandle_t t = call.temp(dtype, ndim, shape);
    call.check(DIOPI(call, diopiDiv)(call.diopi(), t, g, b, RoundModeNone),
               "diopiDiv");
    kernel_sum_to(call, pd(dx), t, ndim, shape, 1.0, axis);
  }
  if (dy) {
    diopiTensorHandle_t t = call.temp(dtype, ndim, shape);
    call.check(DIOPI(call, diopiMul)(call.diopi(), t, g, call.wrap(pd(out))),
               "diopiMul");
    call.check(DIOPI(call, diopiDivInp)(call.diopi(), t, b, RoundModeNone),
               "diopiDivInp");
    kernel_sum_to(call, pd(dy), t, ndim, shape, -1.0, axis);
  }
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(add, backplane, ALL_LAYOUT, bridge::AddKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(subtract, backplane, ALL_LAYOUT, bridge::SubtractKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(multiply, backplane, ALL_LAYOUT, bridge::MultiplyKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(divide, backplane, ALL_LAYOUT, bridge::DivideKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(add_grad, backplane, ALL_LAYOUT, bridge::AddGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(subtract_grad, backplane, ALL_LAYOUT,
                    bridge::SubtractGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(multiply_grad, backplane, ALL_LAYOUT,
                    bridge::MultiplyGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(divide_grad, backplane, ALL_LAYOUT,
                    bridge::DivideGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(add_n, backplane, ALL_LAYOUT, bridge::AddNKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(add_raw, backplane, ALL_LAYOUT, bridge::AddKernelRaw,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(subtract_raw, backplane, ALL_LAYOUT,
                    bridge::SubtractKernelRaw, BRIDGE_FLOAT_DTYPES, int32_t,
                    int64_t) {}
PD_BUILD_PHI_KERNEL(multiply_raw, backplane, ALL_LAYOUT,
                    bridge::MultiplyKernelRaw, BRIDGE_FLOAT_DTYPES, int32_t,
                    int64_t) {}
PD_BUILD_PHI_KERNEL(divide_raw, backplane, ALL_LAYOUT, bridge::DivideKernelRaw,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
