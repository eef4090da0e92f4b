/* Reads and writes along one axis by an index tensor (int32 or int64,
 * values in [0, size) of that axis) and their gradients: take_along_axis
 * (diopiGather; gradient diopiGatherBackward), put_along_axis with reduce
 * assign, add or mul/multiply over x's own values (diopiScatter; gradient:
 * value_grad gathers out_grad, x_grad is out_grad with assigned places
 * zeroed), index_add (x plus add_value's slices at the indexed places of
 * the axis: diopiScatterInp adding through the index broadcast to
 * add_value's shape; gradient: out_grad, and add_value_grad its indexed
 * slices by diopiIndexSelect). */
#include <string>

#include "kernel_call.h"

namespace bridge {

/* `axis` of `t` as a dim in [0, ndim). */
static int normalized_axis(KernelCall &call, PD_Tensor *t, int axis) {
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(t, shape);
  if (axis < -ndim || axis >= (ndim ? ndim : 1))
    call.fail("axis: expected -%d to %d, got %d", ndim, ndim - 1, axis);
  return axis < 0 ? axis + ndim : axis;
}

template <typename T>
void TakeAlongAxisKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                         const phi::DenseTensor &index, int axis,
                         phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "take_along_axis", kernel_dtype_of<T>());
  int dim = normalized_axis(call, pd(x), axis);
  call.check(DIOPI(call, diopiGather)(call.diopi(), call.alloc(pd(out)),
                                      call.wrap(pd(x)), dim,
                                      call.wrap(pd(index))),
             "diopiGather");
}

template <typename T>
void TakeAlongAxisGradKernel(const phi::Context &dev_ctx,
                             const phi::DenseTensor &x,
                             const phi::DenseTensor &index,
                             const phi::DenseTensor &out_grad, int axis,
                             phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "take_along_axis_grad", kernel_dtype_of<T>());
  int dim = normalized_axis(call, pd(x), axis);
  call.check(DIOPI(call, diopiGatherBackward)(
                 call.diopi(), call.alloc(pd(x_grad)), call.wrap(pd(out_grad)),
                 kernel_zeros_like(call, pd(x)), dim, call.wrap(pd(index))),
             "diopiGatherBackward");
}

/* diopiScatter's reduce for Paddle's (NULL: assign). */
static const char *scatter_reduce(KernelCall &call, const std::string &reduce,
                                  bool include_self) {
  if (reduce == "assign")
    return NULL;
  if (!include_self)
    call.fail("include_self false: only true is supported");
  if (reduce == "add")
    return "add";
  if (reduce == "mul" || reduce == "multiply")
    return "multiply";
  call.fail("reduce %s: only assign, add and mul are supported",
            reduce.c_str());
}

template <typename T>
void PutAlongAxisKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                        const phi::DenseTensor &index,
                        const phi::DenseTensor &value, int axis,
                        const std::string &reduce, bool include_self,
                        phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "put_along_axis", kernel_dtype_of<T>());
  int dim = normalized_axis(call, pd(x), axis);
  const char *how = scatter_reduce(call, reduce, include_self);
  call.check(DIOPI(call, diopiScatter)(
                 call.diopi(), call.alloc(pd(out)), call.wrap(pd(x)), dim,
                 call.wrap(pd(value)), call.wrap(pd(index)), how),
             "diopiScatter");
}

template <typename T>
void PutAlongAxisGradKernel(
    const phi::Context &dev_ctx, const phi::DenseTensor &x,
    const phi::DenseTensor &index, const phi::DenseTensor &value,
    const phi::DenseTensor &out, const phi::DenseTensor &out_grad, int axis,
    const std::string &reduce, bool include_self, phi::DenseTensor *x_grad,
    phi::DenseTensor *value_grad) {
  KernelCall call(dev_ctx, "put_along_axis_grad", kernel_dtype_of<T>());
  int dim = normalized_axis(call, pd(x), axis);
  const char *how = scatter_reduce(call, reduce, include_self);
  if (how != NULL && std::string(how) == "multiply")
    call.fail("reduce %s: the gradient supports assign and add",
              reduce.c_str());
  diopiTensorHandle_t g = call.wrap(pd(out_grad)), idx = call.wrap(pd(index));
  /* value_grad first: x_grad may share out_grad's memory. */
  if (value_grad)
    call.check(DIOPI(call, diopiGather)(
                   call.diopi(), call.alloc(pd(value_grad)), g, dim, idx),
               "diopiGather");
  if (x_grad == NULL)
    return;
  diopiTensorHandle_t dx = call.alloc(pd(x_grad));
  if (how == NULL) {
    diopiScalar_t zero = kernel_scalar(0.0);
    call.check(DIOPI(call, diopiScatterScalar)(call.diopi(), dx, g, dim, &zero,
                                               idx, NULL),
               "diopiScatterScalar");
  } else {
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), g, dx), "diopiCopyInp");
  }
}

