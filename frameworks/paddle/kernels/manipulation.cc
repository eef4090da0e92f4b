/* stack and unstack (each the other's gradient), split and split_with_num
 * (whose gradient is Paddle's concat), expand (+ grad): diopiStack,
 * diopiSplitWithSizes, diopiExpand, and kernel_sum_to back. */
#include <string.h>

#include "kernel_call.h"

namespace bridge {

/* out = x[0..n) stacked along a new dim `axis`. */
static void stack(KernelCall &call,
                  const std::vector<const phi::DenseTensor *> &x, int axis,
                  PD_Tensor *out) {
  if (x.empty() || x.size() > KERNEL_CALL_MAX_TENSORS - 1)
    call.fail("x: expected 1 to %d tensors, got %zu",
              KERNEL_CALL_MAX_TENSORS - 1, x.size());
  diopiConstTensorHandle_t inputs[KERNEL_CALL_MAX_TENSORS];
  for (size_t i = 0; i < x.size(); i++)
    inputs[i] = call.wrap(pd(x[i]));
  call.check(DIOPI(call, diopiStack)(call.diopi(), call.alloc(out), inputs,
                                     (int64_t)x.size(), axis),
             "diopiStack");
}

/* outs[i] = x's slice i along `axis` (dim `axis` dropped); a NULL output
 * (a gradient Paddle does not want) is written to scratch. */
static void unstack(KernelCall &call, PD_Tensor *x, int axis,
                    const std::vector<phi::DenseTensor *> &outs) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(x, shape);
  int d = axis < 0 ? axis + ndim : axis;
  if (d < 0 || d >= ndim)
    call.fail("axis %d out of range for rank %d", axis, ndim);
  if ((int64_t)outs.size() != shape[d] ||
      outs.size() > KERNEL_CALL_MAX_TENSORS - 2)
    call.fail("%zu outputs for a dim of %lld (at most %d)", outs.size(),
              (long long)shape[d], KERNEL_CALL_MAX_TENSORS - 2);
  /* Each output seen with the unit dim kept, so that one split makes all. */
  int64_t part[BP_OPS_MAX_DIMS], sizes[KERNEL_CALL_MAX_TENSORS];
  memcpy(part, shape, sizeof part);
  part[d] = 1;
  diopiDtype_t dtype = kernel_diopi_dtype(kernel_dtype(x));
  diopiTensorHandle_t parts[KERNEL_CALL_MAX_TENSORS];
  for (size_t i = 0; i < outs.size(); i++) {
    sizes[i] = 1;
    if (pd(outs[i]) != NULL) {
      call.alloc(pd(outs[i]));
      parts[i] = call.wrap(pd(outs[i]), ndim, part);
    } else {
      parts[i] = call.temp(dtype, ndim, part);
    }
  }
  diopiSize_t split = {sizes, (int64_t)outs.size()};
  call.check(DIOPI(call, diopiSplitWithSizes)(call.diopi(), parts,
                                              (int64_t)outs.size(),
                                              call.wrap(x), split, d),
             "diopiSplitWithSizes");
}

template <typename T>
void StackKernel(const phi::Context &dev_ctx,
                 const std::vector<const phi::DenseTensor *> &x, int axis,
                 phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "stack", kernel_dtype_of<T>());
  stack(call, x, axis, pd(out));
}

template <typename T>
void StackGradKernel(const phi::Context &dev_ctx,
                     const phi::DenseTensor &out_grad, int axis,
                     std::vector<phi::DenseTensor *> x_grad) {
  KernelCall call(dev_ctx, "stack_grad", kernel_dtype_of<T>());
  unstack(call, pd(out_grad), axis, x_grad);
}

template <typename T>
void UnstackKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   int axis, int num, std::vector<phi::DenseTensor *> outs) {
  KernelCall call(dev_ctx, "unstack", kernel_dtype_of<T>());
  unstack(call, pd(x), axis, outs);
}

