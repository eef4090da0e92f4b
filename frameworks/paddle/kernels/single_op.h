/* The shapes of kernel that are a single DIOPI op:
 *   BRIDGE_UNARY:      Kernel<T>(dev_ctx, x, out)            out = op(x)
 *   BRIDGE_UNARY_GRAD: Kernel<T>(dev_ctx, saved, dout, dx)  dx = op(dout,
 *                      saved)
 *   BRIDGE_BINARY:     Kernel<T>(dev_ctx, x, y, out)         out = op(x, y)
 * for an op of (ctx, out, input[, other]) or (ctx, grad_input, grad_output,
 * saved), where `saved` is what the phi gradient kernel takes from the
 * forward (its output for sigmoid, tanh and exp, whose gradient is
 * diopiMul). Their outputs are T; the _BOOL forms' are bool whatever T is
 * (predicates: their KernelCall names no dtype). */
#ifndef BACKPLANE_PADDLE_KERNELS_SINGLE_OP_H_
#define BACKPLANE_PADDLE_KERNELS_SINGLE_OP_H_

#include "kernel_call.h"

/* ...: KernelCall's arguments after dev_ctx. */
#define BRIDGE_UNARY_CALL(Kernel, op, ...)                                     \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,          \
              phi::DenseTensor *out) {                                         \
    KernelCall call(dev_ctx, __VA_ARGS__);                                     \
    diopiTensorHandle_t in = call.wrap(pd(x));                                 \
    call.check(DIOPI(call, op)(call.diopi(), call.alloc(pd(out)), in), #op);   \
  }
#define BRIDGE_BINARY_CALL(Kernel, op, ...)                                    \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,          \
              const phi::DenseTensor &y, phi::DenseTensor *out) {              \
    KernelCall call(dev_ctx, __VA_ARGS__);                                     \
    diopiTensorHandle_t a = call.wrap(pd(x)), b = call.wrap(pd(y));            \
    call.check(DIOPI(call, op)(call.diopi(), call.alloc(pd(out)), a, b), #op); \
  }

#define BRIDGE_UNARY(Kernel, name, op)                                         \
  BRIDGE_UNARY_CALL(Kernel, op, name, kernel_dtype_of<T>())
#define BRIDGE_UNARY_BOOL(Kernel, name, op) BRIDGE_UNARY_CALL(Kernel, op, name)
#define BRIDGE_BINARY(Kernel, name, op)                                        \
  BRIDGE_BINARY_CALL(Kernel, op, name, kernel_dtype_of<T>())
#define BRIDGE_BINARY_BOOL(Kernel, name, op)                                   \
  BRIDGE_BINARY_CALL(Kernel, op, name)

#define BRIDGE_UNARY_GRAD(Kernel, name, op)                                    \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &saved,      \
              const phi::DenseTensor &dout, phi::DenseTensor *dx) {            \
    KernelCall call(dev_ctx, name, kernel_dtype_of<T>());                      \
    diopiTensorHandle_t s = call.wrap(pd(saved)), g = call.wrap(pd(dout));     \
    call.check(DIOPI(call, op)(call.diopi(), call.alloc(pd(dx)), g, s), #op);  \
  }

#endif /* BACKPLANE_PADDLE_KERNELS_SINGLE_OP_H_ */