template <typename T>
void IndexAddKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                    const phi::DenseTensor &index,
                    const phi::DenseTensor &add_value, int axis,
                    phi::DenseTensor *output) {
  KernelCall call(dev_ctx, "index_add", kernel_dtype_of<T>());
  int dim = normalized_axis(call, pd(x), axis);
  int64_t shape[BP_OPS_MAX_DIMS], along[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(add_value), shape);
  if (ndim == 0 || dim >= ndim || kernel_numel(pd(index)) != shape[dim])
    call.fail("add_value: expected %lld slices along axis %d",
              (long long)kernel_numel(pd(index)), axis);
  for (int d = 0; d < ndim; d++)
    along[d] = d == dim ? shape[d] : 1;
  diopiTensorHandle_t spread =
      call.temp(kernel_diopi_dtype(kernel_dtype(pd(index))), ndim, shape);
  call.check(DIOPI(call, diopiExpand)(call.diopi(), spread,
                                      call.wrap(pd(index), ndim, along)),
             "diopiExpand");
  diopiTensorHandle_t o = call.alloc(pd(output));
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), call.wrap(pd(x)), o),
             "diopiCopyInp");
  call.check(DIOPI(call, diopiScatterInp)(
                 call.diopi(), o, dim, call.wrap(pd(add_value)), spread, "add"),
             "diopiScatterInp");
}

template <typename T>
void IndexAddGradKernel(const phi::Context &dev_ctx,
                        const phi::DenseTensor &index,
                        const phi::DenseTensor &add_value,
                        const phi::DenseTensor &out_grad, int axis,
                        phi::DenseTensor *x_grad,
                        phi::DenseTensor *add_value_grad) {
  KernelCall call(dev_ctx, "index_add_grad", kernel_dtype_of<T>());
  int dim = normalized_axis(call, pd(out_grad), axis);
  diopiTensorHandle_t g = call.wrap(pd(out_grad));
  int64_t count = kernel_numel(pd(index));
  /* add_value_grad first: x_grad may share out_grad's memory. */
  if (add_value_grad)
    call.check(DIOPI(call, diopiIndexSelect)(
                   call.diopi(), call.alloc(pd(add_value_grad)), g, dim,
                   call.wrap(pd(index), 1, &count)),
               "diopiIndexSelect");
  if (x_grad)
    call.check(
        DIOPI(call, diopiCopyInp)(call.diopi(), g, call.alloc(pd(x_grad))),
        "diopiCopyInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(take_along_axis, backplane, ALL_LAYOUT,
                    bridge::TakeAlongAxisKernel, BRIDGE_FLOAT_DTYPES, int32_t,
                    int64_t) {}
PD_BUILD_PHI_KERNEL(take_along_axis_grad, backplane, ALL_LAYOUT,
                    bridge::TakeAlongAxisGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(put_along_axis, backplane, ALL_LAYOUT,
                    bridge::PutAlongAxisKernel, BRIDGE_FLOAT_DTYPES, int32_t,
                    int64_t) {}
PD_BUILD_PHI_KERNEL(put_along_axis_grad, backplane, ALL_LAYOUT,
                    bridge::PutAlongAxisGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(index_add, backplane, ALL_LAYOUT, bridge::IndexAddKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(index_add_grad, backplane, ALL_LAYOUT,
                    bridge::IndexAddGradKernel, BRIDGE_FLOAT_DTYPES) {}
