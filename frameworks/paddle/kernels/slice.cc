/* slice and slice_grad, the kernels a legacy-IR static graph asks for
 * (eager slices are strided views Paddle makes itself): the slice's strided
 * view (strided_views.h) packed by diopiCopyInp, and its gradient a zero
 * tensor with out_grad copied into that view. Starts and ends may come from
 * tensors (StartsTensor, StartsTensorList, ...): Paddle hands the kernel
 * their values. */
#include "kernel_call.h"
#include "strided_views.h"

namespace bridge {

template <typename T>
void SliceKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                 const std::vector<int64_t> &axes, const phi::IntArray &starts,
                 const phi::IntArray &ends,
                 const std::vector<int64_t> &infer_flags,
                 const std::vector<int64_t> &decrease_axis,
                 phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "slice", kernel_dtype_of<T>());
  SliceView v = slice_view(call, pd(input), axes, starts.GetData(),
                           ends.GetData(), {}, decrease_axis, {});
  diopiTensorHandle_t o = call.alloc(pd(out), v.ndim, v.shape);
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), v.view, o),
             "diopiCopyInp");
}

template <typename T>
void SliceGradKernel(const phi::Context &dev_ctx, const phi::DenseTensor &input,
                     const phi::DenseTensor &out_grad,
                     const std::vector<int64_t> &axes,
                     const phi::IntArray &starts, const phi::IntArray &ends,
                     const std::vector<int64_t> &infer_flags,
                     const std::vector<int64_t> &decrease_axis,
                     phi::DenseTensor *input_grad) {
  KernelCall call(dev_ctx, "slice_grad", kernel_dtype_of<T>());
  int64_t shape[BP_OPS_MAX_DIMS];
  int ndim = kernel_dims(pd(input), shape);
  diopiTensorHandle_t dx = call.alloc(pd(input_grad), ndim, shape);
  diopiScalar_t zero = kernel_scalar(0.0);
  call.check(DIOPI(call, diopiFill)(call.diopi(), dx, &zero), "diopiFill");
  SliceView v = slice_view(call, pd(input_grad), axes, starts.GetData(),
                           ends.GetData(), {}, decrease_axis, {});
  if (kernel_numel(pd(out_grad)) != v.numel)
    call.fail("out_grad: %lld elements, expected the slice's %lld",
              (long long)kernel_numel(pd(out_grad)), (long long)v.numel);
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(),
                                       call.wrap(pd(out_grad), v.ndim, v.shape),
                                       v.view),
             "diopiCopyInp");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(slice, backplane, ALL_LAYOUT, bridge::SliceKernel,
                    BRIDGE_ANY_DTYPE) {}
PD_BUILD_PHI_KERNEL(slice_grad, backplane, ALL_LAYOUT, bridge::SliceGradKernel,
                    BRIDGE_ANY_DTYPE) {}
