/* Writes by index and their gradients: scatter along dim 0 (overwrite:
 * diopiIndexPut, a repeated index keeping the last update as on Paddle's
 * CPU; add: the indexed rows zeroed, then diopiIndexPutInp accumulating),
 * its gradient (x_grad = out_grad with those rows zeroed, updates_grad =
 * out_grad's rows by diopiIndexSelect); index_sample (out[i][j] =
 * x[i][index[i][j]]: diopiGather along dim 1, the gradient
 * diopiGatherBackward). */
#include "kernel_call.h"

namespace bridge {

/* index as a 1-D list of rows (a 0-D index is one row). */
static diopiConstTensorHandle_t row_index(KernelCall &call, PD_Tensor *index) {
  int64_t count = kernel_numel(index);
  return call.wrap(index, 1, &count);
}

/* t[index] = 0 for t of rows (dim 0); `rows` shapes the zeros. */
static void zero_rows(KernelCall &call, diopiTensorHandle_t t,
                      diopiConstTensorHandle_t index, PD_Tensor *rows) {
  call.check(DIOPI(call, diopiIndexPutInp)(call.diopi(), t,
                                           kernel_zeros_like(call, rows),
                                           &index, 1, false),
             "diopiIndexPutInp");
}

template <typename T>
void ScatterKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                   const phi::DenseTensor &index,
                   const phi::DenseTensor &updates, bool overwrite,
                   phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "scatter", kernel_dtype_of<T>());
  diopiConstTensorHandle_t idx = row_index(call, pd(index));
  diopiTensorHandle_t o = call.alloc(pd(out)), u = call.wrap(pd(updates));
  call.check(DIOPI(call, diopiCopyInp)(call.diopi(), call.wrap(pd(x)), o),
             "diopiCopyInp");
  if (!overwrite)
    zero_rows(call, o, idx, pd(updates));
  call.check(
      DIOPI(call, diopiIndexPutInp)(call.diopi(), o, u, &idx, 1, !overwrite),
      "diopiIndexPutInp");
}

template <typename T>
void ScatterGradKernel(const phi::Context &dev_ctx,
                       const phi::DenseTensor &index,
                       const phi::DenseTensor &updates,
                       const phi::DenseTensor &out_grad, bool overwrite,
                       phi::DenseTensor *x_grad,
                       phi::DenseTensor *updates_grad) {
  KernelCall call(dev_ctx, "scatter_grad", kernel_dtype_of<T>());
  diopiConstTensorHandle_t idx = row_index(call, pd(index));
  diopiTensorHandle_t g = call.wrap(pd(out_grad));
  /* updates_grad first: x_grad may share out_grad's memory. */
  if (updates_grad)
    call.check(DIOPI(call, diopiIndexSelect)(
                   call.diopi(), call.alloc(pd(updates_grad)), g, 0, idx),
               "diopiIndexSelect");
  if (x_grad) {
    diopiTensorHandle_t dx = call.alloc(pd(x_grad));
    call.check(DIOPI(call, diopiCopyInp)(call.diopi(), g, dx), "diopiCopyInp");
    zero_rows(call, dx, idx, pd(updates));
  }
}

template <typename T>
void IndexSampleKernel(const phi::Context &dev_ctx, const phi::DenseTensor &x,
                       const phi::DenseTensor &index, phi::DenseTensor *out) {
  KernelCall call(dev_ctx, "index_sample", kernel_dtype_of<T>());
  call.check(DIOPI(call, diopiGather)(call.diopi(), call.alloc(pd(out)),
                                      call.wrap(pd(x)), 1,
                                      call.wrap(pd(index))),
             "diopiGather");
}

/* x is Paddle's no-need-buffer input here (dims, no memory); the gradient
 * reads only its shape, given by zeros of it. */
template <typename T>
void IndexSampleGradKernel(const phi::Context &dev_ctx,
                           const phi::DenseTensor &x,
                           const phi::DenseTensor &index,
                           const phi::DenseTensor &out_grad,
                           phi::DenseTensor *x_grad) {
  KernelCall call(dev_ctx, "index_sample_grad", kernel_dtype_of<T>());
  call.check(DIOPI(call, diopiGatherBackward)(
                 call.diopi(), call.alloc(pd(x_grad)), call.wrap(pd(out_grad)),
                 kernel_zeros_like(call, pd(x)), 1, call.wrap(pd(index))),
             "diopiGatherBackward");
}

} // namespace bridge

PD_BUILD_PHI_KERNEL(scatter, backplane, ALL_LAYOUT, bridge::ScatterKernel,
                    BRIDGE_FLOAT_DTYPES, int32_t, int64_t) {}
PD_BUILD_PHI_KERNEL(scatter_grad, backplane, ALL_LAYOUT,
                    bridge::ScatterGradKernel, BRIDGE_FLOAT_DTYPES) {}
PD_BUILD_PHI_KERNEL(index_sample, backplane, ALL_LAYOUT,
                    bridge::IndexSampleKernel, BRIDGE_FLOAT_DTYPES, int32_t,
                    int64_t) {}
PD_BUILD_PHI_KERNEL(index_sample_grad, backplane, ALL_LAYOUT,
                    bridge::IndexSampleGradKernel, BRIDGE_FLOAT_DTYPES) {}
