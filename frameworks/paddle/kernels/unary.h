/* The two shapes of one-tensor kernel that are a single DIOPI op:
 *   BRIDGE_UNARY:      Kernel<T>(dev_ctx, x, out)            out = op(x)
 *   BRIDGE_UNARY_GRAD: Kernel<T>(dev_ctx, saved, dout, dx)  dx = op(dout,
 * saved) for an op of (ctx, out, input) or (ctx, grad_input, grad_output,
 * saved), where `saved` is what the phi gradient kernel takes from the forward
 * (its output for sigmoid, tanh and exp, whose gradient is diopiMul). */
#ifndef BACKPLANE_PADDLE_KERNELS_UNARY_H_
#define BACKPLANE_PADDLE_KERNELS_UNARY_H_

#include "kernel_call.h"

#define BRIDGE_UNARY(Kernel, name, op)                                         \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,          \
              phi::DenseTensor *out) {                                         \
    KernelCall call(dev_ctx, name, kernel_dtype_of<T>());                      \
    diopiTensorHandle_t in = call.wrap(pd(x));                                 \
    call.check(DIOPI(call, op)(call.diopi(), call.alloc(pd(out)), in), #op);   \
  }

#define BRIDGE_UNARY_GRAD(Kernel, name, op)                                    \
  template <typename T>                                                        \
  void Kernel(const phi::Context &dev_ctx, const phi::DenseTensor &saved,      \
              const phi::DenseTensor &dout, phi::DenseTensor *dx) {            \
    KernelCall call(dev_ctx, name, kernel_dtype_of<T>());                      \
    diopiTensorHandle_t s = call.wrap(pd(saved)), g = call.wrap(pd(dout));     \
    call.check(DIOPI(call, op)(call.diopi(), call.alloc(pd(dx)), g, s), #op);  \
  }

#endif /* BACKPLANE_PADDLE_KERNELS_UNARY_H_ */