template <typename T>
void UnstackGradKernel(const phi::Context &dev_ctx,
                       const std::vector<const phi::DenseTensor *> &out_grad,
                       int axis, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "unstack_grad", kernel_dtype_of<T>());
  stack(call, out_grad, axis, pd(x_grad));
}

/* outs = x cut along `axis` into the lengths Paddle's InferMeta gave the
 * outputs. */
static void split(KernelCall &call, PD_Tensor *x, const phi::Scalar &axis,
                  const std::vector<phi::DenseTensor *> &outs) {
  int64_t shape[BP_OPS_MAX_DIMS], sizes[KERNEL_CALL_MAX_TENSORS];
  int ndim = kernel_dims(x, shape);
  int64_t d = axis.to<int64_t>();
  if (d < 0)
    d += ndim;
  if (d < 0 || d >= ndim)
    call.fail("axis %lld out of range for rank %d",
              (long long)axis.to<int64_t>(), ndim);
  if (outs.size() > KERNEL_CALL_MAX_TENSORS - 1)
    call.fail("%zu outputs (at most %d)", outs.size(),
              KERNEL_CALL_MAX_TENSORS - 1);
  diopiTensorHandle_t parts[KERNEL_CALL_MAX_TENSORS];
  for (size_t i = 0; i < outs.size(); i++) {
    int64_t part[BP_OPS_MAX_DIMS];
    if (kernel_dims(pd(outs[i]), part) != ndim)
      call.fail("output %zu has another rank than x", i);
    sizes[i] = part[d];
    parts[i] = call.alloc(pd(outs[i]));
  }
  diopiSize_t split_sizes = {sizes, (int64_t)outs.size()};
  call.check(DIOPI(call, diopiSplitWithSizes)(call.diopi(), parts,
                                              (int64_t)outs.size(),
                                              call.wrap(x), split_sizes, d),
             "diopiSplitWithSizes");
}

template <typename T>
void SplitKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                 const phi::IntArray &sections, const phi::Scalar &axis,
                 std::vector<phi::DenseTensor *> out) {
  KernelCall call(dev_ctx, "split", kernel_dtype_of<T>());
  split(call, pd(x), axis, out);
}

template <typename T>
void SplitWithNumKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        int num, const phi::Scalar &axis,
                        std::vector<phi::DenseTensor *> out) {
  KernelCall call(dev_ctx, "split_with_num", kernel_dtype_of<T>());
  split(call, pd(x), axis, out);
}

template <typename T>
void ExpandKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                  const phi::IntArray &shape, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "expand", kernel_dtype_of<T>());
  diopiTensorHandle_t in = call.wrap(pd(x));
  call.check(DIOPI(call, diopiExpand)(call.diopi(), call.alloc(pd(out)), in),
             "diopiExpand");
}

template <typename T>
void ExpandGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                      const phi::DenseTensor &out_grad,
                      const phi::IntArray &shape, phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "expand_grad", kernel_dtype_of<T>());
  int64_t dims[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(out_grad), dims);
  kernel_sum_to(call, pd(x_grad), call.wrap(pd(out_grad)), ndim, dims, 1.0);
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(stack, backplane, ALL_LAYOUT, bridge::StackKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(stack_grad, backplane, ALL_LAYOUT, bridge::StackGradKernel,
                    BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(unstack, backplane, ALL_LAYOUT, bridge::UnstackKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(unstack_grad, backplane, ALL_LAYOUT,
                    bridge::UnstackGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(split, backplane, ALL_LAYOUT, bridge::SplitKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(split_with_num, backplane, ALL_LAYOUT,
                    bridge::SplitWithNumKernel, BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(expand, backplane, ALL_LAYOUT, bridge::ExpandKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(expand_grad, backplane, ALL_LAYOUT,
                    bridge::ExpandGradKernel, BRIDGE_FLOAT_DTYPES) {}
